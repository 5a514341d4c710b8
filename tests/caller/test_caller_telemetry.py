"""caller_svc's domain counters and spans move when the event happens: breaker transitions
(shared in Redis and in process memory), API calls with their outcome, egress refusals,
result-store fallbacks. Real Redis, real HTTP servers; the breaker's clock is injected."""

from __future__ import annotations

import httpx
import pytest
import redis.asyncio as aioredis
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from caller_svc.circuit_breaker import BreakerState, CircuitBreaker
from caller_svc.egress import EgressGuard, GuardedTransport
from caller_svc.endpoint import EndpointSpec
from caller_svc.http_caller import ApiCaller
from caller_svc.result_store import ResultStore
from services.runtime.telemetry import Telemetry
from tests.support import metric_value


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def transitions(telemetry: Telemetry, to: BreakerState) -> float:
    return metric_value(telemetry, "atc_breaker_transitions_total", {"service": "caller", "to": to.value})


@pytest.mark.parametrize("shared", [True, False], ids=["redis", "in-process"])
async def test_breaker_transitions_are_counted(shared: bool, redis_client: aioredis.Redis) -> None:
    telemetry = Telemetry("caller")
    clock = Clock()
    breaker = CircuitBreaker(
        redis_client if shared else None,
        failure_threshold=2,
        cooldown_seconds=30,
        clock=clock,
        telemetry=telemetry,
    )
    host = "api.example.ee"
    assert await breaker.record_failure(host) == BreakerState.CLOSED
    assert transitions(telemetry, BreakerState.OPEN) == 0
    assert await breaker.record_failure(host) == BreakerState.OPEN
    assert await breaker.allow(host) is False  # still cooling down: no transition
    clock.now += 31
    assert await breaker.allow(host) is True  # the half-open probe
    assert await breaker.record_failure(host) == BreakerState.OPEN  # the probe failed
    clock.now += 31
    assert await breaker.allow(host) is True
    await breaker.record_success(host)
    await breaker.record_success(host)  # already closed: no transition
    assert transitions(telemetry, BreakerState.OPEN) == 2
    assert transitions(telemetry, BreakerState.HALF_OPEN) == 2
    assert transitions(telemetry, BreakerState.CLOSED) == 1


async def test_api_calls_and_egress_refusals_are_counted_and_traced(demo_api_url: str) -> None:
    spans = InMemorySpanExporter()
    telemetry = Telemetry("caller", span_exporter=spans)
    refuse_all = EgressGuard()  # loopback is internal: nothing of the demo is allowed
    async with httpx.AsyncClient(transport=GuardedTransport(refuse_all)) as client:
        caller = ApiCaller(client, CircuitBreaker(None), guard=refuse_all, telemetry=telemetry)
        result = await caller.call(
            EndpointSpec("votings", "GET", f"{demo_api_url}/votings?limit=1"), {}, "en"
        )
    assert not result.success
    labels = {"service": "caller"}
    assert metric_value(telemetry, "atc_egress_refusals_total", labels) == 1
    assert metric_value(telemetry, "atc_api_calls_total", {**labels, "outcome": "EGRESS_REFUSED"}) == 1
    (span,) = [s for s in spans.get_finished_spans() if s.name == "caller.api_call"]
    assert span.attributes is not None
    assert span.attributes["endpoint"] == "votings" and span.attributes["outcome"] == "EGRESS_REFUSED"


async def test_a_result_store_fallback_is_counted() -> None:
    telemetry = Telemetry("caller")
    # A Redis nobody listens on (refused at once; the timeout only bounds a stray hang):
    # the save falls back to answering without a result id.
    unreachable = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=5)
    try:
        store = ResultStore(unreachable, telemetry=telemetry)
        saved = await store.save(endpoint_name="x", question="q", summary="s", response={}, owner_id="anon:a")
    finally:
        await unreachable.aclose()
    assert saved is None
    assert metric_value(telemetry, "atc_result_store_fallbacks_total", {"service": "caller"}) == 1
