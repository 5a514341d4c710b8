"""GET /healthz (the edge process answers) and GET /readyz (the classifier is SERVING)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from edge_svc.upstream import Upstream


class HealthRoutes:
    def __init__(self, upstream: Upstream, *, timeout: float) -> None:
        self._upstream = upstream
        self._timeout = timeout

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(self, request: Request) -> Response:
        classifier = await self._upstream.classifier.health(timeout=self._timeout)
        ready = classifier == "SERVING"
        return JSONResponse(
            {"status": "ready" if ready else "not_ready", "classifier": classifier},
            status_code=200 if ready else 503,
        )
