"""Only canonical paths reach the routes.

uvicorn/Starlette route on the percent-decoded path, so `/v1/%61dmin/x` and
`/v1%2Fadmin/x` would reach `/v1/admin/x` while a proxy's prefix rule sees the raw
path. The edge's own paths never need escapes, dot segments, doubled or trailing
slashes, so a raw path with any of them is refused (400) before routing: no prefix
rule in front of the edge can be walked around, and nothing is redirected.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

_FORBIDDEN = (b"%", b"\\", b"//", b"/./", b"/../", b";")


def is_canonical(raw_path: bytes) -> bool:
    if not raw_path.startswith(b"/"):
        return False
    if any(part in raw_path for part in _FORBIDDEN):
        return False
    if raw_path.endswith((b"/.", b"/..")):
        return False
    # A trailing slash is another spelling of the same route (Starlette would redirect).
    return raw_path == b"/" or not raw_path.endswith(b"/")


class CanonicalPathMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
            # Some servers put the query in raw_path.
            raw = raw.split(b"?", 1)[0]
            if not is_canonical(raw) or raw.decode("latin-1") != scope["path"]:
                await _refuse(send)
                return
        await self._app(scope, receive, send)


async def _refuse(send: Send) -> None:
    body = json.dumps(
        {"error": {"message": "the path is not canonical", "field": "path", "reason": "NON_CANONICAL_PATH"}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
