"""The entry router: which layer answers a message.

Layer order (seed TOOL_CLASSIFIER.md): active session → SERVICE → API_TOOL_CALLING
→ CONTEXT → RAG → OOD. SERVICE and RAG have no collection to answer from yet, so
they are not in the chain; the chain is ordered so they slot in where the seed
puts them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.api_tool import ApiToolMatcher
from classifier_svc.candidates import ActiveSession, Decision, PriorMessage, Reason, Workflow
from classifier_svc.messages import OUT_OF_DOMAIN
from classifier_svc.ports import SessionDirectory
from classifier_svc.small_talk import classify_small_talk, small_talk_reply
from services.language import Lang, LanguageDetector

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RouterPolicy:
    api_tool_enabled: bool = True
    context_enabled: bool = True


class Router:
    def __init__(
        self,
        api_tool: ApiToolMatcher,
        sessions: SessionDirectory,
        detector: LanguageDetector,
        policy: RouterPolicy,
    ) -> None:
        self._api_tool = api_tool
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
        but the old session is left in place. Only the owner's session is seen or dropped."""
        session = await self._sessions.active_session(chat_id, owner_id)
        if session is not None:
            return await self._continue_session(session, message, requested, dry_run, owner_id)
        lang = requested or self._detector.detect(message)
        if self._policy.api_tool_enabled:
            decision = await self._api_tool.match(message, lang, history)
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
        self, session: ActiveSession, message: str, requested: Lang | None, dry_run: bool, owner_id: str
    ) -> Decision:
        # Short replies ("jah", "2026-01-01") cannot be re-detected: keep the session's language.
        lang = requested or session.language or self._detector.detect(message)
        if self._policy.api_tool_enabled:
            target = await self._api_tool.switch_target(session, message)
            if target is not None:
                if not dry_run:
                    await self._sessions.drop_session(session.chat_id, owner_id)
                new_lang = requested or self._detector.detect(message, fallback=lang)
                return Decision(
                    Workflow.API_TOOL_CALLING,
                    new_lang,
                    Reason.INTENT_SWITCH,
                    target.prototype_cosine or target.description_cosine,
                    endpoints=(target,),
                    reasoning=f"switched from {', '.join(session.endpoint_names)} to {target.name}",
                )
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.SESSION_RESUME,
            1.0,
            reasoning=f"active session for {', '.join(session.endpoint_names)}",
        )
