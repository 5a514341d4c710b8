"""The router's follow-up hook: with no active session, a follow-up of the last call
(as loop_svc's DetectFollowUp reports it) is routed back to that endpoint, unless
the message strongly matches another endpoint."""

from __future__ import annotations

import grpc
import pytest

from atc.common.v1 import catalogue_pb2
from atc.loop.v1 import loop_pb2
from classifier_svc.candidates import Candidate, Reason, Workflow
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.router import Router, RouterPolicy
from services.language import LanguageDetector
from tests.classifier.layer_support import matcher

HOLIDAYS = catalogue_pb2.Endpoint(endpoint_id="id-h", name="get_national_holidays")


class Loop:
    """DetectFollowUp as loop_svc answers it, and the requests it got."""

    def __init__(self, response: loop_pb2.DetectFollowUpResponse | None) -> None:
        self.response = response
        self.requests: list[loop_pb2.DetectFollowUpRequest] = []

    async def DetectFollowUp(
        self, request: loop_pb2.DetectFollowUpRequest, timeout: float
    ) -> loop_pb2.DetectFollowUpResponse:
        self.requests.append(request)
        if self.response is None:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
            )
        return self.response


class Search:
    def __init__(self, candidates: list[Candidate]) -> None:
        self.candidates = candidates

    async def search(self, query: str, limit: int) -> list[Candidate]:
        return self.candidates[:limit]


class NoSessions:
    async def active_session(self, chat_id: str, owner_id: str = "") -> None:
        return None

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        return None


def _router(loop: Loop, search: Search) -> Router:
    policy = RouterPolicy(search_limit=5)
    follow_ups = FollowUpRouting(loop, search, timeout=1.0, override_cosine=0.85)  # type: ignore[arg-type]
    return Router(matcher(search), NoSessions(), LanguageDetector(), policy, follow_ups=follow_ups)


@pytest.fixture(scope="module")
def update() -> loop_pb2.DetectFollowUpResponse:
    return loop_pb2.DetectFollowUpResponse(
        kind=loop_pb2.FOLLOW_UP_KIND_PARAM_UPDATE, endpoint=HOLIDAYS, updated_params={"countryIsoCode": "LV"}
    )


async def test_a_follow_up_goes_back_to_the_last_endpoint(update: loop_pb2.DetectFollowUpResponse) -> None:
    loop = Loop(update)
    decision = await _router(loop, Search([])).decide("chat-1", "Same for Latvia?", "en", owner_id="u1")
    assert decision.workflow is Workflow.API_TOOL_CALLING and decision.reason is Reason.NEW_MATCH
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert "param_update" in decision.reasoning and "countryIsoCode=LV" in decision.reasoning
    assert loop.requests[0].owner_id == "u1" and loop.requests[0].chat_id == "chat-1"


async def test_a_strong_match_elsewhere_beats_a_param_update(update: loop_pb2.DetectFollowUpResponse) -> None:
    tax = Candidate(
        "id-t",
        "get_vehicle_tax_info",
        0.9,
        1,
        matched_terms=3,
        query_terms=3,
        endpoint="tax",
        description_cosine=0.9,
    )
    router = _router(Loop(update), Search([tax]))
    decision = await router.decide("chat-1", "Vehicle tax for 123ABC tomorrow", "en")
    assert [c.name for c in decision.endpoints] == ["get_vehicle_tax_info"]


async def test_new_intent_or_a_failing_loop_routes_as_usual() -> None:
    new = loop_pb2.DetectFollowUpResponse(kind=loop_pb2.FOLLOW_UP_KIND_NEW_INTENT)
    for loop in (Loop(new), Loop(None)):
        decision = await _router(loop, Search([])).decide("chat-1", "Hello there", "en")
        assert decision.workflow is not Workflow.API_TOOL_CALLING
