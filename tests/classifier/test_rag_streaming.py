"""The grounded RAG answer streams as the model writes it: a real dspy.LM (litellm)
against a scripted OpenAI-compatible server on 127.0.0.1:0 that streams SSE chunks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from services.llm import prepare_llm_environment

prepare_llm_environment()

import dspy  # noqa: E402

from classifier_svc.passages import Source  # noqa: E402
from classifier_svc.rag_answer import RagAnswer, RagResponder  # noqa: E402
from classifier_svc.rag_dspy import DspyRagAnswerer  # noqa: E402
from classifier_svc.rag_extractive import ExtractiveAnswerer  # noqa: E402
from devtools.launcher.inprocess import serve_asgi  # noqa: E402
from tests.classifier.layer_support import passage  # noqa: E402

PIECES = [
    "[[ ## answer ## ]]\n",
    "Renew it ",
    "online in the ",
    "self-service portal [1].",
    "\n\n[[ ## completed ## ]]",
]


def _chunk(delta: dict[str, str], finish: str | None = None) -> str:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n"


async def completions(request: Request) -> Response:
    body = await request.json()
    if not body.get("stream"):
        message = {"role": "assistant", "content": "".join(PIECES)}
        return JSONResponse(
            {
                "id": "c1",
                "object": "chat.completion",
                "created": 1,
                "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }
        )

    async def events() -> AsyncIterator[str]:
        for piece in PIECES:
            yield _chunk({"content": piece})
        yield _chunk({}, "stop")
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


async def test_the_grounded_answer_streams_piece_by_piece_then_cites() -> None:
    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    async with serve_asgi(app) as url:
        # No response cache: a cached answer comes back whole, and this test is about streaming.
        lm = dspy.LM("openai/scripted", api_base=f"{url}/v1", api_key="test", engine="litellm", cache=False)
        responder = RagResponder(ExtractiveAnswerer(), DspyRagAnswerer(lm))
        id_card = passage("id-card.en", 0.9, title="Renewing an ID card", text="Renew it in the portal.")
        items = [item async for item in responder.stream("How do I renew my ID card?", [id_card], "en")]
    *pieces, final = items
    assert len(pieces) >= 3  # several pieces, not one answer at the end
    assert "".join(pieces) == "Renew it online in the self-service portal [1]."
    assert isinstance(final, RagAnswer) and final.llm_calls == 1
    assert final.sources == [Source("Renewing an ID card", "https://example.test/id-card.en")]
