"""The HTTP side of telemetry and backpressure, as one ASGI middleware for the edge:
continues or starts the trace of each request (W3C `traceparent`), counts requests by
route template (a bounded label set: a path no route knows is `other`), and admits chat
turns in this order: the whole body is read first, under a read deadline and a size
limit, and only then is a concurrency slot taken (429 with Retry-After past the limit).
A slow or stalled client therefore holds a socket until its deadline, never a slot.

`GET /metrics` is not served here: the edge's metrics have a listener of their own
(services.runtime.metrics_server), like every other service's."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.telemetry import TRACEPARENT_HEADER, Telemetry, extract_trace_context

OTHER_ROUTE = "other"


@dataclass(frozen=True)
class BodyAdmission:
    """How a limited request's body is read before it may take a slot."""

    max_bytes: int
    # The whole body must have arrived by then (a slow-drip client gets 408).
    read_timeout_seconds: float = 10.0


def _default_route(scope: Scope) -> str:
    path: str = scope["path"]
    return (
        path
        if path in ("/", "/healthz", "/readyz", "/v1/orchestrate", "/v1/orchestrate/stream")
        else OTHER_ROUTE
    )


class _BodyRefused(Exception):
    def __init__(self, status: int, message: str, reason: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.reason = reason


async def read_whole_body(receive: Receive, admission: BodyAdmission, declared: str | None) -> bytes:
    """Every body chunk until the last one, within `admission`; _BodyRefused otherwise."""
    if declared is not None:
        if not declared.isdigit():
            raise _BodyRefused(400, "Content-Length is not a number", "INVALID_ARGUMENT")
        if int(declared) > admission.max_bytes:
            raise _BodyRefused(413, f"the body is larger than {admission.max_bytes} bytes", "BODY_TOO_LARGE")
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(admission.read_timeout_seconds) as deadline:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _BodyRefused(400, "the client went away", "CLIENT_DISCONNECTED")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > admission.max_bytes:
                raise _BodyRefused(
                    413, f"the body is larger than {admission.max_bytes} bytes", "BODY_TOO_LARGE"
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
    if deadline.cancelled_caught:
        raise _BodyRefused(408, "the body did not arrive in time", "BODY_TIMEOUT")
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then waits on the real one
    (for the disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class ObservedHttpApp:
    def __init__(
        self,
        app: ASGIApp,
        *,
        telemetry: Telemetry,
        limit: ConcurrencyLimit,
        limited_routes: Sequence[str] = ("/v1/orchestrate", "/v1/orchestrate/stream"),
        route_of: Callable[[Scope], str] = _default_route,
        body: BodyAdmission | None = None,
    ) -> None:
        self._app = app
        self._telemetry = telemetry
        self._limit = limit
        self._limited = frozenset(limited_routes)
        self._route_of = route_of
        self._body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        route = self._route_of(scope)
        limited = route in self._limited
        if limited and self._body is not None:
            declared = next(
                (v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"content-length"), None
            )
            started = time.perf_counter()
            try:
                body = await read_whole_body(receive, self._body, declared)
            except _BodyRefused as refused:
                self._telemetry.observe_rpc(route, str(refused.status), time.perf_counter() - started)
                payload = {"error": {"message": refused.message, "field": None, "reason": refused.reason}}
                await _respond(send, refused.status, json.dumps(payload).encode(), "application/json")
                return
            receive = _replay(body, receive)
        if limited and not self._limit.try_acquire():
            self._telemetry.rpc_rejected.labels(self._telemetry.service, route).inc()
            self._telemetry.observe_rpc(route, "429", 0.0)
            retry_after = max(1, math.ceil(self._limit.retry_after_seconds))
            body_429 = json.dumps({"error": {"message": "the service is busy; retry shortly"}}).encode()
            await _respond(
                send, 429, body_429, "application/json", [(b"retry-after", str(retry_after).encode())]
            )
            return
        try:
            await self._traced(scope, receive, send, route)
        finally:
            if limited:
                self._limit.release()

    async def _traced(self, scope: Scope, receive: Receive, send: Send, route: str) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        parent = extract_trace_context(headers) if TRACEPARENT_HEADER in headers else None
        status = [500]

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
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
