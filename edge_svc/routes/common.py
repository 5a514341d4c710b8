"""What every route shares: request ids, JSON bodies, MeshError → HTTP responses."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from edge_svc.limits import BodyRejected, JsonLimits, json_body
from edge_svc.models import error_body
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
from services.language import Lang
from services.runtime.citizen import public_error
from services.runtime.request_context import REQUEST_ID_HEADER, new_request_id

# An incoming id is reused only when it is safe to echo into logs and headers.
_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def request_id_for(request: Request) -> str:
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    return incoming if _SAFE_REQUEST_ID.match(incoming) else new_request_id()


async def json_object(request: Request, limits: JsonLimits) -> dict[str, Any]:
    """The body as a JSON object within `limits`; BodyRejected (400/413) otherwise."""
    return await json_body(request, limits)


def rejected_body(error: BodyRejected, request_id: str) -> JSONResponse:
    reason = "BODY_TOO_LARGE" if error.status == 413 else "INVALID_ARGUMENT"
    body = error_body(error.message, field=error.field, reason=reason)
    return json_response(body, request_id, error.status)


def json_response(body: Any, request_id: str, status_code: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status_code, headers={REQUEST_ID_HEADER: request_id})


def bad_request(message: str, request_id: str, *, field: str | None = None) -> JSONResponse:
    return json_response(error_body(message, field=field, reason="INVALID_ARGUMENT"), request_id, 400)


def http_status_for(error: MeshError) -> int:
    if isinstance(error, InvalidArgument | FailedPrecondition):
        return 400
    if isinstance(error, Unauthenticated):
        return 401
    if isinstance(error, PermissionDenied):
        return 403
    if isinstance(error, TooLarge):
        return 413
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, AlreadyExists):
        return 409
    if isinstance(error, Unavailable):
        return 504 if error.reason == "DEADLINE_EXCEEDED" else 503
    return 502


def mesh_error_response(error: MeshError, request_id: str, lang: Lang | None = None) -> JSONResponse:
    """The answer for a failed request: a refusal of the caller's own request as it is,
    any outage as the one localized "temporarily unavailable" with the request id
    (services.runtime.citizen; the detail is logged there). The status still tells a
    slow hop (504) from one that is down (503)."""
    public = public_error(error, lang, where="edge", request_id=request_id)
    field = public.field if isinstance(public, InvalidArgument) and public.field else None
    body = error_body(public.message, field=field, reason=public.reason)
    if public is not error:
        body["error"]["requestId"] = request_id
    status = http_status_for(error)
    return json_response(body, request_id, status if public is error else (504 if status == 504 else 503))
