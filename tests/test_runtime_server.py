"""The shared gRPC runtime: health flips to NOT_SERVING before a graceful stop,
a taken port is a clear error, and request ids travel across hops."""

from __future__ import annotations

import asyncio
import socket

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from services.runtime.channels import open_channel
from services.runtime.request_context import current_request_id
from services.runtime.server import GrpcServer, PortInUseError, ServiceMount


async def test_stop_reports_not_serving_to_watchers_first() -> None:
    server = GrpcServer([], port=0, grace_seconds=1)
    await server.start()
    async with grpc.aio.insecure_channel(server.address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""))
        first = await watch.read()
        assert first.status == health_pb2.HealthCheckResponse.SERVING
        stopping = asyncio.create_task(server.stop())
        second = await watch.read()
        assert second.status == health_pb2.HealthCheckResponse.NOT_SERVING
        await stopping


async def test_a_taken_port_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = GrpcServer([], port=port)
        with pytest.raises(PortInUseError, match=f"127.0.0.1:{port}"):
            await server.start()


class RequestIdEcho(loop_pb2_grpc.LoopServiceServicer):
    """Answers GetSession with the request id the server-side interceptor bound."""

    async def GetSession(self, request, context):  # type: ignore[no-untyped-def]
        return loop_pb2.GetSessionResponse(session=loop_pb2.Session(chat_id=current_request_id.get()))


async def test_request_id_travels_to_the_next_hop() -> None:
    servicer = RequestIdEcho()
    server = GrpcServer(
        [
            ServiceMount(
                "atc.loop.v1.LoopService",
                lambda s: loop_pb2_grpc.add_LoopServiceServicer_to_server(servicer, s),
            )
        ],
        port=0,
    )
    await server.start()
    channel = open_channel(server.address)
    try:
        stub = loop_pb2_grpc.LoopServiceStub(channel)
        token = current_request_id.set("req-42")
        try:
            echoed = await stub.GetSession(loop_pb2.GetSessionRequest(chat_id="c"))
        finally:
            current_request_id.reset(token)
        assert echoed.session.chat_id == "req-42"
        # Without an incoming id the server makes one up.
        fresh = await stub.GetSession(loop_pb2.GetSessionRequest(chat_id="c"))
        assert len(fresh.session.chat_id) == 32
    finally:
        await channel.close()
        await server.stop(0)


async def test_service_health_follows_its_readiness_probe() -> None:
    redis_up = [True]

    async def redis_answers() -> bool:
        if not redis_up[0]:
            raise ConnectionError("redis is down")
        return True

    mount = ServiceMount("atc.loop.v1.LoopService", lambda s: None)
    server = GrpcServer([mount], port=0, readiness=[redis_answers], readiness_interval_seconds=0.05)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            request = health_pb2.HealthCheckRequest(service="atc.loop.v1.LoopService")
            watch = health_pb2_grpc.HealthStub(channel).Watch(request)
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.SERVING
            redis_up[0] = False
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.NOT_SERVING
            overall = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert overall.status == health_pb2.HealthCheckResponse.SERVING  # the process lives
            redis_up[0] = True
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.SERVING
            watch.cancel()
    finally:
        await server.stop(0)
