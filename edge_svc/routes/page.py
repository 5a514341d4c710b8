"""GET /: the single-page chat (static/index.html, no external assets)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

CHAT_PAGE = Path(__file__).resolve().parent.parent / "static" / "index.html"


class PageRoutes:
    def __init__(self, page: Path = CHAT_PAGE) -> None:
        self._html = page.read_text(encoding="utf-8")

    async def index(self, request: Request) -> Response:
        return HTMLResponse(self._html, headers={"cache-control": "no-cache"})
