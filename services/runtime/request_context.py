"""The request id of the RPC being served, carried across hops in metadata."""

from __future__ import annotations

import contextvars
import uuid

REQUEST_ID_HEADER = "x-request-id"

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("atc_request_id", default="")


def new_request_id() -> str:
    return uuid.uuid4().hex
