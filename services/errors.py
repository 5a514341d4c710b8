"""Domain errors. Domain modules raise these (they know nothing of gRPC);
servicers let them out and the server's interceptor
(services.runtime.interceptors) turns them into gRPC statuses with an ErrorInfo."""

from __future__ import annotations

from typing import Any


class MeshError(Exception):
    """An error with a stable machine-readable reason (AIP-193 ErrorInfo.reason)."""

    reason = "INTERNAL"

    def __init__(self, message: str, *, reason: str | None = None, **metadata: Any) -> None:
        super().__init__(message)
        self.message = message
        if reason:
            self.reason = reason
        self.metadata = {k: str(v) for k, v in metadata.items() if v is not None}


class InvalidArgument(MeshError):
    """Bad input. `field` names the offending field (dotted path)."""

    reason = "INVALID_ARGUMENT"

    def __init__(self, message: str, *, field: str, reason: str | None = None, **metadata: Any) -> None:
        super().__init__(message, reason=reason, field=field, **metadata)
        self.field = field


class NotFound(MeshError):
    reason = "NOT_FOUND"


class PermissionDenied(MeshError):
    reason = "PERMISSION_DENIED"


class Unavailable(MeshError):
    reason = "UNAVAILABLE"


class FailedPrecondition(MeshError):
    reason = "FAILED_PRECONDITION"


class Unauthenticated(MeshError):
    """No valid credential (HTTP 401, gRPC UNAUTHENTICATED)."""

    reason = "UNAUTHENTICATED"


class AlreadyExists(MeshError):
    """A name that must be unique is taken (HTTP 409, gRPC ALREADY_EXISTS)."""

    reason = "ALREADY_EXISTS"


class TooLarge(MeshError):
    """A body or message over a size limit (HTTP 413, gRPC RESOURCE_EXHAUSTED)."""

    reason = "TOO_LARGE"
