"""atc.loop.v1.LoopService over grpc.aio: converts, consults the response cache,
runs the turn, and on completion relays caller_svc's ExecuteCalls stream."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import UTC, tzinfo
from typing import Protocol

import grpc

from atc.caller.v1 import caller_pb2_grpc
from atc.common.v1 import turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from loop_svc import convert
from loop_svc.cache import ResponseCache
from loop_svc.cache_plan import CachedAnswer, CachePlanner, DecidedFollowUp, DirectCall, Seeded
from loop_svc.execution import Call, CallRelay, Turn
from loop_svc.follow_up import FollowUpKind
from loop_svc.loop import Abandoned, NeedsInput, PlannedCall
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.session import Session
from loop_svc.shapes import ShapeReader, fitted_to_window, for_session_reply, part_for, widened
from loop_svc.store_errors import STORE_UNAVAILABLE
from loop_svc.turns import TurnRunner, require_chat_id
from services.answer_shape import PLAIN, AnswerShape
from services.errors import Unavailable
from services.language import Lang, from_proto
from services.llm import counting_llm_calls
from services.runtime.channels import downstream_timeout
from services.runtime.owner import acting_owner
from services.runtime.relay import failure_events

log = logging.getLogger(__name__)


def _response(event: turn_event_pb2.TurnEvent) -> loop_pb2.RunTurnResponse:
    return loop_pb2.RunTurnResponse(event=event)


class QuestionWriter(Protocol):
    """Words a clarifying question (a model, loop_svc/questions_llm.py); `fallback` is the
    deterministic question, asked when the writer cannot do better."""

    async def write(self, missing: Sequence[ParamSpec], lang: Lang, request: str, fallback: str) -> str: ...


class LoopServicer(loop_pb2_grpc.LoopServiceServicer):
    def __init__(
        self,
        runner: TurnRunner,
        caller: caller_pb2_grpc.CallerServiceStub,
        *,
        downstream_timeout_seconds: float,
        planner: CachePlanner | None = None,
        cache: ResponseCache | None = None,
        shapes: ShapeReader | None = None,
        questions: QuestionWriter | None = None,
        zone: tzinfo = UTC,
    ) -> None:
        # The citizen's zone: the local days a request window covers.
        self._zone = zone
        self._shapes = shapes
        self._questions = questions
        self._runner = runner
        self._caller = caller
        self._downstream_timeout = downstream_timeout_seconds
        self._planner = planner
        self._cache = cache
        self._background: set[asyncio.Task[None]] = set()

    async def drain(self) -> None:
        """Waits for pending cache writes (at shutdown, before the channels close)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    def _relay(self, context: grpc.aio.ServicerContext) -> CallRelay:
        return CallRelay(
            self._caller,
            self._cache,
            self._runner,
            timeout=lambda: downstream_timeout(context, self._downstream_timeout),
            background=self._background,
        )

    async def RunTurn(
        self, request: loop_pb2.RunTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[loop_pb2.RunTurnResponse]:
        # Every model call the loop makes for the turn (the follow-up decision, extraction,
        # the question's shape, a clarifying question) is added to the End that leaves,
        # on top of what caller_svc reported for its own.
        with counting_llm_calls() as calls:
            async for event in self._run_turn(request, context):
                if event.HasField("end"):
                    event.end.llm_calls += calls.count
                yield _response(event)

    async def _run_turn(
        self, request: loop_pb2.RunTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[turn_event_pb2.TurnEvent]:
        turn = convert.turn_request(request)
        try:
            acting_owner(request.turn.owner_id, field="turn.owner_id")
            language = self._runner.language_for(turn)
            plan = None
            if self._planner is not None:
                async with self._runner.store_guard.guarded(turn.chat_id):
                    plan = await self._planner.plan(turn, language, decided_follow_up(request))
            if isinstance(plan, CachedAnswer | DirectCall):
                call = Call(plan.endpoint, plan.params, shape=plan.shape)
                query = turn.message.strip()
                remember = True
                if isinstance(plan, CachedAnswer):
                    call = Call(plan.endpoint, plan.params, cached_result_id=plan.result_id, shape=plan.shape)
                    remember = plan.remember
                else:
                    query = plan.original_query
                # A follow-up answered from the cache or called directly ends any half-filled session.
                async with self._runner.store_guard.guarded(turn.chat_id):
                    await self._runner.drop(turn.chat_id)
                relay = Turn(turn.chat_id, turn.owner_id, language, query, remember=remember)
                async for event in self._relay(context).run([call], relay):
                    yield event
                return
            if isinstance(plan, Seeded):
                turn = replace(turn, seeded=plan.params)
            step = await self._runner.run(turn)
        except Unavailable as error:
            if error.reason != STORE_UNAVAILABLE:
                raise
            # Redis is down: say so in the chat's language; the next turn works once it is back.
            for event in failure_events(
                error, turn.language or "en", workflow=convert.WORKFLOW, where="loop"
            ):
                yield event
            return
        result = step.result
        # The loop's model calls are counted by RunTurn (counting_llm_calls), not per step.
        if isinstance(result, NeedsInput):
            result = await self._worded(result, step.session, step.language, step.original_query)
            for event in convert.question_events(result, 0):
                yield event
        elif isinstance(result, Abandoned):
            for event in convert.abandoned_events(result, 0, step.original_query):
                yield event
        else:
            # A value moved into the service's range is said before the answer.
            for note in result.notes:
                for event in convert.token_events(note + "\n\n", turn_event_pb2.TOKEN_KIND_ANSWER):
                    yield event
            calls = []
            for c in result.calls:
                own = step.finished.parts.get(c.endpoint.name) if step.finished is not None else None
                part = own or self._part(step.original_query, c.endpoint, result.calls)
                shape = await self._shape_of(part, step.language)
                reply = turn.message.strip()
                if reply and reply != step.original_query.strip() and len(result.calls) == 1:
                    # The session's question, answered over turns ("the whole of November" →
                    # "ok then 23–29 nov, average"): the reply's own period and asks win.
                    shape = for_session_reply(shape, await self._shape_of(reply, step.language))
                params = widened(c.params, c.endpoint.params, shape)
                shape = fitted_to_window(shape, c.endpoint.params, params, self._zone)
                calls.append(Call(c.endpoint, params, shape=shape))
            relay = Turn(
                turn.chat_id,
                turn.owner_id,
                step.language,
                step.original_query,
                finished=step.finished,
            )
            async for event in self._relay(context).run(calls, relay):
                yield event

    async def _worded(
        self, result: NeedsInput, session: Session | None, language: Lang, request: str
    ) -> NeedsInput:
        """With a model, the clarifying question in the model's words (the template when
        it fails or its question is refused); the continuation prompt stays as it is."""
        if self._questions is None or result.continuation or session is None:
            return result
        missing = [p for p in session.params if p.name in result.missing]
        question = await self._questions.write(missing, language, request, result.question)
        return replace(result, question=question)

    @staticmethod
    def _part(question: str, endpoint: EndpointSpec, calls: Sequence[PlannedCall]) -> str:
        """For a two-part question, the part each endpoint answers (its own shape)."""
        if len({c.endpoint.name for c in calls}) < 2:
            return question  # one endpoint (several calls for listed values share the question)
        payload = endpoint.payload
        text = " ".join(
            [
                endpoint.name.replace("_", " "),
                str(payload.get("description", "")),
                str(payload.get("enriched_context", "")),
                *map(str, payload.get("examples", []) or []),
            ]
        )
        return part_for(question, text)

    async def _shape_of(self, question: str, language: Lang) -> AnswerShape:
        """The shape of the question the calls answer; a broken reader never fails a turn.
        Off the event loop: with a model, reading it is a request to the model."""
        if self._shapes is None or not question:
            return PLAIN
        try:
            return await asyncio.to_thread(self._shapes.read, question, language)
        except Exception:  # the plain answer is still an answer
            log.exception("reading the shape of %r failed", question[:80])
            return PLAIN

    async def GetSession(
        self, request: loop_pb2.GetSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.GetSessionResponse:
        session = await self._runner.get(request.chat_id, acting_owner(request.owner_id))
        return loop_pb2.GetSessionResponse(session=convert.session_to_proto(session))

    async def DeleteSession(
        self, request: loop_pb2.DeleteSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.DeleteSessionResponse:
        deleted = await self._runner.delete(request.chat_id, acting_owner(request.owner_id))
        if deleted and self._cache is not None:
            # An intent switch: the last call's follow-up context goes with the session.
            async with self._runner.store_guard.guarded(request.chat_id):
                await self._cache.invalidate_l2(request.chat_id)
        return loop_pb2.DeleteSessionResponse(deleted=deleted)

    async def DetectFollowUp(
        self, request: loop_pb2.DetectFollowUpRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.DetectFollowUpResponse:
        require_chat_id(request.chat_id)
        return await self._follow_up(request.chat_id, request.owner_id, request.message, request.language)

    async def ChatState(
        self, request: loop_pb2.ChatStateRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.ChatStateResponse:
        session = await self._runner.find(request.chat_id, acting_owner(request.owner_id))
        if session is not None:
            return loop_pb2.ChatStateResponse(session=convert.session_to_proto(session))
        if not request.message.strip():
            return loop_pb2.ChatStateResponse()
        follow_up = await self._follow_up(
            request.chat_id, request.owner_id, request.message, request.language
        )
        return loop_pb2.ChatStateResponse(follow_up=follow_up)

    async def _follow_up(
        self, chat_id: str, owner_id: str, message: str, lang: int
    ) -> loop_pb2.DetectFollowUpResponse:
        """How `message` relates to the chat's last API call; fails open (a new intent)."""
        if self._planner is None or not message.strip():
            return loop_pb2.DetectFollowUpResponse(kind=loop_pb2.FOLLOW_UP_KIND_NEW_INTENT)
        language = from_proto(lang) or "en"
        with counting_llm_calls() as calls:
            try:
                async with self._runner.store_guard.guarded(chat_id):
                    follow = await self._planner.follow_up(chat_id, owner_id, message, language)
            except Unavailable:
                # Fail open: without the cache the message is routed as a new question.
                return loop_pb2.DetectFollowUpResponse(
                    kind=loop_pb2.FOLLOW_UP_KIND_NEW_INTENT, llm_calls=calls.count
                )
        response = loop_pb2.DetectFollowUpResponse(kind=_FOLLOW_UP_KINDS[follow.kind], llm_calls=calls.count)
        if follow.context is not None and follow.kind is not FollowUpKind.NEW_INTENT:
            response.endpoint.CopyFrom(convert.endpoint_to_proto(follow.context.endpoint))
            response.updated_params.update(follow.updated_params)
        return response


def decided_follow_up(request: loop_pb2.RunTurnRequest) -> DecidedFollowUp | None:
    """The follow-up decision the classifier hands back with the turn (made by
    DetectFollowUp for this message), or None when none was made."""
    if not request.HasField("follow_up") or request.follow_up.kind == loop_pb2.FOLLOW_UP_KIND_UNSPECIFIED:
        return None
    decided = request.follow_up
    kind = next((k for k, v in _FOLLOW_UP_KINDS.items() if v == decided.kind), FollowUpKind.NEW_INTENT)
    return DecidedFollowUp(kind, decided.endpoint.name, dict(decided.updated_params))


_FOLLOW_UP_KINDS = {
    FollowUpKind.NEW_INTENT: loop_pb2.FOLLOW_UP_KIND_NEW_INTENT,
    FollowUpKind.RESPONSE_QUESTION: loop_pb2.FOLLOW_UP_KIND_RESPONSE_QUESTION,
    FollowUpKind.PARAM_UPDATE: loop_pb2.FOLLOW_UP_KIND_PARAM_UPDATE,
}
