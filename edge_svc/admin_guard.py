"""The admin listener's credential: `Authorization: Bearer <admin token>` on every
route but /healthz (the admin port's liveness probe)."""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Receive, Scope, Send

_OPEN_PATHS = frozenset({"/healthz"})


class AdminTokenGuard:
    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the admin listener needs a token")
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in _OPEN_PATHS:
            presented = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(presented, self._expected):
                await _unauthorized(send, missing=not presented)
                return
        await self._app(scope, receive, send)


async def _unauthorized(send: Send, *, missing: bool) -> None:
    message = "the admin token is required" if missing else "the admin token is wrong"
    body = json.dumps({"error": {"message": message, "field": None, "reason": "UNAUTHENTICATED"}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b"Bearer"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
