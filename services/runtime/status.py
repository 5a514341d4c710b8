"""google.rpc.Status with one ErrorInfo (AIP-193), for aborts and in-stream errors."""

from __future__ import annotations

from typing import NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from atc.common.v1 import turn_event_pb2
from services.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    MeshError,
    NotFound,
    PermissionDenied,
    TooLarge,
    Unauthenticated,
    Unavailable,
)

ERROR_DOMAIN = "atc.mesh"

_CODES: list[tuple[type[MeshError], grpc.StatusCode]] = [
    (InvalidArgument, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (TooLarge, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
]


_STATUS_DETAILS_KEY = "grpc-status-details-bin"


def grpc_code_for(error: MeshError) -> grpc.StatusCode:
    for cls, code in _CODES:
        if isinstance(error, cls):
            return code
    return grpc.StatusCode.INTERNAL


def rich_status(
    code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None
) -> status_pb2.Status:
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata or {})
    detail = any_pb2.Any()
    detail.Pack(info)
    return status_pb2.Status(code=code.value[0], message=message, details=[detail])


def status_for(error: MeshError) -> status_pb2.Status:
    return rich_status(grpc_code_for(error), error.reason, error.message, error.metadata)


async def abort_with(context: grpc.aio.ServicerContext, error: MeshError) -> NoReturn:
    """Abort the RPC with the error's code, message and ErrorInfo in the trailers."""
    await context.abort_with_status(rpc_status.to_status(status_for(error)))
    raise AssertionError("abort_with_status returned")  # pragma: no cover - abort always raises


def error_event(error: MeshError) -> turn_event_pb2.TurnEvent:
    """An in-stream error event, for failures after a stream has started."""
    return turn_event_pb2.TurnEvent(error=status_for(error))


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def mesh_error_from_rpc(error: grpc.aio.AioRpcError) -> MeshError:
    """The domain error a failed call stands for (the inverse of `abort_with`), with
    the server's ErrorInfo reason and metadata when it sent one."""
    message = error.details() or error.code().name
    reason: str | None = None
    metadata: dict[str, str] = {}
    for key, value in error.trailing_metadata() or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            info = error_info(status_pb2.Status.FromString(value))
            if info is not None:
                reason = info.reason or None
                metadata = dict(info.metadata)
    code = error.code()
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        field = metadata.pop("field", "")
        return InvalidArgument(message, field=field, reason=reason, **metadata)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason is None:
        # grpc's own size check ("Sent message larger than max (N vs. M)"): no ErrorInfo.
        return TooLarge(
            "the request is larger than a message between services may be", reason="GRPC_MESSAGE_TOO_LARGE"
        )
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return Unavailable(message, reason=reason or "DEADLINE_EXCEEDED", **metadata)
    error_class = next((cls for cls, c in _CODES if c == code), MeshError)
    return error_class(message, reason=reason or code.name, **metadata)


# Refusals of the caller's own request (another owner's chat, no credential): passed on
# as they are, so the edge answers 403/401. Anything else a downstream service answers is
# this hop's failure to serve the request.
_PASSED_ON = frozenset({grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED})


def downstream_error(error: grpc.aio.AioRpcError) -> MeshError:
    """What a failed call to another service becomes when a handler lets it out: the
    same refusal for PERMISSION_DENIED/UNAUTHENTICATED, else UNAVAILABLE with reason
    DOWNSTREAM_FAILED."""
    if error.code() in _PASSED_ON:
        return mesh_error_from_rpc(error)
    # The detail (an address, a status name) is logged by the interceptor, never passed on.
    return Unavailable("a downstream service failed", reason="DOWNSTREAM_FAILED")


async def error_info_from_call(call: grpc.aio.Call) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo a failed call carried in its trailers, if any."""
    from grpc_status import _async as rpc_status_async

    status = await rpc_status_async.from_call(call)
    return error_info(status) if status is not None else None


__all__ = [
    "abort_with",
    "code_pb2",
    "downstream_error",
    "error_event",
    "error_info",
    "error_info_from_call",
    "grpc_code_for",
    "rich_status",
    "status_for",
]
