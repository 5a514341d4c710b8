"""atc.loop.v1.LoopService over grpc.aio: converts, runs the turn, and on
completion relays caller_svc's ExecuteCalls stream."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import grpc

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from loop_svc import convert, questions
from loop_svc.loop import Abandoned, Complete, NeedsInput, Step
from loop_svc.turns import TurnRunner
from services.errors import MeshError, NotFound, Unavailable
from services.language import to_proto
from services.runtime.channels import downstream_timeout
from services.runtime.owner import acting_owner, check_resource_owner
from services.runtime.status import abort_with, error_event

log = logging.getLogger(__name__)


def _response(event: turn_event_pb2.TurnEvent) -> loop_pb2.RunTurnResponse:
    return loop_pb2.RunTurnResponse(event=event)


class LoopServicer(loop_pb2_grpc.LoopServiceServicer):
    def __init__(
        self,
        runner: TurnRunner,
        caller: caller_pb2_grpc.CallerServiceStub,
        *,
        downstream_timeout_seconds: float,
    ) -> None:
        self._runner = runner
        self._caller = caller
        self._downstream_timeout = downstream_timeout_seconds

    async def RunTurn(
        self, request: loop_pb2.RunTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[loop_pb2.RunTurnResponse]:
        try:
            owner = acting_owner(request.turn.owner_id, field="turn.owner_id")
            if not request.resume_session:
                # A new turn replaces the chat's session: never another owner's.
                await self._check_session_owner(request.turn.chat_id, owner)
            step = await self._runner.run(convert.turn_request(request))
        except MeshError as error:
            await abort_with(context, error)
        result = step.result
        if isinstance(result, NeedsInput):
            for event in convert.question_events(result, step.llm_calls):
                yield _response(event)
        elif isinstance(result, Abandoned):
            for event in convert.abandoned_events(result, step.llm_calls):
                yield _response(event)
        else:
            async for event in self._execute(result, step, request, context):
                yield _response(event)

    async def _execute(
        self,
        result: Complete,
        step: Step,
        request: loop_pb2.RunTurnRequest,
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[turn_event_pb2.TurnEvent]:
        names = [c.endpoint.name for c in result.calls]
        yield turn_event_pb2.TurnEvent(
            progress=turn_event_pb2.Progress(
                stage="params_complete",
                detail=f"all parameters collected for {', '.join(names)}",
                workflow=convert.WORKFLOW,
                endpoint_names=names,
            )
        )
        execute = caller_pb2.ExecuteCallsRequest(
            calls=[
                caller_pb2.EndpointCall(endpoint=convert.endpoint_to_proto(c.endpoint), params=c.params)
                for c in result.calls
            ],
            user_query=step.original_query,
            language=to_proto(step.language),
            owner_id=request.turn.owner_id,
            chat_id=request.turn.chat_id,
        )
        call = self._caller.ExecuteCalls(
            execute, timeout=downstream_timeout(context, self._downstream_timeout)
        )
        ended = False
        failure: str | None = None
        try:
            async for response in call:
                event = response.event
                if event.HasField("end"):
                    event.end.llm_calls += step.llm_calls
                    ended = True
                yield event
                if ended:
                    break
        except grpc.aio.AioRpcError as error:
            failure = f"caller_svc failed: {error.code().name}: {error.details()}"
        finally:
            # A client that went away must not leave the APIs being called for nobody.
            call.cancel()
        if not ended and failure is None:
            failure = "caller_svc ended its stream without an End event"
        if failure is not None:
            log.warning("chat %s: %s", request.turn.chat_id, failure)
            for event in convert.token_events(
                questions.CALLER_UNAVAILABLE[step.language], turn_event_pb2.TOKEN_KIND_ANSWER
            ):
                yield event
            yield error_event(Unavailable(failure, reason="CALLER_UNAVAILABLE"))
            yield convert.end_event(turn_event_pb2.TURN_OUTCOME_FAILED, step.llm_calls)

    async def _check_session_owner(self, chat_id: str, owner: str) -> None:
        """PermissionDenied when the chat has a session bound to another owner."""
        if not chat_id.strip():
            return  # the request's own validation names the empty field
        try:
            existing = await self._runner.get(chat_id)
        except NotFound:
            return
        check_resource_owner(existing.owner_id, owner, "the chat's session")

    async def GetSession(
        self, request: loop_pb2.GetSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.GetSessionResponse:
        try:
            owner = acting_owner(request.owner_id)
            session = await self._runner.get(request.chat_id)
            check_resource_owner(session.owner_id, owner, "the chat's session")
        except MeshError as error:
            await abort_with(context, error)
        return loop_pb2.GetSessionResponse(session=convert.session_to_proto(session))

    async def DeleteSession(
        self, request: loop_pb2.DeleteSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.DeleteSessionResponse:
        try:
            await self._check_session_owner(request.chat_id, acting_owner(request.owner_id))
            deleted = await self._runner.delete(request.chat_id)
        except MeshError as error:
            await abort_with(context, error)
        return loop_pb2.DeleteSessionResponse(deleted=deleted)
