"""The remote embedder through litellm, against a real OpenAI-compatible HTTP server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from indexer_svc.embeddings import open_embedder
from tests.support import serve_asgi

DIM = 8


def _vector(text: str) -> list[float]:
    # Deterministic and text-dependent: the letter counts of the first DIM letters a..h.
    return [float(text.lower().count(ch)) for ch in "abcdefgh"[:DIM]]


async def _embeddings(request: Request) -> JSONResponse:
    body = await request.json()
    request.app.state.requests.append({"body": body, "auth": request.headers.get("authorization")})
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    size = body.get("dimensions") or DIM
    return JSONResponse(
        {
            "object": "list",
            "model": body["model"],
            "data": [
                {"object": "embedding", "index": i, "embedding": (_vector(text) + [0.0] * size)[:size]}
                for i, text in enumerate(inputs)
            ],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    )


@pytest.fixture()
async def embeddings_server() -> AsyncIterator[tuple[str, Starlette]]:
    app = Starlette(routes=[Route("/v1/embeddings", _embeddings, methods=["POST"])])
    app.state.requests = []
    async with serve_asgi(app, lifespan="off") as url:
        yield f"{url}/v1", app


async def test_litellm_embedder_probes_dimension_and_embeds(embeddings_server: tuple[str, Starlette]) -> None:
    api_base, app = embeddings_server
    embedder = await open_embedder(
        "litellm", model="openai/text-embedding-3-small", api_base=api_base, api_key="sk-test"
    )
    assert embedder.dimension == DIM
    assert embedder.model_name == "openai/text-embedding-3-small"
    vectors = await embedder.embed_passages(["abba", "ceded"])
    assert vectors == [_vector("abba"), _vector("ceded")]
    assert await embedder.embed_queries(["hhh"]) == [_vector("hhh")]
    assert app.state.requests[-1]["auth"] == "Bearer sk-test"
    assert app.state.requests[-1]["body"]["model"] == "text-embedding-3-small"


async def test_litellm_embedder_bounds_its_input(embeddings_server: tuple[str, Starlette]) -> None:
    from indexer_svc.embeddings.litellm_embedder import LiteLLMEmbedder

    api_base, app = embeddings_server
    embedder = LiteLLMEmbedder(
        "openai/text-embedding-3-small",
        api_base=api_base,
        api_key="sk-test",
        dimension=DIM,
        max_input_chars=100,
    )
    await embedder.embed_queries(["a" * 10_000])
    assert app.state.requests[-1]["body"]["input"] == ["a" * 100]
