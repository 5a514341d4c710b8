"""The shared runtime's telemetry and backpressure on real gRPC servers: one trace across
hops, RED metrics with real status codes, cancelled and timed-out RPCs logged as such,
a fast RESOURCE_EXHAUSTED past the concurrency limit, and a Prometheus port."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from services.logging_setup import JsonFormatter
from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.channels import open_channel
from services.runtime.request_context import current_request_id
from services.runtime.server import GrpcServer, ServiceMount
from services.runtime.telemetry import Telemetry
from tests.support import metric_reaching, metric_value

SERVICE = "test.Relay"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def _identity(b: bytes) -> bytes:
    return b


class Relay:
    """A service in two roles: `Forward` calls the next hop's `Echo`; `Hold` streams until
    cancelled; `Missing` aborts with NOT_FOUND."""

    def __init__(self, next_hop: str | None = None) -> None:
        self.next_hop = next_hop
        self.holding = asyncio.Event()

    async def echo(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request + current_request_id.get().encode()

    async def forward(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        assert self.next_hop is not None
        async with open_channel(self.next_hop) as channel:
            echo = channel.unary_unary(f"/{SERVICE}/Echo", _identity, _identity)
            return bytes(await echo(request, timeout=10))

    async def missing(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(grpc.StatusCode.NOT_FOUND, "nothing here")
        return b""

    async def hold(self, request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        yield b"first"
        self.holding.set()
        await asyncio.Event().wait()
        yield b"never"

    def mount(self) -> ServiceMount:
        def uu(fn: Callable[..., Any]) -> grpc.RpcMethodHandler:
            return grpc.unary_unary_rpc_method_handler(fn, _identity, _identity)

        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Echo": uu(self.echo),
                "Forward": uu(self.forward),
                "Missing": uu(self.missing),
                "Hold": grpc.unary_stream_rpc_method_handler(self.hold, _identity, _identity),
            },
        )
        return ServiceMount(SERVICE, lambda server: server.add_generic_rpc_handlers((handler,)))


async def _serve(relay: Relay, telemetry: Telemetry, limit: int = 0) -> GrpcServer:
    class Runtime:
        metrics_port: int | None = 0
        otlp_endpoint = ""
        max_concurrent_rpcs = limit
        overload_retry_after_seconds = 2.0
        overload_target_seconds = 0.0
        overload_min_waiting = 1

    server = GrpcServer([relay.mount()], grace_seconds=1, runtime=Runtime(), telemetry=telemetry)
    await server.start()
    return server


@pytest.fixture()
async def loop_errors() -> list[dict[str, Any]]:
    """Everything the event loop would print as 'Task exception was never retrieved' etc."""
    seen: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: seen.append(ctx))
    return seen


async def test_one_trace_and_request_id_across_hops_and_red_metrics() -> None:
    back_spans, front_spans = InMemorySpanExporter(), InMemorySpanExporter()
    back_telemetry = Telemetry("back", span_exporter=back_spans)
    front_telemetry = Telemetry("front", span_exporter=front_spans)
    back = await _serve(Relay(), back_telemetry)
    front = await _serve(Relay(next_hop=back.address), front_telemetry)
    try:
        async with grpc.aio.insecure_channel(front.address) as channel:
            forward = channel.unary_unary(f"/{SERVICE}/Forward", _identity, _identity)
            reply = await forward(b"hi:", metadata=(("traceparent", TRACEPARENT), ("x-request-id", "req-42")))
            missing = channel.unary_unary(f"/{SERVICE}/Missing", _identity, _identity)
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await missing(b"")
            assert error.value.code() == grpc.StatusCode.NOT_FOUND
        assert reply == b"hi:req-42"
        (front_span,) = [s for s in front_spans.get_finished_spans() if s.name.endswith("Forward")]
        (back_span,) = back_spans.get_finished_spans()
        assert format(front_span.context.trace_id, "032x") == TRACE_ID
        assert back_span.context.trace_id == front_span.context.trace_id
        assert back_span.parent is not None and back_span.parent.span_id == front_span.context.span_id
        assert back_span.attributes is not None and back_span.attributes["atc.request_id"] == "req-42"

        labels = {"service": "front", "method": f"/{SERVICE}/Forward", "code": "OK"}
        assert await metric_reaching(front_telemetry, "atc_rpc_requests_total", labels, 1) == 1
        missing_labels = {**labels, "method": f"/{SERVICE}/Missing", "code": "NOT_FOUND"}
        assert await metric_reaching(front_telemetry, "atc_rpc_requests_total", missing_labels, 1) == 1

        assert front.metrics_port
        async with httpx.AsyncClient() as http:
            scraped = await http.get(f"http://127.0.0.1:{front.metrics_port}/metrics")
        assert scraped.status_code == 200
        sample = 'atc_rpc_requests_total{code="NOT_FOUND",method="/test.Relay/Missing",service="front"} 1.0'
        assert sample in scraped.text
    finally:
        await front.stop(0)
        await back.stop(0)


async def test_cancelled_and_timed_out_streams_are_logged_as_such(
    caplog: pytest.LogCaptureFixture, loop_errors: list[dict[str, Any]]
) -> None:
    relay = Relay()
    telemetry = Telemetry("relay")
    server = await _serve(relay, telemetry)
    try:
        with caplog.at_level(logging.INFO, logger="atc.rpc"):
            async with grpc.aio.insecure_channel(server.address) as channel:
                hold = channel.unary_stream(f"/{SERVICE}/Hold", _identity, _identity)
                call = hold(b"")
                assert await call.read() == b"first"
                await relay.holding.wait()
                call.cancel()
                timed = hold(b"", timeout=1)
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    async for _ in timed:
                        pass
                assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            for _ in range(100):  # the server notices the cancellation asynchronously
                codes = {r.rpc_code for r in caplog.records if getattr(r, "rpc_method", "").endswith("Hold")}
                if codes == {"CANCELLED", "DEADLINE_EXCEEDED"}:
                    break
                await asyncio.sleep(0.05)
        assert codes == {"CANCELLED", "DEADLINE_EXCEEDED"}
        hold_labels = {"service": "relay", "method": f"/{SERVICE}/Hold"}
        assert await metric_reaching(telemetry, "atc_rpc_in_flight", hold_labels, 0) == 0
    finally:
        await server.stop(0)
    assert not [e for e in loop_errors if "different Context" in str(e.get("exception"))]


async def test_past_the_limit_a_call_is_refused_at_once_with_a_retry_hint() -> None:
    relay = Relay()
    telemetry = Telemetry("relay")
    server = await _serve(relay, telemetry, limit=1)
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            holding = channel.unary_stream(f"/{SERVICE}/Hold", _identity, _identity)(b"")
            assert await holding.read() == b"first"
            echo = channel.unary_unary(f"/{SERVICE}/Echo", _identity, _identity)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await echo(b"x", timeout=10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            status = rpc_status.from_call(refused.value)  # type: ignore[arg-type]
            assert status is not None
            info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
            assert status.details[0].Unpack(info) and info.reason == "OVERLOADED"
            assert status.details[1].Unpack(retry) and retry.retry_delay.seconds == 2
            # Health still answers while the service is saturated.
            health_stub = health_pb2_grpc.HealthStub(channel)
            health = await health_stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            holding.cancel()
            for _ in range(100):
                if server.limit.in_flight == 0:
                    break
                await asyncio.sleep(0.05)
            assert (await echo(b"x", timeout=10)).startswith(b"x")
        rejected = {"service": "relay", "method": f"/{SERVICE}/Echo"}
        assert await metric_reaching(telemetry, "atc_rpc_rejected_total", rejected, 1) == 1
    finally:
        await server.stop(0)


def test_json_log_lines_carry_service_request_and_trace_ids() -> None:
    telemetry = Telemetry("unit", span_exporter=InMemorySpanExporter())
    formatter = JsonFormatter("loop_svc")
    token = current_request_id.set("req-7")
    try:
        with telemetry.tracer.start_as_current_span("work") as span:
            record = logging.LogRecord("atc.x", logging.INFO, __file__, 1, "did %s", ("it",), None)
            record.rpc_code = "OK"
            entry = json.loads(formatter.format(record))
    finally:
        current_request_id.reset(token)
    assert entry["service"] == "loop_svc" and entry["message"] == "did it"
    assert entry["request_id"] == "req-7" and entry["rpc_code"] == "OK"
    assert entry["trace_id"] == format(span.get_span_context().trace_id, "032x")


def test_concurrency_limit_counts() -> None:
    limit = ConcurrencyLimit(2)
    assert limit.try_acquire() and limit.try_acquire() and not limit.try_acquire()
    limit.release()
    assert limit.try_acquire()
    unbounded = ConcurrencyLimit(0)
    assert all(unbounded.try_acquire() for _ in range(1000))


def test_domain_counters_through_the_metrics_port(caplog: pytest.LogCaptureFixture) -> None:
    telemetry = Telemetry("caller")
    telemetry.increment("breaker_transitions", to_state="OPEN", host="api.example")
    telemetry.increment("breaker_transitions", to_state="OPEN", host="api.example")
    labels = {"service": "caller", "host": "api.example", "to_state": "OPEN"}
    assert metric_value(telemetry, "atc_breaker_transitions_total", labels) == 2
    with caplog.at_level(logging.WARNING, logger="atc.telemetry"):
        telemetry.increment("breaker_transitions", state="OPEN")  # other labels: refused, logged
    assert "expects labels" in caplog.text
    assert metric_value(telemetry, "atc_breaker_transitions_total", labels) == 2
