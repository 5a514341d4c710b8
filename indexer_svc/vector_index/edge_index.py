"""Embedded Qdrant (qdrant-edge): one shard per collection, in a sub-folder of `root`.

qdrant-edge is synchronous. Reads and single-point writes take tens of microseconds to
well under a millisecond (hybrid query at 2k points: 0.3 ms), less than a thread hop
costs, so they run directly on the event loop; the event loop also serialises them, so
no lock is needed. Opening, flushing and closing touch the disk and run in a thread.

A search hit's payload is read from the shard once and then kept (`PayloadCache`): the
shard reads a point's whole stored payload for every hit (a field selector does not
spare it), and an endpoint's holds two vectors, so reading it was most of a search's
time. Every write to a shard goes through this object (the shard is embedded), so
`upsert` and `delete` drop what they replace and a kept payload is always the stored one.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from indexer_svc.vector_index.models import (
    DENSE_VECTOR,
    RRF_K,
    SPARSE_VECTOR,
    IndexPoint,
    Page,
    PayloadFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
)
from indexer_svc.vector_index.scoring import build_hits, fusion_limit, missing_cosine_ids, through_tie

log = logging.getLogger(__name__)


def _edge_filter(where: PayloadFilter | None) -> qe.Filter | None:
    if not where:
        return None
    return qe.Filter(
        must=[qe.FieldCondition(key=key, match=qe.MatchValue(value)) for key, value in where.equals.items()]
    )


# A catalogue is thousands of points, not millions: an exact scan costs less than an HNSW
# graph would (m=0 builds none), and vectors left on disk (Cold, read through the page
# cache) keep the indexer's resident memory to what a search touches.
_EXACT_SEARCH = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=1_000_000)
# Any stored segment is worth turning into an immutable one: only those honour Cold.
_OPTIMIZE_ALL = qe.EdgeOptimizersConfig(indexing_threshold=1)


def _edge_config(dense_size: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={
            DENSE_VECTOR: qe.EdgeVectorParams(
                size=dense_size, distance=qe.Distance.Cosine, memory=qe.Memory.Cold
            )
        },
        sparse_vectors={
            SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=qe.Memory.Cold)
        },
        hnsw_config=_EXACT_SEARCH,
        optimizers=_OPTIMIZE_ALL,
    )


def _open_shard(path: Path, dense_size: int) -> qe.EdgeShard:
    config = _edge_config(dense_size)
    if path.is_dir() and any(path.iterdir()):
        # load() with a config checks it against the stored segments (a changed
        # embedding size fails here instead of at the first upsert).
        shard = qe.EdgeShard.load(str(path), config)
        # A shard written by the last run holds appendable segments, which live in RAM:
        # optimising them once at load leaves immutable, on-disk ones behind.
        shard.optimize()
        shard.flush()
        return shard
    return qe.EdgeShard.create(str(path), config)


class PayloadCache:
    """Stored payloads by (collection, point id), at most `max_entries` (the oldest go
    first). Callers get a copy of the top level; the values inside are shared and read-only."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}
        self._max_entries = max_entries

    def get(self, collection: str, point_id: str) -> dict[str, Any] | None:
        payload = self._entries.get((collection, point_id))
        return dict(payload) if payload is not None else None

    def put(self, collection: str, point_id: str, payload: dict[str, Any]) -> None:
        if self._max_entries <= 0:
            return
        while len(self._entries) >= self._max_entries:
            del self._entries[next(iter(self._entries))]
        self._entries[(collection, point_id)] = payload

    def drop(self, collection: str, point_ids: Sequence[str]) -> None:
        for point_id in point_ids:
            self._entries.pop((collection, point_id), None)

    def clear(self) -> None:
        self._entries.clear()


class EdgeVectorIndex:
    def __init__(self, root: str | Path | None, *, payloads: PayloadCache | None = None) -> None:
        """`root` None, "" or ":memory:" → a temporary folder removed on close."""
        self._payloads = payloads if payloads is not None else PayloadCache()
        if root in (None, "", ":memory:"):
            self._root = Path(tempfile.mkdtemp(prefix="atc-index-"))
            self._temporary = True
        else:
            self._root = Path(root)
            self._temporary = False
        self._shards: dict[str, qe.EdgeShard] = {}

    @property
    def root(self) -> Path:
        return self._root

    def _shard(self, collection: str) -> qe.EdgeShard:
        try:
            return self._shards[collection]
        except KeyError:
            raise KeyError(f"collection {collection!r} is not open; call ensure_collection first") from None

    async def ensure_collection(self, name: str, dense_size: int) -> None:
        if name in self._shards:
            return
        self._root.mkdir(parents=True, exist_ok=True)
        self._shards[name] = await asyncio.to_thread(_open_shard, self._root / name, dense_size)

    async def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        edge_points = [
            qe.Point(
                p.id,
                {
                    DENSE_VECTOR: list(p.dense),
                    SPARSE_VECTOR: qe.SparseVector(p.sparse.indices, p.sparse.values),
                },
                p.payload,
            )
            for p in points
        ]
        self._payloads.drop(collection, [p.id for p in points])
        self._shard(collection).update(qe.UpdateOperation.upsert_points(edge_points))

    async def delete(self, collection: str, ids: Sequence[str]) -> None:
        if ids:
            self._payloads.drop(collection, ids)
            self._shard(collection).update(qe.UpdateOperation.delete_points(list(ids)))

    async def get(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        if not ids:
            return []
        records = self._shard(collection).retrieve(list(ids), True, False)
        return [StoredPoint(id=str(r.id), payload=dict(r.payload or {})) for r in records]

    async def count(self, collection: str, where: PayloadFilter | None = None) -> int:
        return self._shard(collection).count(qe.CountRequest(exact=True, filter=_edge_filter(where)))

    async def scroll(
        self, collection: str, *, limit: int, offset: str | None = None, where: PayloadFilter | None = None
    ) -> Page:
        records, next_offset = self._shard(collection).scroll(
            qe.ScrollRequest(offset=offset, limit=limit, filter=_edge_filter(where), with_payload=True)
        )
        return Page(
            points=[StoredPoint(id=str(r.id), payload=dict(r.payload or {})) for r in records],
            next_offset=str(next_offset) if next_offset is not None else None,
        )

    async def search(
        self,
        collection: str,
        *,
        dense: Sequence[float],
        sparse: SparseVector | None,
        limit: int,
        candidates: int,
        where: PayloadFilter | None = None,
    ) -> list[ScoredPoint]:
        shard = self._shard(collection)
        edge_filter = _edge_filter(where)
        dense_query = qe.Query.Nearest(list(dense), using=DENSE_VECTOR)
        dense_hits = shard.query(qe.QueryRequest(limit=candidates, query=dense_query, filter=edge_filter))
        dense_cosines = {str(p.id): p.score for p in dense_hits}

        prefetches = [qe.Prefetch(limit=candidates, query=dense_query, filter=edge_filter)]
        if sparse:
            sparse_query = qe.Query.Nearest(
                qe.SparseVector(sparse.indices, sparse.values), using=SPARSE_VECTOR
            )
            prefetches.append(qe.Prefetch(limit=candidates, query=sparse_query, filter=edge_filter))
        fused_points = shard.query(
            qe.QueryRequest(
                limit=fusion_limit(candidates, len(prefetches)),
                prefetches=prefetches,
                # The stub types Fusion.Rrf apart from Fusion, which the query accepts.
                query=qe.Fusion.Rrf(k=RRF_K),  # type: ignore[arg-type]
                filter=edge_filter,
                with_payload=False,
            )
        )
        ranked = through_tie([(str(p.id), p.score) for p in fused_points], limit)
        payloads = self._hit_payloads(collection, shard, [point_id for point_id, _ in ranked])
        fused: list[tuple[str, float, dict[str, Any]]] = [
            (point_id, score, payloads.get(point_id, {})) for point_id, score in ranked
        ]
        missing = missing_cosine_ids([f[0] for f in fused], dense_cosines)
        stored: dict[str, list[float]] = {}
        if missing:
            ids: list[Any] = list(missing)
            for record in shard.retrieve(ids, False, [DENSE_VECTOR]):
                vectors = record.vector
                if isinstance(vectors, dict) and DENSE_VECTOR in vectors:
                    stored[str(record.id)] = list(vectors[DENSE_VECTOR])  # type: ignore[arg-type]
        return build_hits(fused, dense_cosines, stored, dense, limit)

    def _hit_payloads(
        self, collection: str, shard: qe.EdgeShard, ids: Sequence[str]
    ) -> dict[str, dict[str, Any]]:
        """The hits' stored payloads, from the cache; the shard is read for the others only."""
        found: dict[str, dict[str, Any]] = {}
        missing: list[Any] = []
        for point_id in ids:
            payload = self._payloads.get(collection, point_id)
            if payload is None:
                missing.append(point_id)
            else:
                found[point_id] = payload
        if missing:
            for record in shard.retrieve(missing, True, False):
                payload = dict(record.payload or {})
                self._payloads.put(collection, str(record.id), payload)
                found[str(record.id)] = dict(payload)
        return found

    async def close(self) -> None:
        self._payloads.clear()
        shards, self._shards = self._shards, {}
        for name, shard in shards.items():
            try:
                await asyncio.to_thread(shard.flush)
                await asyncio.to_thread(shard.close)
            except Exception:  # one failing shard must not keep the others open
                log.exception("closing shard %s failed", name)
        if self._temporary:
            await asyncio.to_thread(shutil.rmtree, self._root, True)
