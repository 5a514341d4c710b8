"""A scripted OpenAI-compatible model server for tests: a real HTTP server on a free port
that answers `POST /v1/chat/completions` (plain and streamed) the way a test scripts it.

Every LLM step of the mesh is a DSPy module calling litellm; pointing it at this server
(`model="openai/scripted"`, `api_base=server.url + "/v1"`) exercises the real path — the
HTTP request, the adapter's parsing, streaming chunks — instead of DSPy's in-process fake.

    async with ScriptedModel() as model:
        model.reply(when="parameter", text=dspy_fields(values='{"regNr": "123ABC"}'))
        model.reply(text="[[ ## answer ## ]]\\nHello\\n\\n[[ ## completed ## ]]", stream=True)
        ... model.url ...
        assert model.calls == 2

A rule answers the first request whose messages contain `when` (any request when empty),
once (`times=1`, default) or always (`times=None`). A rule can answer with an HTTP error
(`status=429`/`500`), after a delay (`delay`), streamed in chunks (`stream=True`, the
server streams only when the client asks), or with a body that is not what the adapter
expects (`text="garbage"`). A request no rule answers gets 500 "no scripted reply", so a
test sees any call it did not expect.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from devtools.launcher.inprocess import serve_asgi


def dspy_fields(**fields: str) -> str:
    """A reply in DSPy's ChatAdapter format: one `[[ ## name ## ]]` section per output field."""
    sections = [f"[[ ## {name} ## ]]\n{value}" for name, value in fields.items()]
    return "\n\n".join([*sections, "[[ ## completed ## ]]"])


@dataclass
class Rule:
    when: str
    text: str
    times: int | None
    status: int = 200
    delay: float = 0.0
    stream: bool = False
    chunk_chars: int = 8
    used: int = 0

    def matches(self, prompt: str) -> bool:
        exhausted = self.times is not None and self.used >= self.times
        return not exhausted and (not self.when or self.when in prompt)


@dataclass
class Received:
    """One request the server got: its messages joined, and whether it asked to stream."""

    prompt: str
    stream: bool
    body: dict[str, Any]


@dataclass
class ScriptedModel:
    rules: list[Rule] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    url: str = ""

    def reply(
        self,
        text: str = "",
        *,
        when: str = "",
        times: int | None = 1,
        status: int = 200,
        delay: float = 0.0,
        stream: bool = False,
        chunk_chars: int = 8,
    ) -> Rule:
        rule = Rule(when, text, times, status, delay, stream, chunk_chars)
        self.rules.append(rule)
        return rule

    @property
    def calls(self) -> int:
        return len(self.received)

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1"

    async def __aenter__(self) -> ScriptedModel:
        self._serving = serve_asgi(self.app())
        self.url = await self._serving.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._serving.__aexit__(*exc)

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self._completions, methods=["POST"])])

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        prompt = "\n".join(_content(m) for m in body.get("messages", []))
        wants_stream = bool(body.get("stream"))
        self.received.append(Received(prompt, wants_stream, body))
        rule = next((r for r in self.rules if r.matches(prompt)), None)
        if rule is None:
            return JSONResponse({"error": {"message": "no scripted reply", "type": "server_error"}}, 500)
        rule.used += 1
        if rule.delay:
            await asyncio.sleep(rule.delay)
        if rule.status != 200:
            return JSONResponse(
                {"error": {"message": f"scripted {rule.status}", "type": "scripted_error"}}, rule.status
            )
        model = str(body.get("model", "scripted"))
        if wants_stream:
            chunks = _stream_chunks(rule.text, rule.chunk_chars if rule.stream else len(rule.text) or 1)
            return StreamingResponse(_sse(model, chunks), media_type="text/event-stream")
        return JSONResponse(_completion(model, rule.text))


def _content(message: dict[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, list):  # content parts
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": max(1, len(text) // 4), "total_tokens": 2},
    }


def _stream_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def _sse(model: str, pieces: list[str]) -> AsyncIterator[bytes]:
    completion_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict[str, str], finish: str | None) -> bytes:
        payload = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(payload)}\n\n".encode()

    yield chunk({"role": "assistant"}, None)
    for piece in pieces:
        yield chunk({"content": piece}, None)
        # A real model writes over time: give the reader a chance to see each piece.
        await asyncio.sleep(0)
    yield chunk({}, "stop")
    yield b"data: [DONE]\n\n"
