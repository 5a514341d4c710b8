"""Read the edge's SSE stream the way the chat page does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Frame:
    event: str
    data: dict[str, Any]


@dataclass
class TurnResult:
    frames: list[Frame]

    def of(self, event: str) -> list[Frame]:
        return [f for f in self.frames if f.event == event]

    def text(self, kind: str | None = None) -> str:
        return "".join(
            f.data["content"] for f in self.of("token") if kind is None or f.data.get("kind") == kind
        )

    @property
    def end(self) -> Frame:
        return self.frames[-1]


async def stream_turn(client: httpx.AsyncClient, chat_id: str, message: str, **extra: Any) -> TurnResult:
    frames: list[Frame] = []
    body = {"chatId": chat_id, "message": message, **extra}
    async with client.stream("POST", "/v1/orchestrate/stream", json=body) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        event = "message"
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                frames.append(Frame(event, json.loads(line.removeprefix("data:").strip())))
                event = "message"
    return TurnResult(frames)
