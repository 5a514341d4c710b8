"""The owner a request acts for, carried across hops in gRPC metadata.

The edge verifies who is asking (a bearer JWT or its own signed chat token) and
sends the owner id as `x-atc-owner` metadata. Every server binds that value to
`current_owner` for the handler (services.runtime.interceptors, with the request id);
every channel opened with `services.runtime.channels.open_channel` forwards it
(`owner_client_interceptors`).
Servicers then call `acting_owner(field_owner)`: when the metadata names an owner,
the owner in the request body must be the same one, so a hop cannot be talked into
acting for somebody else by a body field.

A call without the metadata (an operator with grpcurl inside the cluster) acts for
the owner in its body: the network policies keep such callers off the public path.
"""

from __future__ import annotations

import contextvars
import re
from typing import Any

import grpc

from services.errors import InvalidArgument, PermissionDenied

OWNER_HEADER = "x-atc-owner"

# gRPC metadata values must be printable ASCII; owner ids are made so at the edge.
_VALID_OWNER = re.compile(r"^[\x21-\x7e]{1,256}$")

# None: the caller sent no owner metadata.
current_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar("atc_owner", default=None)


def is_valid_owner(owner: str) -> bool:
    return bool(_VALID_OWNER.match(owner))


def acting_owner(field_owner: str, *, field: str = "owner_id") -> str:
    """The owner this request acts for. Raises PermissionDenied (OWNER_MISMATCH)
    when the propagated owner and the body's owner differ, InvalidArgument when the
    propagated value is not a valid owner id."""
    propagated = current_owner.get()
    if propagated is None:
        return field_owner
    if not is_valid_owner(propagated):
        raise InvalidArgument(f"{OWNER_HEADER} metadata is not a valid owner id", field=OWNER_HEADER)
    if field_owner and field_owner != propagated:
        raise PermissionDenied(
            f"{field} does not match the authenticated owner", reason="OWNER_MISMATCH", field=field
        )
    return propagated


def check_resource_owner(resource_owner: str, acting: str, what: str) -> None:
    """Refuse to act on a resource bound to another owner (an unbound one is shared)."""
    if resource_owner and resource_owner != acting:
        raise PermissionDenied(f"{what} belongs to another owner", reason="OWNED_BY_ANOTHER")


def with_owner(metadata: Any, owner: str | None) -> grpc.aio.Metadata:
    """`metadata` plus the owner header (unless it already has one)."""
    pairs = list(metadata or ())
    if owner is not None and not any(key == OWNER_HEADER for key, _ in pairs):
        pairs.append((OWNER_HEADER, owner))
    return grpc.aio.Metadata(*pairs)


class _OwnerClientMixin:
    def _with_owner(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=details.timeout,
            metadata=with_owner(details.metadata, current_owner.get()),
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
        )


class OwnerUnaryUnaryInterceptor(_OwnerClientMixin, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_owner(client_call_details), request)


class OwnerUnaryStreamInterceptor(_OwnerClientMixin, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._with_owner(client_call_details), request)


def owner_client_interceptors() -> list[grpc.aio.ClientInterceptor]:
    return [OwnerUnaryUnaryInterceptor(), OwnerUnaryStreamInterceptor()]
