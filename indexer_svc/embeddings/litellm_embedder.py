"""Any embedding model litellm can reach (e.g. azure/text-embedding-3-large).

litellm is imported on first use (≈ 5 s): services running the local embedder never pay it.
Remote models embed queries and passages the same way, so both roles share one call.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any


class LiteLLMEmbedder:
    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        dimension: int | None = None,
        request_dimensions: bool = False,
        timeout_seconds: float = 30.0,
        max_input_chars: int = 8000,
    ) -> None:
        """`dimension`: the vector size when known; otherwise call `probe_dimension()` once.
        `request_dimensions`: send it as the `dimensions` parameter (text-embedding-3-* can
        shorten their vectors)."""
        self._model = model
        self._api_base = api_base or None
        self._api_key = api_key or None
        self._dimension = dimension
        self._request_dimensions = request_dimensions and dimension is not None
        self._timeout = timeout_seconds
        # No tokenizer offline: a character cut keeps an input within the model's token
        # window (text-embedding-3: 8,191) and its cost bounded, whatever a user sends.
        self._max_chars = max_input_chars

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            raise RuntimeError("embedding dimension unknown: call probe_dimension() first")
        return self._dimension

    async def probe_dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len((await self._embed(["dimension probe"]))[0])
        return self._dimension

    async def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        kwargs: dict[str, Any] = {"timeout": self._timeout}
        if self._api_base:
            kwargs["api_base"] = self._api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self._request_dimensions:
            kwargs["dimensions"] = self._dimension
        bounded = [text[: self._max_chars] for text in texts]
        response = await litellm.aembedding(model=self._model, input=bounded, **kwargs)
        rows = sorted(response.data, key=lambda row: row["index"])
        return [[float(x) for x in row["embedding"]] for row in rows]

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._embed(texts)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._embed(texts)
