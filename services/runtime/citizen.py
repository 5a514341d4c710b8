"""The one place that decides what a citizen sees when something fails.

Every hop ends a turn it cannot finish through `failure_events` (services.runtime.relay)
and the edge answers a failed request through `public_error`; both come here. The rule:

- a refusal of the citizen's own request (a bad body, a missing or wrong credential,
  another owner's chat, too large) keeps its message: those texts are ours, written for
  the caller, and name nothing internal;
- every outage of any hop (a service down or slow, a store that does not answer, an
  internal error, a broken stream) becomes the same localized "temporarily unavailable,
  please try again", reason TEMPORARILY_UNAVAILABLE, with the request id to quote —
  never an address, a gRPC status name, a service name or an exception's text.

The detail goes to the log (and the trace) with the request id, here, once.
"""

from __future__ import annotations

import logging

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
from services.language import DEFAULT_LANG, Lang
from services.runtime.request_context import current_request_id

log = logging.getLogger("atc.failures")

TEMPORARILY_UNAVAILABLE_REASON = "TEMPORARILY_UNAVAILABLE"

TEMPORARILY_UNAVAILABLE: dict[Lang, str] = {
    "en": "The service is temporarily unavailable. Please try again in a moment.",
    "et": "Teenus on ajutiselt kättesaamatu. Palun proovige hetke pärast uuesti.",
    "ru": "Сервис временно недоступен. Пожалуйста, попробуйте ещё раз чуть позже.",
}

# Refusals of the caller's own request: shown as they are.
_CALLERS_OWN = (
    AlreadyExists,
    InvalidArgument,
    Unauthenticated,
    PermissionDenied,
    TooLarge,
    NotFound,
    FailedPrecondition,
)


def is_outage(error: MeshError) -> bool:
    return isinstance(error, Unavailable) or not isinstance(error, _CALLERS_OWN)


def try_again_text(lang: Lang | None) -> str:
    return TEMPORARILY_UNAVAILABLE[lang or DEFAULT_LANG]


def public_error(
    error: MeshError, lang: Lang | None = None, *, where: str = "", request_id: str | None = None
) -> MeshError:
    """What may be shown of `error`: itself when it refuses the caller's own request,
    else the localized outage (the detail logged here with the request id)."""
    if not is_outage(error):
        return error
    request_id = request_id or current_request_id.get()
    log.warning(
        "outage%s: %s %s request_id=%s",
        f" at {where}" if where else "",
        error.reason,
        error.message,
        request_id,
        extra={"failure_reason": error.reason},
    )
    return Unavailable(
        try_again_text(lang), reason=TEMPORARILY_UNAVAILABLE_REASON, request_id=request_id or None
    )
