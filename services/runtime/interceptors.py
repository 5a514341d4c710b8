"""Server and client interceptors: request ids across hops, one log line per RPC."""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from services.runtime.request_context import (
    REQUEST_ID_HEADER,
    current_request_id,
    new_request_id,
)

log = logging.getLogger("atc.rpc")


def _request_id_from(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == REQUEST_ID_HEADER and value:
            return str(value)
    return new_request_id()


class RequestLoggingInterceptor(grpc.aio.ServerInterceptor):
    """Binds the caller's x-request-id (or a new one) to the handler and logs
    method, status and duration once the RPC ends."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method

        if handler.unary_unary:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                token = current_request_id.set(_request_id_from(context))
                started = time.perf_counter()
                try:
                    return await inner_uu(request, context)
                finally:
                    _log_done(method, context, started)
                    current_request_id.reset(token)

            return grpc.unary_unary_rpc_method_handler(
                unary_unary,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            inner_us = handler.unary_stream
            if inspect.isasyncgenfunction(inner_us):

                async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                    token = current_request_id.set(_request_id_from(context))
                    started = time.perf_counter()
                    try:
                        async for response in inner_us(request, context):
                            yield response
                    finally:
                        _log_done(method, context, started)
                        current_request_id.reset(token)

                wrapped: Any = unary_stream
            else:
                # Handlers that stream with `await context.write(...)` (grpc's own Health.Watch).
                async def unary_stream_writer(request: Any, context: grpc.aio.ServicerContext) -> None:
                    token = current_request_id.set(_request_id_from(context))
                    started = time.perf_counter()
                    try:
                        await inner_us(request, context)
                    finally:
                        _log_done(method, context, started)
                        current_request_id.reset(token)

                wrapped = unary_stream_writer
            return grpc.unary_stream_rpc_method_handler(
                wrapped,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler


def _log_done(method: str, context: grpc.aio.ServicerContext, started: float) -> None:
    code = context.code()
    name = code.name if isinstance(code, grpc.StatusCode) else ("OK" if code in (None, 0) else str(code))
    if context.cancelled():
        name = "CANCELLED"
    log.info(
        "rpc %s %s %.1fms request_id=%s",
        method,
        name,
        (time.perf_counter() - started) * 1000,
        current_request_id.get(),
    )


class _RequestIdClientMixin:
    def _with_request_id(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        request_id = current_request_id.get()
        metadata = list(details.metadata or ())
        if request_id and not any(k == REQUEST_ID_HEADER for k, _ in metadata):
            metadata.append((REQUEST_ID_HEADER, request_id))
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=details.timeout,
            metadata=grpc.aio.Metadata(*metadata),
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
        )


class RequestIdUnaryUnaryInterceptor(_RequestIdClientMixin, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_request_id(client_call_details), request)


class RequestIdUnaryStreamInterceptor(_RequestIdClientMixin, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_request_id(client_call_details), request)


def client_interceptors() -> list[grpc.aio.ClientInterceptor]:
    return [RequestIdUnaryUnaryInterceptor(), RequestIdUnaryStreamInterceptor()]
