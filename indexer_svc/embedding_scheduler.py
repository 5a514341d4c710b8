"""One queue in front of the embedding model: chat before bulk indexing, coinciding calls
batched.

The model embeds one call at a time (the local engine holds a lock; a remote one is paid
per request), so whoever queues first waits least. Without this, a search behind a bulk
upload waits for every passage queued before it. Here:

- calls come through one of two views: `foreground` (searches, the Embed RPC: a person
  is waiting) and `background` (indexing). The runner always takes foreground work
  first; background lists are cut into small chunks so a search waits at most one chunk.
- while people are chatting (a foreground call within the last `busy_window_seconds`),
  bulk indexing also leaves the CPU to them: after each background chunk the next one
  waits `background_yield` × the chunk's own time (searches arriving meanwhile are served
  at once; on 2 cores the model's threads otherwise take the CPU the chat's other steps
  need). When nobody is chatting, indexing runs at full speed.
- foreground calls of the same kind (query or passage) that are waiting together go to
  the model as one batch (one forward pass over several texts costs less than one per
  text). An optional gather window lets calls that arrive within a few milliseconds of
  an idle model join the same batch; its sleep is injected so tests need no clock.

The runner is a task that lives while there is work: the first call to an idle scheduler
starts it and it ends when the queue is empty (nothing to close, any event loop).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from indexer_svc.embeddings import Embedder
from services.runtime.telemetry import DomainMetrics, NoMetrics

Sleep = Callable[[float], Awaitable[None]]


class Priority(IntEnum):
    FOREGROUND = 0
    BACKGROUND = 1


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    is_query: bool = field(compare=False)
    texts: list[str] = field(compare=False)
    done: asyncio.Future[list[list[float]]] = field(compare=False)


@dataclass
class SchedulerStats:
    """What the runner did: model calls, texts embedded, and how many calls were merged."""

    model_calls: int = 0
    texts: int = 0
    batched_calls: int = 0
    background_chunks: int = 0
    background_pauses: int = 0


class EmbeddingScheduler:
    def __init__(
        self,
        embedder: Embedder,
        *,
        max_batch: int = 32,
        background_chunk: int = 4,
        gather_seconds: float = 0.0,
        background_yield: float = 0.0,
        busy_window_seconds: float = 1.0,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        telemetry: DomainMetrics | None = None,
    ) -> None:
        if max_batch < 1 or background_chunk < 1 or min(gather_seconds, background_yield) < 0:
            raise ValueError("max_batch and background_chunk must be ≥ 1, the times ≥ 0")
        self._embedder = embedder
        # `embedding_model_calls{priority, batched}` and `embedding_texts{priority}`.
        self._metrics = telemetry or NoMetrics()
        self._max_batch = max_batch
        self._background_chunk = background_chunk
        self._gather_seconds = gather_seconds
        self._sleep = sleep
        self._clock = clock
        self._background_yield = background_yield
        self._busy_window = busy_window_seconds
        self._last_foreground = -float("inf")
        # Indexing chunks wait until then (set after a chunk while people chat).
        self._background_resume_at = -float("inf")
        self._foreground_arrived = asyncio.Event()
        self._pending: list[_Job] = []
        self._seq = itertools.count()
        self._runner: asyncio.Task[None] | None = None
        self.stats = SchedulerStats()
        self.foreground: Embedder = _View(self, Priority.FOREGROUND)
        self.background: Embedder = _View(self, Priority.BACKGROUND)

    @property
    def model_name(self) -> str:
        return self._embedder.model_name

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    @property
    def queued(self) -> int:
        return len(self._pending)

    async def embed(self, texts: Sequence[str], *, is_query: bool, priority: Priority) -> list[list[float]]:
        if not texts:
            return []
        size = self._background_chunk if priority is Priority.BACKGROUND else self._max_batch
        vectors: list[list[float]] = []
        # One chunk at a time: a search that arrives meanwhile goes before the next chunk.
        for start in range(0, len(texts), size):
            vectors += await self._submit(list(texts[start : start + size]), is_query, priority)
        return vectors

    async def _submit(self, texts: list[str], is_query: bool, priority: Priority) -> list[list[float]]:
        loop = asyncio.get_running_loop()
        job = _Job(int(priority), next(self._seq), is_query, texts, loop.create_future())
        self._pending.append(job)
        self._pending.sort()
        if priority is Priority.FOREGROUND:
            self._foreground_arrived.set()
        if self._runner is None or self._runner.done() or self._runner.get_loop() is not loop:
            self._runner = loop.create_task(self._run(), name="embedding-scheduler")
        return await job.done

    def _take(self, background_allowed: bool = True) -> list[_Job]:
        """The next model call: the first job in priority order, and (foreground only)
        every waiting job of the same priority and kind that fits in one batch."""
        self._pending = [job for job in self._pending if not job.done.done()]  # cancelled callers
        if not self._pending:
            return []
        head = self._pending[0]
        if head.priority == Priority.BACKGROUND and not background_allowed:
            return []
        batch = [head]
        if head.priority == Priority.FOREGROUND:
            size = len(head.texts)
            for job in self._pending[1:]:
                if job.priority != head.priority or job.is_query != head.is_query:
                    continue
                if size + len(job.texts) > self._max_batch:
                    break
                batch.append(job)
                size += len(job.texts)
        taken = {id(job) for job in batch}
        self._pending = [job for job in self._pending if id(job) not in taken]
        return batch

    async def _run(self) -> None:
        self._foreground_arrived = asyncio.Event()  # of this runner's event loop
        # Started by a call to an idle model: give calls arriving together a moment to join.
        if self._gather_seconds > 0 and self._pending and self._pending[0].priority == Priority.FOREGROUND:
            await self._sleep(self._gather_seconds)
        while True:
            now = self._clock()
            batch = self._take(background_allowed=now >= self._background_resume_at)
            if not batch:
                if not self._pending:
                    return
                # Only indexing waits, and it is still yielding: pause until it may go on
                # (a search arriving meanwhile is served at once).
                self.stats.background_pauses += 1
                await self._pause(self._background_resume_at - now)
                continue
            started = self._clock()
            await self._embed_batch(batch)
            finished = self._clock()
            if batch[0].priority == Priority.FOREGROUND:
                self._last_foreground = finished
            elif self._background_yield > 0 and finished - self._last_foreground < self._busy_window:
                self._background_resume_at = finished + (finished - started) * self._background_yield

    async def _pause(self, seconds: float) -> None:
        """Sleep `seconds`, or less: a search arriving meanwhile ends the pause."""
        self._foreground_arrived.clear()
        sleeping = asyncio.ensure_future(self._sleep(seconds))
        arrival = asyncio.ensure_future(self._foreground_arrived.wait())
        try:
            await asyncio.wait([sleeping, arrival], return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeping.cancel()
            arrival.cancel()

    async def _embed_batch(self, batch: list[_Job]) -> None:
        texts = [text for job in batch for text in job.texts]
        is_query = batch[0].is_query
        self.stats.model_calls += 1
        self.stats.texts += len(texts)
        self.stats.batched_calls += len(batch) > 1
        self.stats.background_chunks += batch[0].priority == Priority.BACKGROUND
        priority = Priority(batch[0].priority).name.lower()
        self._metrics.increment(
            "embedding_model_calls", priority=priority, batched=str(len(batch) > 1).lower()
        )
        self._metrics.increment("embedding_texts", len(texts), priority=priority)
        try:
            if is_query:
                vectors = await self._embedder.embed_queries(texts)
            else:
                vectors = await self._embedder.embed_passages(texts)
        except Exception as exc:  # every caller of the batch gets the model's error
            for job in batch:
                if not job.done.done():
                    job.done.set_exception(exc)
            return
        except BaseException:  # the runner itself is cancelled: so are the calls it carried
            for job in batch:
                job.done.cancel()
            raise
        start = 0
        for job in batch:
            end = start + len(job.texts)
            if not job.done.done():
                job.done.set_result(vectors[start:end])
            start = end


class _View:
    """The Embedder port at one priority."""

    def __init__(self, scheduler: EmbeddingScheduler, priority: Priority) -> None:
        self._scheduler = scheduler
        self._priority = priority

    @property
    def model_name(self) -> str:
        return self._scheduler.model_name

    @property
    def dimension(self) -> int:
        return self._scheduler.dimension

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._scheduler.embed(texts, is_query=True, priority=self._priority)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._scheduler.embed(texts, is_query=False, priority=self._priority)
