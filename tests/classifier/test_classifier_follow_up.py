"""The router's follow-up hook: with no active session, a follow-up of the last call
(as loop_svc's ChatState reports it) is routed back to that endpoint, unless
the message strongly matches another endpoint."""

from __future__ import annotations

import pytest

from atc.common.v1 import catalogue_pb2
from atc.loop.v1 import loop_pb2
from classifier_svc.candidates import Candidate, ChatSnapshot, Reason, Workflow
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.router import Router, RouterPolicy
from services.language import Lang, LanguageDetector
from tests.classifier.layer_support import Scripted, matcher, passage

HOLIDAYS = catalogue_pb2.Endpoint(endpoint_id="id-h", name="get_national_holidays")


class Loop:
    """The chat's state as loop_svc's ChatState reports it for a chat with no session
    (the follow-up verdict, None when none was made), and the reads it got."""

    def __init__(self, response: loop_pb2.DetectFollowUpResponse | None) -> None:
        self.response = response
        self.reads: list[tuple[str, str, str]] = []

    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        self.reads.append((chat_id, owner_id, message))
        return ChatSnapshot(None, self.response)

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        return None


class Search:
    def __init__(self, candidates: list[Candidate]) -> None:
        self.candidates = candidates

    async def search(self, query: str, limit: int) -> list[Candidate]:
        return self.candidates[:limit]


def _router(loop: Loop, search: Search) -> Router:
    policy = RouterPolicy(search_limit=5)
    follow_ups = FollowUpRouting(search, override_cosine=0.85)
    return Router(matcher(search), loop, LanguageDetector(), policy, follow_ups=follow_ups)


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
    # one read of the chat: the session and the verdict on this message together
    assert loop.reads == [("chat-1", "u1", "Same for Latvia?")]


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


async def test_new_intent_or_no_verdict_routes_as_usual() -> None:
    new = loop_pb2.DetectFollowUpResponse(kind=loop_pb2.FOLLOW_UP_KIND_NEW_INTENT)
    for loop in (Loop(new), Loop(None)):
        decision = await _router(loop, Search([])).decide("chat-1", "Hello there", "en")
        assert decision.workflow is not Workflow.API_TOOL_CALLING


PASSPORT = [
    passage(
        "passport.en",
        0.93,
        title="Applying for an Estonian passport",
        section="Validity",
        text="An adult's passport is valid for ten years.",
        matched=2,
        of=2,
    )
]


@pytest.mark.parametrize(
    "message",
    ["and how long is a passport valid?", "a kui kaua pass kehtib?", "а паспорт сколько действует?"],
)
async def test_a_document_question_after_a_call_is_the_knowledge_bases(
    update: loop_pb2.DetectFollowUpResponse, message: str
) -> None:
    loop = Loop(update)
    search = Search([])
    policy = RouterPolicy(search_limit=5)
    router = Router(
        matcher(search),
        loop,
        LanguageDetector(),
        policy,
        follow_ups=FollowUpRouting(search, override_cosine=0.85),
        knowledge=Scripted({"pass": PASSPORT, "паспорт": PASSPORT}),
    )
    decision = await router.decide("chat-1", message, None, owner_id="u1")
    assert decision.workflow is Workflow.RAG, decision.reasoning


async def test_a_value_after_a_call_stays_its_follow_up(update: loop_pb2.DetectFollowUpResponse) -> None:
    search = Search([])
    router = Router(
        matcher(search),
        Loop(update),
        LanguageDetector(),
        RouterPolicy(search_limit=5),
        follow_ups=FollowUpRouting(search, override_cosine=0.85),
        knowledge=Scripted({"pass": PASSPORT}),
    )
    decision = await router.decide("chat-1", "Same for Latvia?", "en")
    assert decision.workflow is Workflow.API_TOOL_CALLING
