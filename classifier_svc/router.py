"""The entry router: which layer answers a message.

Layer order: GUARD → CONTEXT → active session → follow-up → SERVICE → API_TOOL_CALLING
→ RAG → OOD. Each layer (classifier_svc/layers.py) returns a decision or "not mine"; OOD
always answers. The guard and the context layer (rules over whole messages) come before
the session: a harmful message inside a session is refused, and a "thanks" or "what did I
ask first?" is answered without touching the session. With TOOL_CLASSIFIER_ENABLED off, only RAG → OOD
run. A failure while classifying falls back to RAG (FALLBACK_TO_RAG_ON_ERROR); small
talk is still answered then, and when the knowledge search fails too (the indexer is
down) the reply says the search is temporarily unavailable.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from classifier_svc.answers import answers_pending
from classifier_svc.api_tool import ApiToolMatcher
from classifier_svc.calibration import KnowledgeGateThresholds, ServiceGateThresholds, WeakMatchThresholds
from classifier_svc.candidates import ActiveSession, Candidate, Decision, PriorMessage, Reason, Workflow
from classifier_svc.catalogue_overview import CatalogueOverview, Offer, Overview
from classifier_svc.conversation import CITIZENS_WORDS, classify_history_question
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.guard import Guard
from classifier_svc.knowledge_follow_up import (
    answer_text,
    asks_of_its_own,
    names_its_topic,
    on_cited_page,
    previous_exchange,
    search_text,
    short_enough,
    within_reach,
)
from classifier_svc.layer_choice import (
    asks_substitute_day,
    covered_topics,
    has_identifier,
    knowledge_class,
    names_document,
    status_question,
    uncovered_topic,
)
from classifier_svc.layers import (
    ApiToolLayer,
    ContextLayer,
    ConversationAnswerer,
    GuardLayer,
    IdentifierLayer,
    Layer,
    RagLayer,
    ServiceLayer,
    TurnContext,
    read_overview,
    small_talk_reply,
)
from classifier_svc.messages import SEARCH_UNAVAILABLE, confirm, out_of_domain
from classifier_svc.ports import EndpointSearch, KnowledgeSearch, SessionDirectory, SessionLookupFailed
from classifier_svc.rag_aspects import aspects_of, fold, is_question_word, is_yes_no, opens_with_condition
from classifier_svc.rag_gate import RagGate
from classifier_svc.rag_lexical import WordMatcher
from classifier_svc.service_gate import Thresholds
from classifier_svc.small_talk import small_talk_lead
from services.errors import InvalidArgument, MeshError, PermissionDenied
from services.language import Lang, LanguageDetector, cyrillic_reading
from services.runtime.telemetry import DomainTelemetry, NoTelemetry

log = logging.getLogger(__name__)


def _is_bug(error: Exception) -> bool:
    """A failure that is not the mesh's own (a search away, a timeout): logged with its
    traceback, since the turn carries on without the step and would hide it otherwise."""
    return not isinstance(error, MeshError)


# The words an endpoint must share with a knowledge follow-up that asks an aspect of the
# page, for the follow-up to be the endpoint's ("and the electricity price tomorrow?").
FOLLOW_UP_ENDPOINT_WORDS = 2
# The letters of a word that may name a new topic in such a follow-up.
NEW_TOPIC_LETTERS = 6


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
    # The services' and the knowledge base's gates, from the calibration profile (its
    # defaults when none is given, as in tests).
    service_thresholds: Thresholds = field(default_factory=lambda: ServiceGateThresholds().thresholds())
    # A service must be within this of the best knowledge passage's cosine.
    service_knowledge_margin: float = field(default_factory=lambda: ServiceGateThresholds().knowledge_margin)
    rag_gate: RagGate = field(default_factory=lambda: KnowledgeGateThresholds().gate(max_passages=4))
    rag_search_limit: int = 8
    # When an accepted endpoint is too weak to open a session (the calibration profile's).
    weak_match: WeakMatchThresholds = field(default_factory=WeakMatchThresholds)


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
        guard: Guard | None = None,
        overview: CatalogueOverview | None = None,
        words: WordMatcher | None = None,
    ) -> None:
        self._words = words or WordMatcher()
        self._telemetry = telemetry or NoTelemetry()
        self._overview = overview
        self._guard = GuardLayer(guard) if guard is not None else None
        # The out-of-scope topics the catalogue itself covers, per overview read.
        self._covered: tuple[Overview, frozenset[str]] | None = None
        self._follow_ups = follow_ups
        self._api_tool = api_tool
        self._sessions = sessions
        self._detector = detector
        self._policy = policy
        self._rag = RagLayer(knowledge, policy.rag_gate, policy.rag_search_limit) if knowledge else None
        # A question of a knowledge class has its lexical evidence in its class already:
        # the passage needs the gate's cosine, not its share of the question's words.
        self._rag_for_class = (
            RagLayer(knowledge, replace(policy.rag_gate, min_term_coverage=0.0), policy.rag_search_limit)
            if knowledge
            else None
        )
        self._layers: list[Layer] = []
        shaped: list[tuple[Workflow, EndpointSearch]] = []
        if services is not None and policy.service_enabled:
            shaped.append((Workflow.SERVICE, services))
        if policy.api_tool_enabled:
            shaped.append((Workflow.API_TOOL_CALLING, api_tool.search))
        if shaped:
            self._layers.append(
                IdentifierLayer(
                    shaped,
                    policy.search_limit,
                    accepted_endpoint=api_tool.accepted if policy.api_tool_enabled else None,
                )
            )
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
        self._context = ContextLayer(conversation, overview) if policy.context_enabled else None
        if self._rag is not None:
            self._layers.append(self._rag)

    @property
    def layers(self) -> list[Workflow]:
        """The chain as configured, in order (OOD always ends it)."""
        if not self._policy.tool_classifier_enabled:
            return [Workflow.RAG, Workflow.OOD] if self._rag else [Workflow.OOD]
        first = [Workflow.CONTEXT] if self._context is not None else []
        # The identifier layer is a shortcut into SERVICE / API_TOOL_CALLING, not a layer of its own.
        chain = [layer.workflow for layer in self._layers if not isinstance(layer, IdentifierLayer)]
        return first + chain + [Workflow.OOD]

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
        # A reply with no language of its own ("2027", "123ABC") keeps the chat's.
        lang = requested or self._detector.detect_in_chat(message, _citizens_words(history))
        try:
            decision = await self._decide(chat_id, message, requested, lang, history, dry_run, owner_id)
        except (InvalidArgument, PermissionDenied, SessionLookupFailed):
            # The caller's own fault, another owner's chat, or a chat whose state cannot be
            # read: never papered over by RAG.
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
            log.warning(
                "RAG fallback failed too (%s: %s); search unavailable",
                type(exc).__name__,
                exc,
                exc_info=_is_bug(exc),
            )
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
        turn = TurnContext(chat_id, message, requested, lang, tuple(history))
        # Refusals and small talk need no search and leave any session as it is.
        if self._guard is not None and (guarded := await self._guard.decide(turn)) is not None:
            return guarded
        if not self._policy.tool_classifier_enabled:
            return await self.answer_from_knowledge(message, lang, why="tool classifier disabled: RAG only")
        if self._context is not None and (context := await self._context.decide(turn)) is not None:
            return await self._unless_catalogue_claims(context, turn, dry_run, owner_id)
        # A value shaped like an identifier ("116MRK … miks maks nii naljakalt väike on") is
        # a lookup whatever topic a word of the sentence resembles.
        topic = None if has_identifier(message) else await self._uncovered_topic(message)
        refused = topic is not None and not await self._acted_on(message)
        # One read of the chat: its session, else the loop's follow-up verdict on the message.
        asks_follow_up = self._policy.api_tool_enabled and self._follow_ups is not None
        state = await self._sessions.chat_state(chat_id, owner_id, message if asks_follow_up else "", lang)
        if refused and (state.session is not None or state.follow_up is None or self._follow_ups is None):
            return await self._out_of_domain(
                lang, f"out of scope: {topic}, which the catalogue does not cover"
            )
        if refused and self._follow_ups is not None and state.follow_up is not None:
            # "and the income tax one?" after the votings: a question about the rows the last
            # answer has, not the out-of-scope topic its words name.
            followed = await self._follow_ups.decision(state.follow_up, message, lang)
            if followed is None:
                return await self._out_of_domain(
                    lang, f"out of scope: {topic}, which the catalogue does not cover"
                )
            return followed
        if (session := state.session) is not None:
            decision = await self._continue_session(session, turn, dry_run, owner_id)
            if session.is_service and decision.reason is Reason.SESSION_RESUME:
                decision = replace(decision, workflow=Workflow.SERVICE)
            return decision
        # A follow-up of the chat's last API call ("Same for Latvia?") goes back to that endpoint;
        # a question on a document's procedure ("а паспорт сколько действует?" after the
        # school holidays) names a topic of its own and is the knowledge base's first.
        asked = state.follow_up
        if asked is not None and names_document(message) and (known := await self._knowledge_question(turn)):
            return known
        if self._follow_ups is not None and asked is not None:
            followed = await self._follow_ups.decision(asked, message, lang)
            if followed is not None:
                return followed
        decision = await self._new_question(turn)
        # The loop's follow-up answer goes back to it with the turn: decided once.
        return replace(decision, follow_up=asked) if asked is not None else decision

    async def _new_question(self, turn: TurnContext) -> Decision:
        """A message that is no follow-up of the chat's last call, with no session under way."""
        lang = turn.language
        # "And how much does it cost?" after a knowledge or status answer continues it.
        if (followed := await self._knowledge_follow_up(turn)) is not None:
            return followed
        # "Is my passport ready yet?": the state of the citizen's own application is a
        # status service's question (it asks for the number), not the procedure page's.
        if (status := await self._status_question(turn)) is not None:
            return status
        # A question about a procedure (fees, applying, validity, documents needed, a lost
        # document) is the knowledge base's, unless the citizen gives an identifier.
        if (known := await self._knowledge_question(turn)) is not None:
            return known
        if (rule := await self._rule_on_a_case(turn)) is not None:
            return rule
        for layer in self._layers:
            with self._telemetry.span("classifier.layer", layer=layer.workflow.name) as span:
                found = await layer.decide(turn)
                span.set_attribute("answered", found is not None)
            if found is not None:
                return await self._unless_weak(found, turn)
        if (asked := await self._knowledge_by_aspect(turn)) is not None:
            return asked
        if (lead := small_talk_lead(turn.message)) is not None:
            # "good morning! busy wednesday huh": nothing any layer answers, and nothing
            # asked either — the greeting (thanks, goodbye) is answered, not refused.
            language = turn.requested or lead.language
            return Decision(
                Workflow.CONTEXT,
                language,
                Reason.NEW_MATCH,
                reasoning=f"small talk leading a message no layer took: {lead.kind.value}",
                reply=small_talk_reply(lead.kind, language, await read_overview(self._overview)),
            )
        return await self._out_of_domain(lang, "no layer matched")

    async def _rule_on_a_case(self, turn: TurnContext) -> Decision | None:
        """ "If a holiday falls on a Saturday, do we get Monday off?", "kui riigipüha on
        laupäeval, kas …", "если праздник выпал на субботу, …?": a yes/no question on a
        condition asks what a rule makes of a case, not for the dates of one (the weekday
        is the case, no period): the knowledge base's when a passage passes the usual
        gate. With a number in it (a date, a plate), it is a lookup as usual. So is a
        question whether a day off on a weekend is moved ("christmas is on a saturday, do
        we get the monday off instead?"): the case is told first, the rule asked after."""
        if self._rag is None or _DIGIT.search(turn.message):
            return None
        if not (opens_with_condition(turn.message) or asks_substitute_day(turn.message)):
            return None
        turn = in_cyrillic_when_russian(turn)
        if not is_yes_no(turn.message):
            return None
        # The usual gate: a page sharing one word of the question's topic ("when is the next
        # school holiday" and the public-holidays page) takes no lookup away.
        found = await self._rag.decide(turn, by_topic=False)
        if found is None:
            return None
        return replace(found, reasoning=f"a yes/no question on a condition; {found.reasoning}")

    async def _knowledge_by_aspect(self, turn: TurnContext) -> Decision | None:
        """A question no layer took that asks an aspect of a procedure (how to, how long,
        who can, what is needed: classifier_svc.rag_aspects) is the knowledge base's when
        a passage is close enough, without the usual share of the question's words: a
        citizen's own words for the topic ("got laid off", "sign up") are seldom the
        page's. Only after every layer: an API or service question is never taken."""
        if self._rag_for_class is None or has_identifier(turn.message):
            return None
        turn = in_cyrillic_when_russian(turn)
        aspects, _ = aspects_of(turn.message)
        if not aspects:
            return None
        found = await self._rag_for_class.decide(turn)
        if found is None:
            return None
        kinds = ", ".join(a.value for a in aspects)
        return replace(found, reasoning=f"a question of a knowledge aspect ({kinds}); {found.reasoning}")

    async def _unless_catalogue_claims(
        self, context: Decision, turn: TurnContext, dry_run: bool, owner_id: str
    ) -> Decision:
        """Small talk or a question about the chat goes to the catalogue when the catalogue
        takes it (ApiToolMatcher.claim: a "thank you" or "repeat" endpoint of its own, or a
        clear match); a session under way gives way to it as to any new request. Else the
        CONTEXT layer's own answer stands, also when the search fails."""
        if not self._policy.api_tool_enabled:
            return context
        try:
            # A question about the citizen's own words names the thing asked about ("какой
            # номер машины я тебе называл?"): only an endpoint registered for conversation
            # takes it ("what is your age again" may still be a clear match's).
            question = classify_history_question(turn.message)
            own_words = question is not None and question.kind in CITIZENS_WORDS
            claimed = await self._api_tool.claim(turn.message, context.language, registered_only=own_words)
            if claimed is None:
                return context
            session = (await self._sessions.chat_state(turn.chat_id, owner_id)).session
        except (InvalidArgument, PermissionDenied):
            raise
        except Exception as exc:
            log.warning(
                "catalogue check of small talk failed (%s: %s)",
                type(exc).__name__,
                exc,
                exc_info=_is_bug(exc),
            )
            return context
        if session is None:
            return claimed
        if not dry_run:
            await self._sessions.drop_session(session.chat_id, owner_id)
            self._telemetry.increment("intent_switches")
        return replace(
            claimed,
            reason=Reason.INTENT_SWITCH,
            reasoning=f"switched from {', '.join(session.endpoint_names)}; {claimed.reasoning}",
        )

    async def _status_question(self, turn: TurnContext) -> Decision | None:
        """A status question with no identifier goes to the closest service, unless an
        endpoint shares more of its words ("the status of the budget vote")."""
        if has_identifier(turn.message) or not status_question(turn.message):
            return None
        service = next((layer for layer in self._layers if isinstance(layer, ServiceLayer)), None)
        if service is None:
            return None
        found = await service.decide_status(turn)
        if found is None:
            return None
        if self._policy.api_tool_enabled:
            endpoint = await self._api_tool.match(turn.message, turn.language, turn.history)
            if endpoint is not None and any(
                c.matched_terms > found.endpoints[0].matched_terms for c in endpoint.endpoints
            ):
                return None
        return found

    async def _knowledge_question(self, turn: TurnContext) -> Decision | None:
        turn = in_cyrillic_when_russian(turn)
        kind = knowledge_class(turn.message)
        if kind is None or self._rag is None or self._rag_for_class is None or has_identifier(turn.message):
            return None
        # The usual gate first (its passages make the answer); the looser one only when
        # the usual one finds nothing.
        found = await self._rag.decide(turn) or await self._rag_for_class.decide(turn)
        if found is None:
            return None
        return replace(found, reasoning=f"a knowledge question ({kind}); {found.reasoning}")

    async def _knowledge_follow_up(self, turn: TurnContext) -> Decision | None:
        """A short message after a knowledge answer (or a document's status) that names no
        topic of its own, or a new topic but nothing to ask of it ("ja pass?"), answered
        from that page (classifier_svc/knowledge_follow_up.py). A message that shares words
        with an endpoint ("and the electricity price tomorrow?") is left to the layers."""
        previous = previous_exchange(turn.history)
        short = short_enough(turn.message)
        if (
            previous is None
            or self._rag is None
            or not within_reach(turn.message)
            or has_identifier(turn.message)
        ):
            return None
        after_status = has_identifier(previous.question)
        if not previous.cited_urls and not after_status:
            return None
        lang = turn.requested or self._detector.detect(
            turn.message, fallback=self._detector.detect(previous.question)
        )
        turn = replace(turn, language=lang)
        question = answer_text(turn.message, previous)
        own = await self._rag.decide(turn)
        if own is not None and names_its_topic(turn.message, own.passages, self._words, previous):
            if asks_of_its_own(turn.message) or not short:
                return None  # a question of its own, routed as usual
            return replace(own, query=question, reasoning=f"a follow-up on a new topic; {own.reasoning}")
        if self._policy.api_tool_enabled:
            endpoint = await self._api_tool.match(turn.message, lang, turn.history)
            # A follow-up that asks an aspect of the page ("ja palju see maksab", "и сколько
            # это займет по времени") shares its one aspect word with many an endpoint
            # ("maksab"/"maks", "времени"/"time"): the endpoint needs a word besides it.
            # Unless the message names something the previous exchange did not ("and the
            # electricity prices tomorrow?").
            aspects, cues = aspects_of(turn.message)
            said = self._words.words(f"{previous.question} {previous.reply}")
            words = {
                w for w in self._words.words(turn.message) if fold(w) not in cues and not is_question_word(w)
            }
            # A new thing is named by a longer word ("electricity", "tomorrow", "выборы"); the
            # short ones are mostly verbs and particles of the question ("võtab", "это").
            new_words = {w for w in words if len(w) >= NEW_TOPIC_LETTERS and not self._words.match(w, said)}
            needed = FOLLOW_UP_ENDPOINT_WORDS if aspects and not new_words else 1
            if endpoint is not None and any(c.matched_terms >= needed for c in endpoint.endpoints[:1]):
                return None
        searched = replace(turn, message=search_text(turn.message, previous))
        found = await self._rag_for_class.decide(searched) if self._rag_for_class is not None else None
        if found is None:
            return None
        passages = on_cited_page(found.passages, previous) or (list(found.passages) if after_status else [])
        if not passages:
            return None
        return replace(
            found,
            passages=tuple(passages),
            query=question,
            reasoning=f"a follow-up of the previous answer; {found.reasoning}",
        )

    async def _unless_weak(self, decision: Decision, turn: TurnContext) -> Decision:
        """A weak endpoint match (little evidence, no word of the message in the
        endpoint's text) never opens a session: the knowledge base answers if it can, else
        the citizen is asked to confirm ("Do you mean school holidays?"). A yes to that
        is routed with the question it answers (classifier_svc/offers.py)."""
        weak = self._policy.weak_match
        if (
            decision.workflow is not Workflow.API_TOOL_CALLING
            or decision.reason is not Reason.NEW_MATCH
            or decision.evidence is None
            or len(decision.endpoints) != 1
        ):
            return decision
        chosen = decision.endpoints[0]
        # A short message names its value more than its topic ("soidukimaks", "A123 staatus"):
        # only a question of a few words that shares none with the endpoint is suspect.
        limit = weak.evidence if chosen.has_prototype else weak.description_evidence
        if (
            decision.evidence >= limit
            or chosen.matched_terms >= weak.min_words
            or chosen.query_terms < weak.min_question_words
        ):
            return decision
        why = f"weak match ({decision.reasoning})"
        if self._rag is not None and (known := await self._rag.decide(turn)) is not None:
            return replace(known, reasoning=f"{why}; {known.reasoning}")
        endpoint = chosen.endpoint
        title = Offer(
            dict(getattr(endpoint, "answer_titles", {}) or {}), getattr(endpoint, "description", "")
        ).title(turn.language)
        return Decision(
            Workflow.CONTEXT,
            turn.language,
            Reason.NO_MATCH,
            decision.confidence,
            reasoning=f"{why}; asked to confirm {chosen.name}",
            reply=confirm(title or chosen.name, turn.language),
        )

    async def _acted_on(self, message: str) -> bool:
        """Whether an out-of-scope topic is only what an endpoint's action is about: a
        vote on the income tax is the votings endpoint's ("did the income tax amendment
        pass and how many voted against"), an income tax return is nobody's."""
        if not self._policy.api_tool_enabled:
            return False
        try:
            candidates = await self._api_tool.search.search(message, self._policy.search_limit)
        except Exception as exc:
            log.warning(
                "catalogue check of an out-of-scope topic failed (%s: %s)",
                type(exc).__name__,
                exc,
                exc_info=_is_bug(exc),
            )
            return False
        return self._api_tool.acts_on(message, candidates) is not None

    async def _uncovered_topic(self, message: str) -> str | None:
        if self._overview is None:
            return None
        overview = await read_overview(self._overview)
        if overview.empty:
            return None
        if self._covered is None or self._covered[0] is not overview:
            texts = [o.title("en") for o in overview.offers] + [o.description for o in overview.offers]
            self._covered = (overview, covered_topics(texts + overview.benign_texts()))
        return uncovered_topic(message, self._covered[1])

    async def answer_from_knowledge(self, query: str, lang: Lang, *, why: str) -> Decision:
        """RAG for `query`, or the out-of-domain reply when the knowledge base has nothing:
        the fallback for abandoned loops and classifier errors."""
        if self._rag is not None:
            decision = await self._rag.decide(TurnContext("", query, lang, lang))
            if decision is not None:
                return replace(decision, reasoning=f"{why}; {decision.reasoning}")
        return await self._out_of_domain(lang, f"{why}; no relevant knowledge")

    async def _out_of_domain(self, lang: Lang, why: str) -> Decision:
        """The localized "I can't help with that", naming what the catalogue offers."""
        reply = out_of_domain(await read_overview(self._overview), lang)
        return Decision(Workflow.OOD, lang, Reason.NO_MATCH, reasoning=why, reply=reply)

    async def _match_api_tool_turn(self, turn: TurnContext) -> Decision | None:
        # Russian typed in Latin letters is matched as the catalogue's Russian texts read:
        # in Cyrillic ("kanikuly u shkolnikov" shares no word with "каникулы").
        turn = in_cyrillic_when_russian(turn)
        return await self._api_tool.match(turn.message, turn.language, turn.history)

    async def _continue_session(
        self, session: ActiveSession, turn: TurnContext, dry_run: bool, owner_id: str
    ) -> Decision:
        message, requested = turn.message, turn.requested
        # Short replies ("jah", "2026-01-01") cannot be re-detected: keep the session's language.
        lang = requested or session.language or self._detector.detect(message)
        searched = True
        if self._policy.api_tool_enabled:
            target, searched = await self._switch_target(session, message)
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
        # A complete new question that no endpoint takes may be a service's or the
        # knowledge base's: it is checked, never swallowed as a reply.
        if searched and not answers_pending(message, session.pending):
            other = await self._other_layer(
                session, replace(turn, language=requested or self._detector.detect(message, fallback=lang))
            )
            if other is not None:
                if other.workflow is Workflow.SERVICE and not dry_run:
                    await self._sessions.drop_session(session.chat_id, owner_id)
                    self._telemetry.increment("intent_switches")
                return other
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.SESSION_RESUME,
            1.0,
            reasoning=f"active session for {', '.join(session.endpoint_names)}",
        )

    async def _other_layer(self, session: ActiveSession, turn: TurnContext) -> Decision | None:
        """A registered service the message clearly asks for (the session is replaced), or
        a knowledge question (answered; the session waits)."""
        try:
            for layer in self._layers:
                if layer.workflow is Workflow.SERVICE:
                    found = await layer.decide(turn)
                    if found is not None and found.endpoints[0].name not in session.endpoint_names:
                        return replace(
                            found,
                            reason=Reason.INTENT_SWITCH,
                            reasoning=f"switched from {', '.join(session.endpoint_names)}; {found.reasoning}",
                        )
            if knowledge_class(turn.message) is not None:
                return await self._knowledge_question(turn)
        except (InvalidArgument, PermissionDenied):
            raise
        except Exception as exc:
            log.warning(
                "switch check failed (%s: %s); the session goes on",
                type(exc).__name__,
                exc,
                exc_info=_is_bug(exc),
            )
        return None

    async def _switch_target(self, session: ActiveSession, message: str) -> tuple[Candidate | None, bool]:
        """The endpoint the message switches to, and whether the search worked; None as
        well when the search fails, so a conversation under way goes on while the indexer
        is away (the session and its endpoint are in Redis)."""
        try:
            return await self._api_tool.switch_target(session, message), True
        except (InvalidArgument, PermissionDenied):
            raise
        except Exception as exc:
            log.warning(
                "intent-switch search failed (%s: %s); the session goes on",
                type(exc).__name__,
                exc,
                exc_info=_is_bug(exc),
            )
            return None, False


def _citizens_words(history: Sequence[PriorMessage]) -> list[str]:
    """The citizen's earlier messages, newest first: the chat's language is theirs."""
    return [m.content for m in reversed(history) if m.role == "user"]


_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_DIGIT = re.compile(r"\d")


def in_cyrillic_when_russian(turn: TurnContext) -> TurnContext:
    """A Russian turn typed in Latin letters ("skolko let dejstvuet id karta") as the
    knowledge base reads it: in Cyrillic (its pages and the question cues are)."""
    if turn.language != "ru" or _CYRILLIC.search(turn.message):
        return turn
    return replace(turn, message=cyrillic_reading(turn.message))
