"""The channel's service config retries idempotent reads on UNAVAILABLE (a downstream that
restarts is reached again within the budget) and never retries a write."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from services.runtime.channels import IDEMPOTENT_READS, open_channel


class FlakyLoop(loop_pb2_grpc.LoopServiceServicer):
    """Answers UNAVAILABLE to the first `failures` calls of each method, then succeeds."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: dict[str, int] = {}

    async def _count(self, method: str, context: grpc.aio.ServicerContext) -> None:
        self.calls[method] = self.calls.get(method, 0) + 1
        if self.calls[method] <= self.failures:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "restarting")

    async def GetSession(
        self, request: loop_pb2.GetSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.GetSessionResponse:
        await self._count("GetSession", context)
        return loop_pb2.GetSessionResponse()

    async def DeleteSession(
        self, request: loop_pb2.DeleteSessionRequest, context: grpc.aio.ServicerContext
    ) -> loop_pb2.DeleteSessionResponse:
        await self._count("DeleteSession", context)
        return loop_pb2.DeleteSessionResponse()


@pytest.fixture()
async def flaky() -> AsyncIterator[tuple[FlakyLoop, str]]:
    servicer = FlakyLoop(failures=2)
    server = grpc.aio.server()
    loop_pb2_grpc.add_LoopServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


async def test_a_read_is_retried_until_the_downstream_answers(flaky: tuple[FlakyLoop, str]) -> None:
    servicer, target = flaky
    channel = open_channel(target)
    try:
        stub = loop_pb2_grpc.LoopServiceStub(channel)
        await stub.GetSession(loop_pb2.GetSessionRequest(chat_id="c"), timeout=30)
    finally:
        await channel.close()
    assert servicer.calls["GetSession"] == 3


async def test_a_write_fails_once_and_is_not_sent_again(flaky: tuple[FlakyLoop, str]) -> None:
    servicer, target = flaky
    channel = open_channel(target)
    try:
        stub = loop_pb2_grpc.LoopServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await stub.DeleteSession(loop_pb2.DeleteSessionRequest(chat_id="c"), timeout=30)
    finally:
        await channel.close()
    assert failed.value.code() is grpc.StatusCode.UNAVAILABLE
    assert servicer.calls["DeleteSession"] == 1


def test_every_named_read_is_a_method_of_its_service() -> None:
    from atc.caller.v1 import caller_pb2
    from atc.classifier.v1 import classifier_pb2
    from atc.indexer.v1 import indexer_pb2

    files = {
        "atc.indexer.v1.IndexerService": indexer_pb2,
        "atc.loop.v1.LoopService": loop_pb2,
        "atc.caller.v1.CallerService": caller_pb2,
        "atc.classifier.v1.ClassifierService": classifier_pb2,
    }
    for service, methods in IDEMPOTENT_READS.items():
        descriptor = files[service].DESCRIPTOR.services_by_name[service.rsplit(".", 1)[1]]
        known = {m.name for m in descriptor.methods}
        assert set(methods) <= known, f"{service}: {set(methods) - known}"
        assert not any(descriptor.methods_by_name[m].server_streaming for m in methods)
