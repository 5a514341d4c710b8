"""Cross-site request forgery: a browser sends the chat cookie with any site's POST
(SameSite is the browser's promise, not the server's), so every POST to the public
listener must come from an allowed Origin and carry a JSON body.

- `Origin`, when sent, must be this edge's own origin (the Host the request names) or
  one of the configured `allowed_origins`; a cross-site browser request without Origin
  but with `Sec-Fetch-Site: cross-site` is refused too. Clients that are not browsers
  send neither and are not at risk (they hold their own token).
- The body must be `application/json`: a cross-site form or `text/plain` POST (the
  kinds a page may send without a CORS preflight) never reaches a route.

Both answers are 403 with reason CSRF_REFUSED / 415 with reason UNSUPPORTED_MEDIA_TYPE,
before the body is read or a credential looked at; `POST /v1/identity` (which mints the
cookie) is covered like every other POST.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

_JSON_TYPES = ("application/json",)


def _origin_key(origin: str) -> str:
    parts = urlsplit(origin.strip())
    if not parts.scheme or not parts.netloc:
        return ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class CsrfGuard:
    def __init__(
        self, app: ASGIApp, *, allowed_origins: Iterable[str] = (), paths: Iterable[str] | None = None
    ) -> None:
        self._app = app
        # The POST routes guarded (None: every POST); others are left to routing (404/405).
        self._paths = frozenset(paths) if paths is not None else None
        self._allowed = frozenset(key for key in (_origin_key(o) for o in allowed_origins) if key)

    def origin_allowed(self, origin: str, host: str) -> bool:
        key = _origin_key(origin)
        if not key:
            return False
        if key in self._allowed:
            return True
        # Same origin: the Origin's host[:port] is the Host the browser sent this request to.
        return bool(host) and urlsplit(key).netloc == host.lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or (self._paths is not None and scope["path"] not in self._paths)
        ):
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        if origin is not None:
            if not self.origin_allowed(origin, headers.get("host", "")):
                await _refuse(send, 403, "CSRF_REFUSED", "requests from this origin are not accepted")
                return
        elif headers.get("sec-fetch-site", "").lower() == "cross-site":
            await _refuse(send, 403, "CSRF_REFUSED", "cross-site requests are not accepted")
            return
        media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type not in _JSON_TYPES:
            await _refuse(send, 415, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
            return
        await self._app(scope, receive, send)


async def _refuse(send: Send, status: int, reason: str, message: str) -> None:
    body = json.dumps({"error": {"message": message, "reason": reason}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
