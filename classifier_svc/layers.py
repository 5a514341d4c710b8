"""The router's layers (seed TOOL_CLASSIFIER.md): each decides whether a message is its
own and returns a Decision, or None ("not mine") so the next layer runs.

    GUARD → CONTEXT → SERVICE → API_TOOL_CALLING → RAG → OOD (the router's final answer)

GUARD refuses harmful requests and attempts to steer the assistant before anything is
searched; CONTEXT (small talk and questions about the chat, whole messages only) comes
before the catalogue, since "thanks, that was helpful!" is nobody's API request.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from classifier_svc import messages
from classifier_svc.calibration import ServiceGateThresholds
from classifier_svc.candidates import Candidate, Decision, ExecutionMode, PriorMessage, Reason, Workflow
from classifier_svc.catalogue_overview import CatalogueOverview, Overview
from classifier_svc.conversation import classify_history_question, recap
from classifier_svc.guard import Guard, refusal, rule_verdict
from classifier_svc.layer_choice import (
    example_exact_shapes,
    example_is_address,
    example_shapes,
    has_address,
    identifier_shapes,
    spaced_shapes,
)
from classifier_svc.multi_intent import split_intents
from classifier_svc.offers import with_offer
from classifier_svc.ports import EndpointSearch, KnowledgeSearch
from classifier_svc.rag_aspects import is_question_word
from classifier_svc.rag_gate import RagGate
from classifier_svc.service_gate import Thresholds, assess
from classifier_svc.small_talk import SmallTalkKind, classify_small_talk
from services.language import Lang, cyrillic_reading

log = logging.getLogger(__name__)

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")

# The calibration profile's default (the router passes the configured one).
DEFAULT_KNOWLEDGE_MARGIN = ServiceGateThresholds().knowledge_margin


@dataclass(frozen=True)
class TurnContext:
    chat_id: str
    message: str
    # The language the GUI asked for, if any, and the one the turn is answered in.
    requested: Lang | None
    language: Lang
    history: Sequence[PriorMessage] = ()


class Layer(Protocol):
    workflow: Workflow

    async def decide(self, turn: TurnContext) -> Decision | None:
        """A decision when the message is this layer's, None to let the next layer try."""
        ...


# Verbs that make a request of a clause without a question word ("find the address Viru 4",
# "leia aadress", "найди адрес").
_REQUEST_VERBS = frozenset(
    """
    find show list give tell check calculate compute search look get
    leia otsi näita naita anna ütle utle kontrolli arvuta vaata
    найди найти покажи показать дай скажи проверь посчитай рассчитай узнай
    """.split()
)


def asks_anything(part: str) -> bool:
    """A clause that asks or requests something of its own: a question word or mark, a
    request verb, or a number. "mudel see on" (of "mis mark ja mudel see on") and "Hi! I'm
    new in Estonia" ask nothing: they belong to the request beside them."""
    if "?" in part or any(c.isdigit() for c in part):
        return True
    words = re.findall(r"[^\W\d_]+", part.lower())
    return any(w in _REQUEST_VERBS or is_question_word(w) for w in words)


def carries_value(text: str) -> bool:
    """An identifier, one typed in two words, or an address."""
    return bool(identifier_shapes(text) or spaced_shapes(text) or has_address(text))


def _words_single_out(chosen: Candidate, candidates: Sequence[Candidate]) -> bool:
    """Whether `chosen` holds more of the message's words than every other candidate."""
    return all(c.matched_terms < chosen.matched_terms for c in candidates if c.name != chosen.name)


class IdentifierLayer:
    """A message that carries a value shaped like one parameter's example ("A7777777
    staatus", "mis on 555KLM maks" — the service's "e.g. A1234567", the endpoint's "e.g.,
    123ABC") asks for what takes that value, when that endpoint or service is among the
    message's close candidates and no other close one takes the same shape. Shapes come
    from the catalogue's own parameter descriptions."""

    def __init__(
        self,
        searches: Sequence[tuple[Workflow, EndpointSearch]],
        limit: int,
        *,
        top: int = 5,
        accepted_endpoint: Callable[[Sequence[Candidate]], Candidate | None] | None = None,
    ) -> None:
        """`accepted_endpoint` reads an endpoint search's candidates on the endpoints' own
        scale (the API tool layer's gate): the endpoint it accepts, or None."""
        self._searches = list(searches)
        self._limit = limit
        self._top = top
        self._accepted_endpoint = accepted_endpoint
        self.workflow = Workflow.API_TOOL_CALLING

    async def decide(self, turn: TurnContext) -> Decision | None:
        shapes = identifier_shapes(turn.message)
        # "555 klm", "888 EVA": a value typed in two words, taken only where both words
        # together have exactly the shape of a parameter's example.
        spaced = spaced_shapes(turn.message)
        # "linnu tee 1 viljandi – mis maakond?": an address is a value as well, of the
        # parameter whose example is one.
        addressed = has_address(turn.message)
        if not shapes and not spaced and not addressed:
            return None
        fitting: list[tuple[Workflow, Candidate]] = []
        # The closest candidate whose identifiers have another shape than the message's
        # value: "tax for plate ABC123" is a plate typed the wrong way round, not an
        # application number because it has letters then digits.
        other_shaped: Candidate | None = None
        for workflow, search in self._searches:
            candidates = await search.search(turn.message, self._limit)
            ranked = sorted(candidates, key=lambda c: c.dense_cosine, reverse=True)[: self._top]
            for candidate in ranked:
                params = getattr(candidate.endpoint, "params", ()) or ()
                descriptions = [getattr(p, "description", "") for p in params]
                own = example_shapes(descriptions)
                if (
                    shapes & own
                    or spaced & example_exact_shapes(descriptions)
                    or (addressed and example_is_address(descriptions))
                ):
                    fitting.append((workflow, candidate))
                elif own and (other_shaped is None or candidate.dense_cosine > other_shaped.dense_cosine):
                    other_shaped = candidate
        names = {c.name for _, c in fitting}
        if len(names) != 1:
            return None
        workflow, chosen = fitting[0]
        if (
            other_shaped is not None
            and other_shaped.dense_cosine > chosen.dense_cosine
            and other_shaped.matched_terms > chosen.matched_terms
        ):
            return None  # closer in meaning and in words: routing picks it, its loop explains the form
        parts = split_intents(turn.message, 2)
        # A service's number beside an endpoint's request ("status of KT5500913 and when
        # does the Christmas break start") is two requests: the service runs on its part,
        # the endpoint on the other, side by side.
        if workflow is Workflow.SERVICE and (both := await self._beside_an_endpoint(turn, parts, chosen)):
            return both
        # Two requests in one message ("find Viru 4 and the tax for 123ABC") are the
        # multi-intent split's, not one value's; a question and its number ("is my card
        # ready? number A1234567") are one request.
        if await self._another_request(parts, workflow, chosen.name):
            return None
        return Decision(
            workflow,
            turn.language,
            Reason.NEW_MATCH,
            chosen.dense_cosine,
            endpoints=(chosen,),
            reasoning=f"identifier shaped like {chosen.name}'s example (cosine={chosen.dense_cosine:.3f})",
        )

    async def _beside_an_endpoint(
        self, turn: TurnContext, parts: Sequence[str], service: Candidate
    ) -> Decision | None:
        """A decision for the service and an endpoint, when exactly one part carries the
        service's value and the other is a request an endpoint accepts on its own (on the
        endpoints' gate: the service's own search puts the service first for anything)
        and that shares no word with the service ("is my passport ready? the number is
        A1234567" is one request split at its question mark)."""
        searches = dict(self._searches)
        endpoints, services = searches.get(Workflow.API_TOOL_CALLING), searches.get(Workflow.SERVICE)
        if endpoints is None or services is None or self._accepted_endpoint is None or len(parts) != 2:
            return None
        valued = [part for part in parts if carries_value(part)]
        if len(valued) != 1:
            return None
        other = parts[1] if valued[0] is parts[0] else parts[0]
        endpoint = self._accepted_endpoint(await endpoints.search(other, self._limit))
        if endpoint is None:
            return None
        # A part in the service's own words is the service's question, whatever else it
        # resembles ("kas mu ID-kaart on valmis" shares "ID-kaart" and "valmis" with it).
        for found in await services.search(other, self._limit):
            if found.name == service.name and found.matched_terms > 0:
                return None
        return Decision(
            Workflow.API_TOOL_CALLING,
            turn.language,
            Reason.NEW_MATCH,
            min(service.dense_cosine, endpoint.dense_cosine),
            ExecutionMode.PARALLEL,
            (service, endpoint),
            endpoint_queries=(valued[0], other),
            reasoning=f"multi-intent: {service.name} (its identifier), {endpoint.name}",
        )

    async def _another_request(self, parts: Sequence[str], workflow: Workflow, owner: str) -> bool:
        """Whether a part of a split message without a value asks for another endpoint (or
        service) than the value's owner. Only the owner's search: the cosines of endpoints
        and services are not on one scale (an endpoint outscores the ID-card service on
        "is my ID card ready"). Beside an endpoint's value, the part is another request
        only when the endpoints' gate accepts another endpoint for it on its own, sharing
        a word with it ("find Viru 4"): what is asked of the value ("and when was it first
        registered", "распиши по частям", "palju lõpuks maksta tuleb") is nearest some
        endpoint too, by meaning alone, and is still the value's question."""
        search = dict(self._searches)[workflow]
        for part in parts:
            if carries_value(part):
                continue
            # A clause that asks nothing of its own ("mudel see on" of "mis mark ja mudel
            # see on", "Hi! I'm new in Estonia") is another request only when that
            # endpoint's words single it out: more than one of them ("läti riigipühad
            # detsembris"), or one that no other candidate's texts hold ("leedu pühad
            # mais": "pühad" is the holidays' alone; "Estonia" is every endpoint's).
            asks = asks_anything(part)
            candidates = await search.search(part, self._limit)
            if workflow is Workflow.API_TOOL_CALLING and self._accepted_endpoint is not None:
                accepted = self._accepted_endpoint(candidates)
                if (
                    accepted is not None
                    and accepted.name != owner
                    and accepted.matched_terms > 0
                    and (asks or accepted.matched_terms > 1 or _words_single_out(accepted, candidates))
                ):
                    return True
                continue
            best = max(candidates, key=lambda c: c.dense_cosine, default=None)
            if best is not None and best.name != owner and asks:
                return True
        return False


class ServiceLayer:
    """Registered services (Bürokratt-style), matched with the same two-signal gate as
    endpoints but its own thresholds. A service is a narrow thing ("the status of my ID
    card application") that shares its topic words with knowledge-base questions ("How
    do I renew my ID card?"), so an eligible service must also be about as close to the
    question as the best knowledge passage (within `knowledge_margin` of its cosine):
    the seed's score gap, with the knowledge base as the runner-up."""

    workflow = Workflow.SERVICE

    def __init__(
        self,
        search: EndpointSearch,
        thresholds: Thresholds,
        limit: int,
        *,
        knowledge: KnowledgeSearch | None = None,
        knowledge_margin: float = DEFAULT_KNOWLEDGE_MARGIN,
    ) -> None:
        self._search = search
        self._thresholds = thresholds
        self._limit = limit
        self._knowledge = knowledge
        self._margin = knowledge_margin

    async def decide(self, turn: TurnContext) -> Decision | None:
        match = assess(await self._search.search(turn.message, self._limit), self._thresholds)
        best = match.best
        if best is None:
            return None
        if self._knowledge is not None:
            passages = await self._knowledge.search(turn.message, self._limit)
            rival = max((p.dense_cosine for p in passages), default=0.0)
            if best.dense_cosine < rival - self._margin:
                return None
        return _service_decision(best, turn)

    async def decide_status(self, turn: TurnContext) -> Decision | None:
        """A question about the state of the citizen's own application (layer_choice.
        status_question): the closest service that shares a word with it, without the
        knowledge base as the runner-up — the procedure pages share every topic word with
        it ("passport", "ID card") and would answer "is my passport ready" with how long
        it takes. The service then asks for the number when none is given."""
        candidates = await self._search.search(turn.message, self._limit)
        best = max(candidates, key=lambda c: c.dense_cosine, default=None)
        if best is None or best.matched_terms == 0:
            return None
        return replace(_service_decision(best, turn), reasoning=f"a status question; {_explain(best)}")


def _explain(best: Candidate) -> str:
    return f"service {best.name} cosine={best.dense_cosine:.3f} words={best.matched_terms}/{best.query_terms}"


def _service_decision(best: Candidate, turn: TurnContext) -> Decision:
    return Decision(
        Workflow.SERVICE,
        turn.language,
        Reason.NEW_MATCH,
        best.dense_cosine,
        endpoints=(best,),
        reasoning=_explain(best),
    )


class ApiToolLayer:
    """A thin adapter over the router's endpoint matcher, plus one rule shared with the
    SERVICE layer: a single endpoint chosen for a question the knowledge base answers
    clearly better is not this layer's ("Kuidas registreerida oma elukoht?" is about
    registering a residence, not an address search). Endpoint descriptions and knowledge
    passages are both embedded on the passage side, so their cosines compare; the
    endpoint yields when the best passage the RAG gate accepts is more than
    `knowledge_margin` closer and shares more of the question's words."""

    workflow = Workflow.API_TOOL_CALLING

    def __init__(
        self,
        match: Callable[[TurnContext], Awaitable[Decision | None]],
        *,
        knowledge: KnowledgeSearch | None = None,
        gate: RagGate | None = None,
        limit: int = 8,
        knowledge_margin: float = DEFAULT_KNOWLEDGE_MARGIN,
    ) -> None:
        self._match = match
        self._knowledge = knowledge
        self._gate = gate
        self._limit = limit
        self._margin = knowledge_margin

    async def decide(self, turn: TurnContext) -> Decision | None:
        decision = await self._match(turn)
        if decision is None or self._knowledge is None or self._gate is None:
            return decision
        if decision.reason is not Reason.NEW_MATCH or len(decision.endpoints) != 1:
            return decision
        chosen = decision.endpoints[0]
        if not chosen.description_cosine:
            return decision
        passages = self._gate.relevant(
            await self._knowledge.search(turn.message, self._limit), by_topic=False
        )
        if not passages:
            return decision
        best = passages[0]
        # Both signals must favour the knowledge base: a clearly closer passage that also
        # shares more of the question's words. A holidays question matches the holidays
        # endpoint's words as well as the knowledge article's, and stays an API question.
        closer = chosen.description_cosine < best.dense_cosine - self._margin
        wordier = best.matched_terms > chosen.matched_terms
        return None if closer and wordier else decision


class ConversationAnswerer(Protocol):
    """An LLM answer about the conversation (blocking; run in a worker thread)."""

    def answer(self, question: str, history: Sequence[PriorMessage], lang: Lang) -> str: ...


async def read_overview(overview: CatalogueOverview | None) -> Overview:
    """The catalogue's overview, or an empty one when it cannot be read now (the reply
    then says less, but is still given)."""
    if overview is None:
        return Overview()
    try:
        return await overview.overview()
    except Exception as exc:
        log.warning("catalogue overview unavailable (%s: %s)", type(exc).__name__, exc)
        return Overview()


def small_talk_reply(kind: SmallTalkKind, lang: Lang, overview: Overview, name: str = "") -> str:
    if kind is SmallTalkKind.INTRODUCTION:
        # A name written as one ("Marko"); "hi, I am unemployed" is greeted without it.
        return messages.INTRODUCTION[lang].format(name=f", {name}" if name[:1].isupper() else "")
    if kind is SmallTalkKind.GREETING:
        return messages.GREETING[lang]
    if kind is SmallTalkKind.THANKS:
        return messages.THANKS[lang]
    if kind is SmallTalkKind.GOODBYE:
        return messages.GOODBYE[lang]
    if kind is SmallTalkKind.HOW_ARE_YOU:
        return messages.HOW_ARE_YOU[lang]
    if kind is SmallTalkKind.LANGUAGES:
        return messages.LANGUAGES[lang]
    if kind is SmallTalkKind.SPEAKS_LANGUAGE:
        return f"{messages.YES[lang]} {messages.LANGUAGES[lang]}"
    if kind is SmallTalkKind.IDENTITY:
        return f"{messages.IDENTITY[lang]} {messages.capabilities(overview, lang)}"
    return messages.capabilities(overview, lang)


class GuardLayer:
    """First in the chain: a harmful request or an attempt to steer the assistant gets a
    short refusal in the citizen's language, and nothing else runs."""

    workflow = Workflow.OOD

    def __init__(self, guard: Guard) -> None:
        self._guard = guard

    async def decide(self, turn: TurnContext) -> Decision | None:
        verdict, llm_calls = await self._guard.check(turn.message)
        if verdict is None and turn.language == "ru" and not _CYRILLIC.search(turn.message):
            # Russian typed in Latin letters ("gde sdelat poddelnuyu id kartu") is read by
            # the rules as it is meant: in Cyrillic.
            verdict = rule_verdict(f"{turn.message}\n{cyrillic_reading(turn.message)}")
        if verdict is None:
            return None
        return Decision(
            Workflow.OOD,
            turn.language,
            Reason.NO_MATCH,
            verdict.score,
            reasoning=f"guard: {verdict.kind.value} ({verdict.category}, {verdict.how})",
            reply=refusal(verdict, turn.language),
            llm_calls=llm_calls,
        )


class ContextLayer:
    """Greetings, thanks, "what can you do?" (rules; the answer lists what the catalogue
    offers), and questions about the conversation itself, answered from the history: by
    an LLM when configured, else as a plain recap."""

    workflow = Workflow.CONTEXT

    def __init__(
        self, conversation: ConversationAnswerer | None = None, overview: CatalogueOverview | None = None
    ) -> None:
        self._conversation = conversation
        self._overview = overview

    async def decide(self, turn: TurnContext) -> Decision | None:
        talk = classify_small_talk(turn.message)
        # "That would be great, thanks" after "Do you want to reserve a table?" accepts the
        # offer: the catalogue answers it, not small talk. A goodbye accepts nothing ("ok
        # bye" after "How can I help you today?").
        if (
            talk is not None
            and talk.kind is SmallTalkKind.THANKS
            and with_offer(turn.message, turn.history) is not None
        ):
            talk = None
        if talk is not None:
            lang = turn.requested or talk.language
            return Decision(
                Workflow.CONTEXT,
                lang,
                Reason.NEW_MATCH,
                1.0,
                reasoning=f"small talk: {talk.kind.value}",
                reply=small_talk_reply(talk.kind, lang, await read_overview(self._overview), talk.name),
            )
        if (question := classify_history_question(turn.message)) is not None:
            lang = turn.requested or question.language
            reply = ""
            llm_calls = 0
            if self._conversation is not None and turn.history:
                llm_calls = 1
                try:
                    answer = self._conversation.answer
                    reply = await asyncio.to_thread(answer, turn.message, turn.history, lang)
                except Exception:  # the model is optional: the recap answers instead
                    log.warning("conversation answer by the model failed; a recap instead", exc_info=True)
            return Decision(
                Workflow.CONTEXT,
                lang,
                Reason.NEW_MATCH,
                1.0,
                reasoning=f"about the conversation: {question.kind.value}{' (LLM)' if reply else ''}",
                reply=reply or recap(question, turn.history, lang),
                llm_calls=llm_calls,
            )
        return None


class RagLayer:
    workflow = Workflow.RAG

    def __init__(self, search: KnowledgeSearch, gate: RagGate, limit: int) -> None:
        self._search = search
        self._gate = gate
        self._limit = limit

    async def decide(self, turn: TurnContext, *, by_topic: bool = True) -> Decision | None:
        """`by_topic` off: the usual gate only (RagGate.relevant), for a rule that takes a
        question from the layers that would look it up."""
        passages = self._gate.relevant(
            await self._search.search(turn.message, self._limit), by_topic=by_topic
        )
        if not passages:
            return None
        best = passages[0]
        return Decision(
            Workflow.RAG,
            turn.language,
            Reason.NEW_MATCH,
            best.dense_cosine,
            reasoning=(
                f"knowledge: {len(passages)} passage(s), best {best.document_id} "
                f"cosine={best.dense_cosine:.3f} words={best.matched_terms}/{best.query_terms}"
            ),
            passages=tuple(passages),
            query=turn.message,
        )
