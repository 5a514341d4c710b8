"""The entry router: which layer answers a message.

Layer order (seed TOOL_CLASSIFIER.md): active session → SERVICE → API_TOOL_CALLING
→ CONTEXT → RAG → OOD. SERVICE and RAG have no collection to answer from yet, so
they are not in the chain; the chain is ordered so they slot in where the seed
puts them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from classifier_svc.api_matcher import Confidence, Match, Thresholds, assess
from classifier_svc.candidates import (
    ActiveSession,
    Candidate,
    Decision,
    ExecutionMode,
    PriorMessage,
    Reason,
    Workflow,
)
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.messages import OUT_OF_DOMAIN
from classifier_svc.multi_intent import split_intents
from classifier_svc.offers import with_offer
from classifier_svc.ports import EndpointSearch, SessionDirectory
from classifier_svc.small_talk import classify_small_talk, small_talk_reply
from services.language import Lang, LanguageDetector

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RouterPolicy:
    thresholds: Thresholds
    intent_switch_threshold: float
    search_limit: int
    api_tool_enabled: bool = True
    context_enabled: bool = True
    multi_intent_enabled: bool = True
    max_parallel_endpoints: int = 3


class Router:
    def __init__(
        self,
        search: EndpointSearch,
        sessions: SessionDirectory,
        detector: LanguageDetector,
        policy: RouterPolicy,
        follow_ups: FollowUpRouting | None = None,
    ) -> None:
        self._follow_ups = follow_ups
        self._search = search
        self._sessions = sessions
        self._detector = detector
        self._policy = policy

    async def decide(
        self,
        chat_id: str,
        message: str,
        requested: Lang | None,
        *,
        history: Sequence[PriorMessage] = (),
        dry_run: bool = False,
        owner_id: str = "",
    ) -> Decision:
        """The workflow for this message. With dry_run, an intent switch is reported
        but the old session is left in place."""
        session = await self._sessions.active_session(chat_id, owner_id)
        if session is not None:
            return await self._continue_session(session, message, requested, dry_run, owner_id)
        lang = requested or self._detector.detect(message)
        # A follow-up of the chat's last API call ("Same for Latvia?") goes back to that endpoint.
        if self._policy.api_tool_enabled and self._follow_ups is not None:
            followed = await self._follow_ups.decision(chat_id, owner_id, message, lang)
            if followed is not None:
                return followed
        if self._policy.api_tool_enabled:
            decision = await self._match_api_tool(message, lang)
            if decision is None and (offered := with_offer(message, history)) is not None:
                decision = await self._match_api_tool(offered, lang)
                if decision is not None:
                    decision = replace(decision, reasoning=f"affirms the last offer; {decision.reasoning}")
            if decision is not None:
                return decision
        if self._policy.context_enabled and (talk := classify_small_talk(message)) is not None:
            lang = requested or talk.language
            return Decision(
                Workflow.CONTEXT,
                lang,
                Reason.NEW_MATCH,
                1.0,
                reasoning=f"small talk: {talk.kind.value}",
                reply=small_talk_reply(talk.kind, lang),
            )
        return Decision(
            Workflow.OOD, lang, Reason.NO_MATCH, reasoning="no layer matched", reply=OUT_OF_DOMAIN[lang]
        )

    async def _continue_session(
        self, session: ActiveSession, message: str, requested: Lang | None, dry_run: bool, owner_id: str = ""
    ) -> Decision:
        # Short replies ("jah", "2026-01-01") cannot be re-detected: keep the session's language.
        lang = requested or session.language or self._detector.detect(message)
        if self._policy.api_tool_enabled:
            candidates = await self._search.search(message, self._policy.search_limit)
            match = assess(candidates, self._policy.thresholds)
            best = match.best
            if (
                match.confidence is Confidence.HIGH
                and best is not None
                and best.name not in session.endpoint_names
                and best.dense_cosine >= self._policy.intent_switch_threshold
            ):
                if not dry_run:
                    await self._sessions.drop_session(session.chat_id, owner_id)
                new_lang = requested or self._detector.detect(message, fallback=lang)
                return Decision(
                    Workflow.API_TOOL_CALLING,
                    new_lang,
                    Reason.INTENT_SWITCH,
                    best.dense_cosine,
                    endpoints=(best,),
                    reasoning=f"switched from {', '.join(session.endpoint_names)} to {best.name}",
                )
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.SESSION_RESUME,
            1.0,
            reasoning=f"active session for {', '.join(session.endpoint_names)}",
        )

    async def _match_api_tool(self, message: str, lang: Lang) -> Decision | None:
        candidates = await self._search.search(message, self._policy.search_limit)
        match = assess(candidates, self._policy.thresholds)
        # A message that splits into parts is checked part by part even when the whole
        # matches one endpoint well: "find the address … and calculate the vehicle tax …"
        # can match the tax endpoint strongly as a whole. The split is deterministic and
        # costs one search per part, only for messages with a conjunction.
        if self._policy.multi_intent_enabled:
            parallel = await self._decompose(message)
            if parallel:
                return Decision(
                    Workflow.API_TOOL_CALLING,
                    lang,
                    Reason.NEW_MATCH,
                    min(c.dense_cosine for c in parallel),
                    ExecutionMode.PARALLEL,
                    tuple(parallel),
                    reasoning="multi-intent: " + ", ".join(c.name for c in parallel),
                )
        if match.best is None:
            return None
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.NEW_MATCH,
            match.best.dense_cosine,
            endpoints=(match.best,),
            reasoning=_explain(match),
        )

    async def _decompose(self, message: str) -> list[Candidate]:
        """Endpoints of the message's sub-intents, when there are at least two distinct ones."""
        parts = split_intents(message, self._policy.max_parallel_endpoints)
        if not parts:
            return []
        results = await asyncio.gather(*(self._search.search(p, self._policy.search_limit) for p in parts))
        chosen: dict[str, Candidate] = {}
        for candidates in results:
            match = assess(candidates, self._policy.thresholds)
            if match.best is not None:
                chosen.setdefault(match.best.name, match.best)
        return list(chosen.values()) if len(chosen) >= 2 else []


def _explain(match: Match) -> str:
    best = match.best
    assert best is not None
    return (
        f"{match.confidence.value} confidence: {best.name} cosine={best.dense_cosine:.3f} "
        f"words={best.matched_terms}/{best.query_terms} hybrid_rank={best.hybrid_rank} gap={match.gap:.3f}"
    )
