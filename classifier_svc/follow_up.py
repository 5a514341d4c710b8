"""Follow-ups across turns: with no active session, a message may be about the
chat's last API call ("Same for Latvia?", "А в Латвии?", "Which of those is a bank
holiday?"). loop_svc owns that context (the response cache's L2) and gives its verdict
with the chat's state (LoopService.ChatState, the classifier's one read of the chat per
turn); a follow-up is routed to the loop with the last call's endpoint, where the cache
answers it or calls the API directly.

A follow-up loses to a strong match for another endpoint ("Tallinn weather tomorrow"
after a holidays answer is a new question, not new dates; "the cheapest electricity
hour tomorrow" is not a question about the holidays shown)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from atc.loop.v1 import loop_pb2
from classifier_svc.candidates import Candidate, Decision, Reason, Workflow
from classifier_svc.ports import EndpointSearch
from services.language import Lang

_KINDS = {
    loop_pb2.FOLLOW_UP_KIND_RESPONSE_QUESTION: "response_question",
    loop_pb2.FOLLOW_UP_KIND_PARAM_UPDATE: "param_update",
}
# Words of the query an endpoint's text must share for its match to override a param update.
_OVERRIDE_MIN_TERMS = 2


class FollowUpRouting:
    def __init__(
        self,
        search: EndpointSearch,
        *,
        override_cosine: float,
        search_limit: int = 5,
        clear_match: Callable[[Sequence[Candidate]], Candidate | None] | None = None,
    ) -> None:
        """`clear_match` reads the candidates on the endpoints' own scale (the API tool
        layer's gate): the endpoint it accepts with high confidence, or None. Without it a
        cosine and shared words make a strong match."""
        self._clear_match = clear_match
        self._search = search
        self._override_cosine = override_cosine
        self._search_limit = search_limit

    async def decision(
        self, response: loop_pb2.DetectFollowUpResponse | None, message: str, lang: Lang
    ) -> Decision | None:
        """A decision for a follow-up of the last call, or None (route as usual), from the
        loop's verdict on the message (read with the chat's state; None when it could not
        be made: fail open)."""
        if response is None:
            return None
        kind = _KINDS.get(response.kind)
        if kind is None or not response.endpoint.name:
            return None
        endpoint = response.endpoint
        # Either kind loses to a strong match for another endpoint: "cheapest hour tomorrow"
        # after a holidays answer asks something of its own, not of the holidays shown. A
        # value alone ("and next year?" after a vehicle tax) shares words with endpoints that
        # take such values (the holidays' "next", "year"), but none clearly: it stays.
        if kind in ("param_update", "response_question"):
            candidates = await self._search.search(message, self._search_limit)
            best = max(candidates, key=lambda c: c.dense_cosine, default=None)
            if (
                best is not None
                and best.name != endpoint.name
                and best.dense_cosine >= self._override_cosine
                and best.matched_terms >= _OVERRIDE_MIN_TERMS
                and self._clear_elsewhere(candidates, endpoint.name)
            ):
                return None
        changed = ", ".join(f"{k}={v}" for k, v in sorted(response.updated_params.items()))
        reasoning = f"follow-up ({kind}) of the last call to {endpoint.name}"
        decision = Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.NEW_MATCH,
            1.0,
            endpoints=(Candidate(endpoint.endpoint_id, endpoint.name, 1.0, 0, endpoint=endpoint),),
            reasoning=reasoning + (f": {changed}" if changed else ""),
            follow_up=response,
        )
        return decision

    def _clear_elsewhere(self, candidates: Sequence[Candidate], last: str) -> bool:
        if self._clear_match is None:
            return True
        clear = self._clear_match(candidates)
        return clear is not None and clear.name != last
