"""Server and client interceptors: request ids and traces across hops, RED metrics,
bounded concurrency and one log line per RPC with its real final status."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

import grpc
from google.protobuf import duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.errors import MeshError
from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.owner import OWNER_HEADER, current_owner, current_owner_token
from services.runtime.request_context import (
    REQUEST_ID_HEADER,
    current_request_id,
    new_request_id,
)
from services.runtime.status import downstream_error, grpc_code_for, rich_status, status_for
from services.runtime.telemetry import (
    TRACEPARENT_HEADER,
    Telemetry,
    extract_trace_context,
    inject_trace_context,
)
from services.runtime.trust import OWNER_TOKEN_HEADER, OwnerTokens, mesh_tokens

log = logging.getLogger("atc.rpc")

# Health checks and reflection answer even when the service is saturated: a balancer that
# cannot see the service is worse than one that sees it busy.
_ALWAYS_ADMITTED = ("/grpc.health.v1.Health/", "/grpc.reflection.")
OVERLOADED_REASON = "OVERLOADED"
_DEADLINE_SLACK_SECONDS = 0.05


def _metadata(context: grpc.aio.ServicerContext) -> dict[str, str]:
    return {key: str(value) for key, value in (context.invocation_metadata() or ()) if isinstance(value, str)}


def _final_code(context: grpc.aio.ServicerContext, error: BaseException | None) -> str:
    """The status the client sees, including the ends the context does not record."""
    if isinstance(error, asyncio.CancelledError | GeneratorExit) or (error is None and context.cancelled()):
        remaining = context.time_remaining()
        # grpc's deadline timer fires a few milliseconds before time_remaining() reaches 0.
        expired = remaining is not None and remaining <= _DEADLINE_SLACK_SECONDS
        return "DEADLINE_EXCEEDED" if expired else "CANCELLED"
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    if code not in (None, 0):
        return str(code)
    if error is not None and not isinstance(error, grpc.aio.AbortError):
        return "UNKNOWN"
    return "OK"


def overloaded_status(method: str, retry_after_seconds: float) -> grpc.Status:
    seconds = max(0.0, retry_after_seconds)
    retry = error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=int(seconds), nanos=int((seconds % 1) * 1e9))
    )
    info = error_details_pb2.ErrorInfo(
        reason=OVERLOADED_REASON, domain="atc.mesh", metadata={"method": method}
    )
    status = status_pb2.Status(code=code_pb2.RESOURCE_EXHAUSTED, message="the service is busy; retry shortly")
    for detail in (info, retry):
        status.details.add().Pack(detail)
    return rpc_status.to_status(status)


# A store or socket that is down or hung: the caller may retry, and must not see our internals.
_OUTAGES = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError)
BACKEND_UNAVAILABLE_REASON = "BACKEND_UNAVAILABLE"


def unexpected_error_status(error: Exception) -> status_pb2.Status:
    """What a client sees for an exception no handler turned into a status: UNAVAILABLE for
    an outage of a backing store, INTERNAL otherwise; never the exception's own text."""
    if isinstance(error, _OUTAGES):
        return rich_status(
            grpc.StatusCode.UNAVAILABLE,
            BACKEND_UNAVAILABLE_REASON,
            "a backing service is temporarily unavailable",
            {"request_id": current_request_id.get()},
        )
    return rich_status(
        grpc.StatusCode.INTERNAL, "INTERNAL", "internal error", {"request_id": current_request_id.get()}
    )


class _Malformed:
    """What a request that does not parse as its message type is handed in as."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """grpc answers a request that fails to parse with INTERNAL ("Unexpected DecodeError"),
    before any handler runs; parsing here lets the RPC answer INVALID_ARGUMENT instead."""
    if deserializer is None:
        return None

    def parse(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception as error:  # any parse failure is the client's malformed request
            return _Malformed(error)

    return parse


async def _reject_malformed(request: Any, context: grpc.aio.ServicerContext) -> None:
    if isinstance(request, _Malformed):
        status = rich_status(
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
            "the request is not a valid message of this method's request type",
        )
        await context.abort_with_status(rpc_status.to_status(status))


async def _mapped(context: grpc.aio.ServicerContext, run: Callable[[], Awaitable[Any]]) -> Any:
    """Runs the handler; what it lets out becomes a real status with an ErrorInfo instead
    of UNKNOWN carrying the exception text: a domain error (services.errors) its own code
    and reason, a failed call to another service `downstream_error`'s, anything else
    UNAVAILABLE or INTERNAL. Servicers therefore just raise."""
    try:
        return await run()
    except grpc.aio.AbortError:
        raise
    except MeshError as error:
        status = status_for(error)
    except grpc.aio.AioRpcError as error:
        log.warning("downstream call failed: %s %s", error.code().name, error.details())
        status = status_for(downstream_error(error))
    except Exception as error:
        if isinstance(error, _OUTAGES):
            log.warning("backing service unavailable: %r", error)
        else:
            log.exception("unhandled error")
        status = unexpected_error_status(error)
    await context.abort_with_status(rpc_status.to_status(status))


class RpcObservingInterceptor(grpc.aio.ServerInterceptor):
    """Per RPC: admits it or refuses it fast at the concurrency limit, binds the caller's
    x-request-id (or a new one) and x-atc-owner, continues the caller's trace in a server
    span, counts it, and logs method, final status and duration once it ends.

    Every handler is run as one coroutine (streams write through `context.write`): what
    it binds to contextvars is then reset in the very task and context that bound it,
    even when the client goes away mid-stream. (Wrapping streams in async generators let
    grpc finalise them from another task: "Token … was created in a different Context".)
    """

    def __init__(
        self,
        telemetry: Telemetry | None = None,
        limit: ConcurrencyLimit | None = None,
        *,
        tokens: OwnerTokens | object | None = None,
    ) -> None:
        self._telemetry = telemetry
        self._limit = limit or ConcurrencyLimit(0)
        # The mesh's owner tokens (services.runtime.trust); None: looked up per call.
        self._tokens = tokens

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method: str = handler_call_details.method
        observe = self._observe

        if handler.unary_unary:
            inner_uu = handler.unary_unary

            async def checked_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                await _reject_malformed(request, context)
                return await inner_uu(request, context)

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                return await observe(method, context, lambda: checked_unary(request, context))

            return grpc.unary_unary_rpc_method_handler(
                unary_unary,
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            inner_us = handler.unary_stream

            async def relay(request: Any, context: grpc.aio.ServicerContext) -> None:
                await _reject_malformed(request, context)
                if inspect.isasyncgenfunction(inner_us):
                    async with aclosing(inner_us(request, context)) as responses:
                        async for response in responses:
                            await context.write(response)
                else:  # handlers that already write (grpc's own Health.Watch)
                    await inner_us(request, context)

            async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> None:
                await observe(method, context, lambda: relay(request, context))

            return grpc.unary_stream_rpc_method_handler(
                unary_stream,
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        return handler

    async def _observe(
        self, method: str, context: grpc.aio.ServicerContext, run: Callable[[], Awaitable[Any]]
    ) -> Any:
        metadata = _metadata(context)
        token = current_request_id.set(metadata.get(REQUEST_ID_HEADER) or new_request_id())
        owner = metadata.get(OWNER_HEADER)
        assertion = metadata.get(OWNER_TOKEN_HEADER)
        tokens = self._tokens if isinstance(self._tokens, OwnerTokens) else mesh_tokens()
        refused: MeshError | None = None
        if tokens is not None:
            # Only a signed assertion names an owner: a bare or forged x-atc-owner is refused.
            try:
                owner = tokens.vouched_owner(owner, assertion)
            except MeshError as error:
                refused = error
        # None: the caller sent no owner (services.runtime.owner.acting_owner decides).
        owner_token = current_owner.set(owner)
        assertion_token = current_owner_token.set(assertion if owner is not None else None)
        try:
            if refused is not None:
                log.warning(
                    "owner refused for %s: %s request_id=%s", method, refused.reason, current_request_id.get()
                )
                self._log_done(method, grpc_code_for(refused).name, 0.0)
                await context.abort_with_status(rpc_status.to_status(status_for(refused)))
            if not method.startswith(_ALWAYS_ADMITTED) and not self._limit.try_acquire():
                self._log_done(method, "RESOURCE_EXHAUSTED", 0.0)
                if self._telemetry is not None:
                    self._telemetry.rpc_rejected.labels(self._telemetry.service, method).inc()
                    self._telemetry.observe_rpc(method, "RESOURCE_EXHAUSTED", 0.0)
                await context.abort_with_status(overloaded_status(method, self._limit.retry_after_seconds))
            try:
                return await self._traced(method, context, metadata, run)
            finally:
                if not method.startswith(_ALWAYS_ADMITTED):
                    self._limit.release()
        finally:
            current_owner_token.reset(assertion_token)
            current_owner.reset(owner_token)
            current_request_id.reset(token)

    async def _traced(
        self,
        method: str,
        context: grpc.aio.ServicerContext,
        metadata: dict[str, str],
        run: Callable[[], Awaitable[Any]],
    ) -> Any:
        telemetry = self._telemetry
        tracer = telemetry.tracer if telemetry is not None else trace.NoOpTracer()
        parent = extract_trace_context(metadata) if TRACEPARENT_HEADER in metadata else None
        started = time.perf_counter()
        error: BaseException | None = None
        in_flight = telemetry.rpc_in_flight.labels(telemetry.service, method) if telemetry else None
        if in_flight is not None:
            in_flight.inc()
        with tracer.start_as_current_span(
            method.lstrip("/"), context=parent, kind=SpanKind.SERVER, record_exception=False
        ) as span:
            try:
                return await _mapped(context, run)
            except BaseException as exc:
                error = exc
                raise
            finally:
                elapsed = time.perf_counter() - started
                code = _final_code(context, error)
                span.set_attribute("rpc.system", "grpc")
                span.set_attribute("rpc.grpc.status_code", code)
                span.set_attribute("atc.request_id", current_request_id.get())
                if code != "OK":
                    span.set_status(Status(StatusCode.ERROR, code))
                if in_flight is not None:
                    in_flight.dec()
                if telemetry is not None:
                    telemetry.observe_rpc(method, code, elapsed)
                self._log_done(method, code, elapsed)

    @staticmethod
    def _log_done(method: str, code: str, seconds: float) -> None:
        level = logging.WARNING if code in ("UNKNOWN", "INTERNAL", "RESOURCE_EXHAUSTED") else logging.INFO
        log.log(
            level,
            "rpc %s %s %.1fms request_id=%s",
            method,
            code,
            seconds * 1000,
            current_request_id.get(),
            extra={"rpc_method": method, "rpc_code": code, "duration_ms": round(seconds * 1000, 1)},
        )


class _OutgoingMetadataMixin:
    """Adds the current request id and trace context to every outgoing call."""

    def _with_context(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = list(details.metadata or ())
        present = {key for key, _ in metadata}
        request_id = current_request_id.get()
        if request_id and REQUEST_ID_HEADER not in present:
            metadata.append((REQUEST_ID_HEADER, request_id))
        if TRACEPARENT_HEADER not in present:
            carrier: dict[str, str] = {}
            inject_trace_context(carrier)
            metadata.extend(carrier.items())
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=details.timeout,
            metadata=grpc.aio.Metadata(*metadata),
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
        )


class RequestIdUnaryUnaryInterceptor(_OutgoingMetadataMixin, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        return await continuation(self._with_context(client_call_details), request)


class RequestIdUnaryStreamInterceptor(_OutgoingMetadataMixin, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> AsyncIterator[Any] | Any:
        return await continuation(self._with_context(client_call_details), request)


def client_interceptors() -> list[grpc.aio.ClientInterceptor]:
    return [RequestIdUnaryUnaryInterceptor(), RequestIdUnaryStreamInterceptor()]
