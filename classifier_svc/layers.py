"""The router's layers (seed TOOL_CLASSIFIER.md): each decides whether a message is its
own and returns a Decision, or None ("not mine") so the next layer runs.

    SERVICE → API_TOOL_CALLING → CONTEXT → RAG → OOD (the router's final answer)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from classifier_svc.candidates import Decision, PriorMessage, Reason, Workflow
from classifier_svc.conversation import classify_history_question, recap
from classifier_svc.ports import EndpointSearch, KnowledgeSearch
from classifier_svc.rag_gate import RagGate
from classifier_svc.service_gate import Thresholds, assess
from classifier_svc.small_talk import classify_small_talk, small_talk_reply
from services.language import Lang


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
        knowledge_margin: float = 0.035,
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
        return Decision(
            Workflow.SERVICE,
            turn.language,
            Reason.NEW_MATCH,
            best.dense_cosine,
            endpoints=(best,),
            reasoning=(
                f"service {best.name} cosine={best.dense_cosine:.3f} "
                f"words={best.matched_terms}/{best.query_terms}"
            ),
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
        knowledge_margin: float = 0.035,
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
        passages = self._gate.relevant(await self._knowledge.search(turn.message, self._limit))
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


class ContextLayer:
    """Greetings and thanks (rules), and questions about the conversation itself,
    answered from the history: by an LLM when configured, else as a plain recap."""

    workflow = Workflow.CONTEXT

    def __init__(self, conversation: ConversationAnswerer | None = None) -> None:
        self._conversation = conversation

    async def decide(self, turn: TurnContext) -> Decision | None:
        if (talk := classify_small_talk(turn.message)) is not None:
            lang = turn.requested or talk.language
            return Decision(
                Workflow.CONTEXT,
                lang,
                Reason.NEW_MATCH,
                1.0,
                reasoning=f"small talk: {talk.kind.value}",
                reply=small_talk_reply(talk.kind, lang),
            )
        if (question := classify_history_question(turn.message)) is not None:
            lang = turn.requested or question.language
            reply = ""
            llm_calls = 0
            if self._conversation is not None and turn.history:
                reply = await asyncio.to_thread(self._conversation.answer, turn.message, turn.history, lang)
                llm_calls = 1
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

    async def decide(self, turn: TurnContext) -> Decision | None:
        passages = self._gate.relevant(await self._search.search(turn.message, self._limit))
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
