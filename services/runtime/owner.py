"""The owner a request acts for, carried across hops in gRPC metadata.

The edge verifies who is asking (a bearer JWT or its own signed chat token) and
sends the owner id as `x-atc-owner` metadata. Every server binds that value to
`current_owner` for the handler (services.runtime.interceptors, with the request id);
every channel opened with `services.runtime.channels.open_channel` forwards it
(`owner_client_interceptors`).
Servicers then call `acting_owner(field_owner)`: when the metadata names an owner,
the owner in the request body must be the same one, so a hop cannot be talked into
acting for somebody else by a body field.

The owner header is only believed with the mesh's signed assertion beside it
(services.runtime.trust: `x-atc-owner-token`, verified by every server's interceptor);
the edge signs it, every hop forwards it. With trust on, a call without a verified
owner acts for no one: a body's `owner_id` alone is refused (OWNER_NOT_SIGNED), so a
forged owner reads or deletes nothing. With trust off (a bare test server) a call
without the metadata acts for the owner in its body.
"""

from __future__ import annotations

import contextvars
import re
from typing import Any

import grpc

from services.errors import InvalidArgument, PermissionDenied, Unauthenticated
from services.runtime.trust import OWNER_TOKEN_HEADER, mesh_tokens, trust_required

OWNER_HEADER = "x-atc-owner"

# gRPC metadata values must be printable ASCII; owner ids are made so at the edge.
_VALID_OWNER = re.compile(r"^[\x21-\x7e]{1,256}$")

# None: the caller sent no owner metadata.
current_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar("atc_owner", default=None)
# The signed assertion that came with it, forwarded unchanged to the next hop.
current_owner_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "atc_owner_token", default=None
)


def owner_metadata(owner: str) -> tuple[tuple[str, str], ...]:
    """The metadata with which the edge (which verified the citizen) names `owner`: the
    owner and, with trust on, the mesh's signed assertion of it."""
    if not owner:
        return ()
    tokens = mesh_tokens()
    pairs: tuple[tuple[str, str], ...] = ((OWNER_HEADER, owner),)
    return (*pairs, (OWNER_TOKEN_HEADER, tokens.sign(owner))) if tokens is not None else pairs


def is_valid_owner(owner: str) -> bool:
    return bool(_VALID_OWNER.match(owner))


def acting_owner(field_owner: str, *, field: str = "owner_id") -> str:
    """The owner this request acts for. Raises PermissionDenied (OWNER_MISMATCH)
    when the propagated owner and the body's owner differ, InvalidArgument when the
    propagated value is not a valid owner id."""
    propagated = current_owner.get()
    if propagated is None:
        if field_owner and trust_required():
            raise Unauthenticated(
                f"{field} needs the mesh's signed owner assertion ({OWNER_TOKEN_HEADER})",
                reason="OWNER_NOT_SIGNED",
            )
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


def with_owner(metadata: Any, owner: str | None, token: str | None = None) -> grpc.aio.Metadata:
    """`metadata` plus the owner header and its assertion (unless it already names an owner)."""
    pairs = list(metadata or ())
    if owner is not None and not any(key == OWNER_HEADER for key, _ in pairs):
        pairs.append((OWNER_HEADER, owner))
        if token is not None and not any(key == OWNER_TOKEN_HEADER for key, _ in pairs):
            pairs.append((OWNER_TOKEN_HEADER, token))
    return grpc.aio.Metadata(*pairs)


class _OwnerClientMixin:
    def _with_owner(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=details.timeout,
            metadata=with_owner(details.metadata, current_owner.get(), current_owner_token.get()),
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
