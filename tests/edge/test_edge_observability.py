"""The edge's telemetry and backpressure middleware: 429 with Retry-After past the limit,
metrics by route, and the browser's trace continued."""

from __future__ import annotations

import asyncio

import httpx
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.http_observability import ObservedHttpApp
from services.runtime.telemetry import Telemetry
from tests.support import metric_value

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


async def test_turns_past_the_limit_get_429_and_the_rest_is_observed() -> None:
    release = asyncio.Event()
    entered = asyncio.Event()

    async def turn(request: Request) -> JSONResponse:
        if request.query_params.get("hold"):
            entered.set()
            await release.wait()
        return JSONResponse({"ok": True})

    spans = InMemorySpanExporter()
    telemetry = Telemetry("edge", span_exporter=spans)
    app = Starlette(
        routes=[Route("/v1/orchestrate", turn, methods=["POST"])],
        middleware=[Middleware(ObservedHttpApp, telemetry=telemetry, limit=ConcurrencyLimit(1))],
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://edge") as client:
        held = asyncio.create_task(client.post("/v1/orchestrate?hold=1"))
        await entered.wait()
        busy = await client.post("/v1/orchestrate")
        assert busy.status_code == 429
        assert busy.headers["retry-after"] == "1"
        assert busy.json()["error"]["message"]
        release.set()
        assert (await held).status_code == 200
        traced = await client.post(
            "/v1/orchestrate", headers={"traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01"}
        )
        assert traced.status_code == 200
        # Metrics have a listener of their own: the app's own paths never include them.
        assert (await client.get("/metrics")).status_code == 404
    assert "atc_rpc_requests_total" in telemetry.metrics_text().decode()
    labels = {"service": "edge", "method": "/v1/orchestrate"}
    assert metric_value(telemetry, "atc_rpc_requests_total", {**labels, "code": "200"}) == 2
    assert metric_value(telemetry, "atc_rpc_requests_total", {**labels, "code": "429"}) == 1
    assert any(format(s.context.trace_id, "032x") == TRACE_ID for s in spans.get_finished_spans())
