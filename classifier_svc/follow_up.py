"""Follow-ups across turns: with no active session, a message may be about the
chat's last API call ("Same for Latvia?", "А в Латвии?", "Which of those is a bank
holiday?"). loop_svc owns that context (the response cache's L2) and decides with
LoopService.DetectFollowUp; a follow-up is routed to the loop with the last call's
endpoint, where the cache answers it or calls the API directly.

A follow-up loses to a strong match for another endpoint ("Tallinn weather tomorrow"
after a holidays answer is a new question, not new dates; "the cheapest electricity
hour tomorrow" is not a question about the holidays shown)."""

from __future__ import annotations

import logging

import grpc

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from classifier_svc.candidates import Candidate, Decision, Reason, Workflow
from classifier_svc.deadlines import lookup_timeout
from classifier_svc.ports import EndpointSearch
from services import language
from services.language import Lang

log = logging.getLogger(__name__)

_KINDS = {
    loop_pb2.FOLLOW_UP_KIND_RESPONSE_QUESTION: "response_question",
    loop_pb2.FOLLOW_UP_KIND_PARAM_UPDATE: "param_update",
}
# Words of the query an endpoint's text must share for its match to override a param update.
_OVERRIDE_MIN_TERMS = 2


class FollowUpRouting:
    def __init__(
        self,
        loop: loop_pb2_grpc.LoopServiceStub,
        search: EndpointSearch,
        *,
        timeout: float,
        override_cosine: float,
        search_limit: int = 5,
    ) -> None:
        self._loop = loop
        self._search = search
        self._timeout = timeout
        self._override_cosine = override_cosine
        self._search_limit = search_limit

    async def decision(self, chat_id: str, owner_id: str, message: str, lang: Lang) -> Decision | None:
        """A decision for a follow-up of the last call, or None (route as usual). Fails open."""
        request = loop_pb2.DetectFollowUpRequest(
            chat_id=chat_id, owner_id=owner_id, message=message, language=language.to_proto(lang)
        )
        try:
            response = await self._loop.DetectFollowUp(request, timeout=lookup_timeout(self._timeout))
        except grpc.aio.AioRpcError as error:
            log.warning("follow-up detection unavailable: %s", error.code().name)
            return None
        kind = _KINDS.get(response.kind)
        if kind is None or not response.endpoint.name:
            return None
        endpoint = response.endpoint
        # Either kind loses to a strong match for another endpoint: "cheapest hour tomorrow"
        # after a holidays answer asks something of its own, not of the holidays shown.
        if kind in ("param_update", "response_question"):
            candidates = await self._search.search(message, self._search_limit)
            best = max(candidates, key=lambda c: c.dense_cosine, default=None)
            if (
                best is not None
                and best.name != endpoint.name
                and best.dense_cosine >= self._override_cosine
                and best.matched_terms >= _OVERRIDE_MIN_TERMS
            ):
                return None
        changed = ", ".join(f"{k}={v}" for k, v in sorted(response.updated_params.items()))
        reasoning = f"follow-up ({kind}) of the last call to {endpoint.name}"
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.NEW_MATCH,
            1.0,
            endpoints=(Candidate(endpoint.endpoint_id, endpoint.name, 1.0, 0, endpoint=endpoint),),
            reasoning=reasoning + (f": {changed}" if changed else ""),
        )
