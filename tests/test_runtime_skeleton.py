"""The service skeleton on real servers: what a servicer lets out becomes a status with an
ErrorInfo (a downstream refusal passed on, any other downstream failure
DOWNSTREAM_FAILED), and a relayed stream stops at End and reports a broken one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass

import grpc
import pytest

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from services.errors import InvalidArgument, PermissionDenied, Unavailable
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE
from services.runtime.relay import BrokenStream, failure_events, relay_events
from services.runtime.server import GrpcServer, ServiceMount
from services.runtime.status import error_info_from_call


def token(text: str) -> turn_event_pb2.TurnEvent:
    return turn_event_pb2.TurnEvent(token=turn_event_pb2.Token(text=text))


END = turn_event_pb2.TurnEvent(end=turn_event_pb2.End(outcome=turn_event_pb2.TURN_OUTCOME_ANSWERED))


class Downstream(loop_pb2_grpc.LoopServiceServicer):
    """chat_id picks the behaviour: a refusal, an outage, a stream with or without End."""

    def __init__(self) -> None:
        # Set by a stream that ran to its end (after End it still has work, like the loop).
        self.finished: list[str] = []

    async def GetSession(self, request, context):  # type: ignore[no-untyped-def]
        if request.chat_id == "foreign":
            raise PermissionDenied("the chat belongs to another owner", reason="OWNED_BY_ANOTHER")
        raise Unavailable("sessions are down", reason="STORE_UNAVAILABLE")

    async def RunTurn(self, request, context):  # type: ignore[no-untyped-def]
        yield loop_pb2.RunTurnResponse(event=token("one "))
        if request.turn.chat_id == "ends":
            yield loop_pb2.RunTurnResponse(event=END)
            yield loop_pb2.RunTurnResponse(event=token("after the end"))
            # Work after End (the loop schedules its cache writes here): a relay that
            # cancelled the call at End would cut it off.
            await asyncio.sleep(0.2)
        self.finished.append(request.turn.chat_id)


class Upstream(classifier_pb2_grpc.ClassifierServiceServicer):
    """Lets out what it meets: a domain error of its own, or the downstream call's error."""

    def __init__(self, loop: loop_pb2_grpc.LoopServiceStub) -> None:
        self._loop = loop

    async def Classify(self, request, context):  # type: ignore[no-untyped-def]
        if not request.turn.message:
            raise InvalidArgument("message must not be empty", field="turn.message")
        await self._loop.GetSession(loop_pb2.GetSessionRequest(chat_id=request.turn.chat_id))
        return classifier_pb2.ClassifyResponse()


@dataclass
class Hops:
    classifier: classifier_pb2_grpc.ClassifierServiceStub
    loop: loop_pb2_grpc.LoopServiceStub
    downstream: Downstream


@pytest.fixture()
async def hops() -> AsyncIterator[Hops]:
    add_loop = loop_pb2_grpc.add_LoopServiceServicer_to_server
    downstream = Downstream()
    loop_server = GrpcServer([ServiceMount.of(loop_pb2, "LoopService", add_loop, downstream)])
    await loop_server.start()
    async with grpc.aio.insecure_channel(loop_server.address) as loop_channel:
        loop = loop_pb2_grpc.LoopServiceStub(loop_channel)
        add = classifier_pb2_grpc.add_ClassifierServiceServicer_to_server
        server = GrpcServer([ServiceMount.of(classifier_pb2, "ClassifierService", add, Upstream(loop))])
        await server.start()
        async with grpc.aio.insecure_channel(server.address) as channel:
            yield Hops(classifier_pb2_grpc.ClassifierServiceStub(channel), loop, downstream)
        await server.stop(0)
    await loop_server.stop(0)


async def classify(hops: Hops, chat_id: str, message: str = "hi") -> tuple[grpc.StatusCode, str, str]:
    call = hops.classifier.Classify(
        classifier_pb2.ClassifyRequest(turn={"chat_id": chat_id, "message": message})
    )
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await call
    info = await error_info_from_call(call)
    assert info is not None
    return failed.value.code(), info.reason, failed.value.details() or ""


async def test_a_domain_error_becomes_its_status(hops: Hops) -> None:
    code, reason, _ = await classify(hops, "c1", message="")
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")


async def test_a_downstream_refusal_is_passed_on(hops: Hops) -> None:
    code, reason, _ = await classify(hops, "foreign")
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "OWNED_BY_ANOTHER")


async def test_any_other_downstream_failure_is_downstream_failed(hops: Hops) -> None:
    code, reason, details = await classify(hops, "c1")
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "DOWNSTREAM_FAILED")
    # The downstream's own text stays in the log: it may name addresses and statuses.
    assert "sessions are down" not in details and "Traceback" not in details


async def relayed(hops: Hops, chat_id: str) -> list[turn_event_pb2.TurnEvent]:
    call = hops.loop.RunTurn(loop_pb2.RunTurnRequest(turn={"chat_id": chat_id}))
    async with aclosing(relay_events(call, "loop_svc")) as events:
        return [event async for event in events]


async def test_the_relay_stops_at_end_and_lets_the_other_hop_finish(hops: Hops) -> None:
    assert await relayed(hops, "ends") == [token("one "), END]
    # Read to its close, not cancelled at End: the other hop's work after End is done.
    assert hops.downstream.finished == ["ends"]


async def test_a_stream_without_end_is_broken(hops: Hops) -> None:
    with pytest.raises(BrokenStream, match="loop_svc ended its stream without an End event") as broken:
        await relayed(hops, "no-end")
    assert broken.value.rpc_error is None


async def test_a_failed_stream_is_broken_with_its_rpc_error() -> None:
    async with grpc.aio.insecure_channel("127.0.0.1:1") as nowhere:
        call = loop_pb2_grpc.LoopServiceStub(nowhere).RunTurn(loop_pb2.RunTurnRequest(), timeout=5)
        with pytest.raises(BrokenStream, match="loop_svc failed: UNAVAILABLE") as broken:
            async with aclosing(relay_events(call, "loop_svc")) as events:
                _ = [event async for event in events]
    assert broken.value.rpc_error is not None


def test_a_failed_turn_ends_with_text_error_and_end() -> None:
    events = failure_events(
        Unavailable("caller_svc failed: 127.0.0.1:1", reason="CALLER_UNAVAILABLE"),
        "en",
        workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
        llm_calls=2,
    )
    kinds = [e.WhichOneof("kind") for e in events]
    assert set(kinds[:-2]) == {"token"} and kinds[-2:] == ["error", "end"]
    assert "".join(e.token.text for e in events[:-2]) == TEMPORARILY_UNAVAILABLE["en"]
    assert events[-2].error.message == TEMPORARILY_UNAVAILABLE["en"]
    assert "caller_svc" not in str(events[-2].error) and "127.0.0.1" not in str(events[-2].error)
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED
    assert (events[-1].end.workflow, events[-1].end.llm_calls) == (
        turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
        2,
    )
