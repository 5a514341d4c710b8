"""ClassifierService: thin gRPC layer over the router and the workflows it picks."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import replace

import grpc

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import chat_pb2, turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from classifier_svc.candidates import Decision, ExecutionMode, PriorMessage, Reason, Workflow
from classifier_svc.deadlines import turn_deadline
from classifier_svc.rag_answer import RagAnswer, RagResponder
from classifier_svc.rag_extractive import ExtractiveAnswerer
from classifier_svc.router import Router
from services import language
from services.errors import InvalidArgument, Unavailable
from services.language import Lang
from services.llm import counting_llm_calls, current_llm_calls
from services.message_bounds import MessageBounds
from services.runtime.channels import downstream_timeout
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE
from services.runtime.owner import acting_owner
from services.runtime.relay import BrokenStream, failure_events, relay_events
from services.tokens import split_lines

log = logging.getLogger(__name__)

_WORKFLOW = {
    Workflow.SERVICE: turn_event_pb2.WORKFLOW_SERVICE,
    Workflow.API_TOOL_CALLING: turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
    Workflow.CONTEXT: turn_event_pb2.WORKFLOW_CONTEXT,
    Workflow.RAG: turn_event_pb2.WORKFLOW_RAG,
    Workflow.OOD: turn_event_pb2.WORKFLOW_OOD,
}
_MODE = {
    ExecutionMode.SINGLE: classifier_pb2.EXECUTION_MODE_SINGLE,
    ExecutionMode.PARALLEL: classifier_pb2.EXECUTION_MODE_PARALLEL,
}
_REASON = {
    Reason.NEW_MATCH: classifier_pb2.DECISION_REASON_NEW_MATCH,
    Reason.SESSION_RESUME: classifier_pb2.DECISION_REASON_SESSION_RESUME,
    Reason.INTENT_SWITCH: classifier_pb2.DECISION_REASON_INTENT_SWITCH,
    Reason.NO_MATCH: classifier_pb2.DECISION_REASON_NO_MATCH,
}


@functools.cache
def _detector() -> language.LanguageDetector:
    return language.LanguageDetector()


# The one localized "temporarily unavailable" of every hop (services.runtime.citizen).
TRY_AGAIN = TEMPORARILY_UNAVAILABLE


# The edge's bounds, checked again for a client that skips it (services.message_bounds).
_BOUNDS = MessageBounds()


def validate_turn(turn: chat_pb2.ChatTurn) -> None:
    if not turn.chat_id.strip():
        raise InvalidArgument("chat_id must not be empty", field="turn.chat_id", reason="EMPTY_FIELD")
    if not turn.message.strip():
        raise InvalidArgument("message must not be empty", field="turn.message", reason="EMPTY_FIELD")
    _BOUNDS.check(
        turn.message,
        [m.content for m in turn.conversation_history],
        message_field="turn.message",
        history_field="turn.conversation_history",
    )


_ROLES = {chat_pb2.CHAT_ROLE_USER: "user", chat_pb2.CHAT_ROLE_ASSISTANT: "assistant"}


def prior_messages(turn: chat_pb2.ChatTurn) -> list[PriorMessage]:
    return [
        PriorMessage(role=_ROLES[m.role], content=m.content)  # type: ignore[arg-type]
        for m in turn.conversation_history
        if m.role in _ROLES
    ]


def _endpoint_queries(decision: Decision) -> tuple[str, ...]:
    """The part of the message each endpoint was matched from ("" for the whole message)."""
    if len(decision.endpoint_queries) == len(decision.endpoints):
        return decision.endpoint_queries
    return ("",) * len(decision.endpoints)


def to_classification(decision: Decision) -> classifier_pb2.Classification:
    return classifier_pb2.Classification(
        workflow=_WORKFLOW[decision.workflow],
        confidence=decision.confidence,
        execution_mode=_MODE[decision.mode],
        matched_endpoints=[
            classifier_pb2.MatchedEndpoint(
                endpoint=c.endpoint,
                dense_cosine=c.dense_cosine,
                hybrid_rank=c.hybrid_rank,
                score=c.prototype_cosine if c.has_prototype else c.description_cosine,
                query=query,
            )
            for c, query in zip(decision.endpoints, _endpoint_queries(decision), strict=True)
        ],
        reason=_REASON[decision.reason],
        reasoning=decision.reasoning,
        language=language.to_proto(decision.language),
        llm_validated=decision.llm_validated,
        llm_calls=decision.llm_calls,
    )


def _text_events(text: str) -> list[classifier_pb2.RouteTurnResponse]:
    return [
        classifier_pb2.RouteTurnResponse(
            event=turn_event_pb2.TurnEvent(
                token=turn_event_pb2.Token(text=piece, kind=turn_event_pb2.TOKEN_KIND_ANSWER)
            )
        )
        for piece in split_lines(text)
    ]


def _own_calls() -> int:
    """The model calls this turn made here so far (and the loop's follow-up decision)."""
    scope = current_llm_calls()
    return scope.count if scope is not None else 0


def _end(outcome: int, workflow: Workflow, llm_calls: int = 0) -> classifier_pb2.RouteTurnResponse:
    return classifier_pb2.RouteTurnResponse(
        event=turn_event_pb2.TurnEvent(
            end=turn_event_pb2.End(outcome=outcome, workflow=_WORKFLOW[workflow], llm_calls=llm_calls)
        )
    )


def _sources_event(answer: RagAnswer) -> classifier_pb2.RouteTurnResponse:
    return classifier_pb2.RouteTurnResponse(
        event=turn_event_pb2.TurnEvent(
            sources=turn_event_pb2.Sources(
                sources=[turn_event_pb2.Source(title=s.title, url=s.url) for s in answer.sources]
            )
        )
    )


def _progress(decision: Decision, stage: str = "classified") -> classifier_pb2.RouteTurnResponse:
    return classifier_pb2.RouteTurnResponse(
        event=turn_event_pb2.TurnEvent(
            progress=turn_event_pb2.Progress(
                stage=stage,
                detail=decision.reasoning,
                workflow=_WORKFLOW[decision.workflow],
                endpoint_names=[c.name for c in decision.endpoints],
                confidence=decision.confidence,
            )
        )
    )


def _relabel(event: turn_event_pb2.TurnEvent, workflow: Workflow) -> turn_event_pb2.TurnEvent:
    """A service runs through the loop and caller, which speak of API tool calling:
    its progress and end events carry the SERVICE workflow instead."""
    if workflow is Workflow.SERVICE:
        if event.HasField("progress") and event.progress.workflow:
            event.progress.workflow = _WORKFLOW[workflow]
        elif event.HasField("end"):
            event.end.workflow = _WORKFLOW[workflow]
    return event


class ClassifierServicer(classifier_pb2_grpc.ClassifierServiceServicer):
    def __init__(
        self,
        router: Router,
        loop: loop_pb2_grpc.LoopServiceStub,
        default_timeout: float,
        *,
        rag: RagResponder | None = None,
    ) -> None:
        self._router = router
        self._loop = loop
        self._default_timeout = default_timeout
        self._rag = rag or RagResponder(ExtractiveAnswerer())

    async def _decide(
        self, turn: chat_pb2.ChatTurn, context: grpc.aio.ServicerContext, *, dry_run: bool
    ) -> Decision:
        """Domain errors and failed lookups propagate: the server's interceptor turns
        them into statuses (another owner's chat stays PERMISSION_DENIED)."""
        validate_turn(turn)
        acting_owner(turn.owner_id, field="turn.owner_id")
        # Lookups made while deciding get what is left of the caller's deadline.
        with turn_deadline(context.time_remaining()):
            return await self._router.decide(
                turn.chat_id,
                turn.message,
                language.from_proto(turn.language),
                history=prior_messages(turn),
                dry_run=dry_run,
                owner_id=turn.owner_id,
            )

    async def Classify(
        self, request: classifier_pb2.ClassifyRequest, context: grpc.aio.ServicerContext
    ) -> classifier_pb2.ClassifyResponse:
        with counting_llm_calls() as calls:
            decision = await self._decide(request.turn, context, dry_run=True)
        decision = replace(decision, llm_calls=calls.count)
        return classifier_pb2.ClassifyResponse(classification=to_classification(decision))

    async def RouteTurn(
        self, request: classifier_pb2.RouteTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[classifier_pb2.RouteTurnResponse]:
        # Every model call of the turn here (routing, the guard, the loop's follow-up
        # decision, a RAG or conversation answer) is counted into End.llm_calls, on top of
        # what the loop reports for its own and the caller's.
        with counting_llm_calls():
            async for response in self._route_turn(request, context):
                yield response

    async def _route_turn(
        self, request: classifier_pb2.RouteTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[classifier_pb2.RouteTurnResponse]:
        turn = request.turn
        try:
            decision = await self._decide(turn, context, dry_run=False)
        except Unavailable as error:
            # Whether a chat is under way cannot be told (its session store is away): "try
            # again" in the chat's language, never a reply as if no chat were going on.
            lang = language.from_proto(turn.language) or _detector().detect(turn.message)
            for event in failure_events(error, lang, where="classifier", llm_calls=_own_calls()):
                yield classifier_pb2.RouteTurnResponse(event=event)
            return
        yield _progress(decision)
        if decision.workflow in (Workflow.API_TOOL_CALLING, Workflow.SERVICE):
            async for response in self._run_loop(turn, decision, context):
                yield response
        else:
            async for response in self._answer(decision):
                yield response

    async def _answer(
        self, decision: Decision, llm_calls_before: int = 0
    ) -> AsyncIterator[classifier_pb2.RouteTurnResponse]:
        """The classifier's own answers: RAG, CONTEXT and OOD (`llm_calls_before`: made
        earlier in the turn, e.g. by a loop that gave up)."""
        if decision.workflow is Workflow.RAG:
            answer: RagAnswer | None = None
            async for item in self._rag.stream(decision.query, decision.passages, decision.language):
                if isinstance(item, RagAnswer):
                    answer = item
                else:
                    for response in _text_events(item):
                        yield response
            if answer is None:
                raise RuntimeError("the RAG answer stream ended without its final answer")
            # After the text: a streamed answer's sources are known only once it is complete.
            yield _sources_event(answer)
            yield _end(turn_event_pb2.TURN_OUTCOME_ANSWERED, Workflow.RAG, llm_calls_before + _own_calls())
            return
        for response in _text_events(decision.reply):
            yield response
        answered = decision.workflow is Workflow.CONTEXT
        yield _end(
            turn_event_pb2.TURN_OUTCOME_ANSWERED if answered else turn_event_pb2.TURN_OUTCOME_OUT_OF_DOMAIN,
            decision.workflow,
            llm_calls_before + _own_calls(),
        )

    async def _fall_back(
        self, end: turn_event_pb2.End, language: Lang, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[classifier_pb2.RouteTurnResponse]:
        """The loop gave up (turn limit, a "no" to continuing) without answering:
        the knowledge base gets the session's original question (seed: → RAG)."""
        try:
            decision = await self._router.answer_from_knowledge(
                end.fallback_query, language, why="the loop gave up; answering its original question"
            )
        except grpc.aio.AioRpcError as exc:
            log.warning("RAG fallback failed: %s %s", exc.code().name, exc.details())
            for response in _text_events(TRY_AGAIN[language]):
                yield response
            yield _end(
                turn_event_pb2.TURN_OUTCOME_ABANDONED, Workflow.API_TOOL_CALLING, end.llm_calls + _own_calls()
            )
            return
        yield _progress(decision, stage="fallback")
        async for response in self._answer(decision, end.llm_calls):
            yield response

    async def _run_loop(
        self, turn: chat_pb2.ChatTurn, decision: Decision, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[classifier_pb2.RouteTurnResponse]:
        request = loop_pb2.RunTurnRequest(
            turn=turn,
            endpoints=[c.endpoint for c in decision.endpoints],
            endpoint_queries=list(decision.endpoint_queries),
            language=language.to_proto(decision.language),
            resume_session=decision.reason is Reason.SESSION_RESUME,
        )
        if decision.follow_up is not None:
            # The loop decided already whether this follows up its last call: not again.
            request.follow_up.CopyFrom(decision.follow_up)
        call = self._loop.RunTurn(request, timeout=downstream_timeout(context, self._default_timeout))
        # Once a token went out, the loop owns the turn: no second answer in one stream.
        streamed_token = False
        try:
            async with aclosing(relay_events(call, "loop_svc")) as events:
                async for event in events:
                    if (
                        event.HasField("end")
                        and event.end.outcome == turn_event_pb2.TURN_OUTCOME_ABANDONED
                        and event.end.fallback_query
                        and not streamed_token
                    ):
                        async for fallback in self._fall_back(event.end, decision.language, context):
                            yield fallback
                        return
                    streamed_token = streamed_token or event.HasField("token")
                    if event.HasField("end"):
                        # The loop counts its own calls and the caller's; ours come on top.
                        event.end.llm_calls += _own_calls()
                    yield classifier_pb2.RouteTurnResponse(event=_relabel(event, decision.workflow))
        except BrokenStream as broken:
            log.warning("loop turn failed: %s", broken.message)
            failed = failure_events(
                Unavailable(broken.message, reason="DOWNSTREAM_FAILED"),
                decision.language,
                workflow=_WORKFLOW[decision.workflow],
                where="classifier → loop",
                llm_calls=_own_calls(),
            )
            for event in failed:
                yield classifier_pb2.RouteTurnResponse(event=event)
