"""The HTTP side of telemetry and backpressure, as one ASGI middleware for the edge:
continues or starts the trace of each request (W3C `traceparent`), counts requests by
route and status, serves `GET /metrics`, and refuses chat turns past the concurrency
limit with 429 and Retry-After instead of queueing them."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence

from opentelemetry.trace import SpanKind, Status, StatusCode
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.runtime.backpressure import Admission, ConcurrencyLimit
from services.runtime.telemetry import TRACEPARENT_HEADER, Telemetry, extract_trace_context

METRICS_PATH = "/metrics"


class ObservedHttpApp:
    def __init__(
        self,
        app: ASGIApp,
        *,
        telemetry: Telemetry,
        limit: ConcurrencyLimit,
        limited_prefixes: Sequence[str] = ("/v1/orchestrate",),
    ) -> None:
        self._app = app
        self._telemetry = telemetry
        self._limit = limit
        self._limited = tuple(limited_prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        path: str = scope["path"]
        if path == METRICS_PATH and scope["method"] == "GET":
            await _respond(send, 200, self._telemetry.metrics_text(), CONTENT_TYPE_LATEST)
            return
        limited = path.startswith(self._limited)
        route = path if limited or path in ("/", "/healthz", "/readyz") else "other"
        admission = self._limit.admit() if limited else None
        if limited and admission is None:
            self._telemetry.rpc_rejected.labels(self._telemetry.service, route).inc()
            self._telemetry.observe_rpc(route, "429", 0.0)
            retry_after = max(1, math.ceil(self._limit.retry_after_seconds))
            body = json.dumps({"error": {"message": "the service is busy; retry shortly"}}).encode()
            await _respond(send, 429, body, "application/json", [(b"retry-after", str(retry_after).encode())])
            return
        try:
            await self._traced(scope, receive, send, route, admission)
        finally:
            if admission is not None:
                admission.release()

    async def _traced(
        self, scope: Scope, receive: Receive, send: Send, route: str, admission: Admission | None
    ) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        parent = extract_trace_context(headers) if TRACEPARENT_HEADER in headers else None
        status = [500]

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
                # A chat stream starts its response with its first event ready: from here
                # on the turn is relaying, not waiting (services/runtime/backpressure.py).
                if admission is not None:
                    admission.responded()
            await send(message)

        started = time.perf_counter()
        with self._telemetry.tracer.start_as_current_span(
            f"{scope['method']} {route}", context=parent, kind=SpanKind.SERVER, record_exception=False
        ) as span:
            try:
                await self._app(scope, receive, recording_send)
            finally:
                span.set_attribute("http.request.method", scope["method"])
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status[0])
                if status[0] >= 500:
                    span.set_status(Status(StatusCode.ERROR, str(status[0])))
                self._telemetry.observe_rpc(route, str(status[0]), time.perf_counter() - started)


async def _respond(
    send: Send, status: int, body: bytes, content_type: str, extra: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
