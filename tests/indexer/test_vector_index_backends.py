"""One VectorIndex suite, run against both backends (embedded qdrant-edge; qdrant-client
local mode). Fused scores differ by backend (RRF k=60 vs k=2), so it asserts ids and ranks."""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from indexer_svc.vector_index import (
    IndexPoint,
    PayloadFilter,
    SparseVector,
    VectorIndex,
    open_vector_index,
)
from indexer_svc.vector_index.edge_index import EdgeVectorIndex, PayloadCache

COLLECTION = "endpoints"
DIM = 4

A, B, C, D = (str(uuid.UUID(int=n)) for n in (1, 2, 3, 4))


def _point(point_id: str, dense: list[float], terms: dict[int, float], **payload: object) -> IndexPoint:
    indices = sorted(terms)
    return IndexPoint(
        id=point_id,
        dense=dense,
        sparse=SparseVector(indices=indices, values=[terms[i] for i in indices]),
        payload={"id": point_id, **payload},
    )


POINTS = [
    _point(A, [1.0, 0.0, 0.0, 0.0], {10: 1.0}, service_id="s1", name="a"),
    _point(B, [0.8, 0.6, 0.0, 0.0], {11: 1.0}, service_id="s1", name="b"),
    _point(C, [0.0, 1.0, 0.0, 0.0], {12: 1.0}, service_id="s2", name="c"),
    # Far from every dense query below; only its rare term 99 can bring it in.
    _point(D, [0.0, 0.0, 0.0, 1.0], {99: 2.0}, service_id="s2", name="d"),
]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(params=["edge", "qdrant"])
async def index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorIndex]:
    if request.param == "edge":
        opened = open_vector_index("edge", data_dir=tmp_path / "index")
    else:
        opened = open_vector_index("qdrant", qdrant_url="", data_dir="")
    await opened.ensure_collection(COLLECTION, DIM)
    try:
        yield opened
    finally:
        await opened.close()


async def test_create_upsert_count_get(index: VectorIndex) -> None:
    assert await index.count(COLLECTION) == 0
    await index.upsert(COLLECTION, POINTS)
    assert await index.count(COLLECTION) == 4
    stored = await index.get(COLLECTION, [B, str(uuid.UUID(int=77))])
    assert [(p.id, p.payload["name"]) for p in stored] == [(B, "b")]


async def test_ensure_collection_is_idempotent(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS[:1])
    await index.ensure_collection(COLLECTION, DIM)
    assert await index.count(COLLECTION) == 1


async def test_reindex_same_id_replaces_point_and_payload(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    await index.upsert(COLLECTION, [_point(A, [0.0, 0.0, 1.0, 0.0], {13: 1.0}, service_id="s9", name="a2")])
    assert await index.count(COLLECTION) == 4
    [stored] = await index.get(COLLECTION, [A])
    assert stored.payload == {"id": A, "service_id": "s9", "name": "a2"}
    hits = await index.search(COLLECTION, dense=[0.0, 0.0, 1.0, 0.0], sparse=None, limit=1, candidates=4)
    assert hits[0].id == A
    assert hits[0].dense_cosine == pytest.approx(1.0, abs=1e-5)


async def test_delete(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    await index.delete(COLLECTION, [A, C])
    assert await index.count(COLLECTION) == 2
    assert await index.get(COLLECTION, [A, C]) == []


async def test_dense_ordering_with_real_cosines(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    query = [0.9, 0.3, 0.1, 0.0]
    hits = await index.search(COLLECTION, dense=query, sparse=None, limit=3, candidates=4)
    assert [h.id for h in hits] == [B, A, C]
    assert [h.hybrid_rank for h in hits] == [1, 2, 3]
    by_id = {p.id: p for p in POINTS}
    for hit in hits:
        assert hit.dense_cosine == pytest.approx(_cosine(query, by_id[hit.id].dense), abs=1e-5)
    assert hits[0].hybrid_score >= hits[1].hybrid_score >= hits[2].hybrid_score
    assert hits[0].payload["name"] == "b"


async def test_hybrid_brings_in_a_sparse_only_keyword_hit(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    query = [1.0, 0.2, 0.0, 0.0]
    dense_only = await index.search(COLLECTION, dense=query, sparse=None, limit=2, candidates=2)
    assert D not in {h.id for h in dense_only}

    hits = await index.search(
        COLLECTION, dense=query, sparse=SparseVector(indices=[99], values=[1.0]), limit=3, candidates=2
    )
    ids = [h.id for h in hits]
    assert D in ids
    # D is first in the sparse list and absent from the dense one: it ties A (dense first)
    # on RRF score, ahead of B (dense second).
    assert set(ids[:2]) == {A, D}
    assert ids[2] == B
    d_hit = hits[ids.index(D)]
    # Its cosine comes from its stored vector, not 0.
    assert d_hit.dense_cosine == pytest.approx(_cosine(query, POINTS[3].dense), abs=1e-5)
    assert d_hit.hybrid_rank == ids.index(D) + 1
    # The tie now goes to the higher cosine: A, whatever order they were stored in.
    assert ids[:2] == [A, D]


@pytest.mark.parametrize("stored_first", ["near", "far"])
async def test_an_rrf_tie_goes_to_the_higher_cosine_whatever_the_storage_order(
    index: VectorIndex, stored_first: str
) -> None:
    # Near is first by cosine and second by keyword weight, far the other way round: their RRF
    # scores are equal, and a search for one hit must return near on both backends.
    near = _point(A, [1.0, 0.1, 0.0, 0.0], {7: 0.5}, name="near")
    far = _point(B, [1.0, 0.5, 0.0, 0.0], {7: 1.0}, name="far")
    await index.upsert(COLLECTION, [near, far] if stored_first == "near" else [far, near])
    sparse = SparseVector(indices=[7], values=[1.0])
    (best,) = await index.search(COLLECTION, dense=[1.0, 0.0, 0.0, 0.0], sparse=sparse, limit=1, candidates=5)
    assert best.payload["name"] == "near"
    both = await index.search(COLLECTION, dense=[1.0, 0.0, 0.0, 0.0], sparse=sparse, limit=2, candidates=5)
    assert [h.payload["name"] for h in both] == ["near", "far"]
    assert both[0].hybrid_score == pytest.approx(both[1].hybrid_score)


async def test_payload_filter_on_service_id(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    only_s2 = PayloadFilter({"service_id": "s2"})
    hits = await index.search(
        COLLECTION,
        dense=[0.1, 1.0, 0.0, 0.0],
        # A's term: A would win on both sides if the filter did not drop it.
        sparse=SparseVector(indices=[10], values=[1.0]),
        limit=4,
        candidates=4,
        where=only_s2,
    )
    assert {h.id for h in hits} == {C, D}
    assert hits[0].id == C
    assert await index.count(COLLECTION, only_s2) == 2


async def test_scroll_pages_through_everything_once(index: VectorIndex) -> None:
    await index.upsert(COLLECTION, POINTS)
    seen: list[str] = []
    offset = None
    pages = 0
    while True:
        page = await index.scroll(COLLECTION, limit=3, offset=offset)
        seen.extend(p.id for p in page.points)
        pages += 1
        if page.next_offset is None:
            break
        offset = page.next_offset
    assert sorted(seen) == sorted([A, B, C, D])
    assert pages == 2

    filtered = await index.scroll(COLLECTION, limit=10, where=PayloadFilter({"service_id": "s1"}))
    assert sorted(p.id for p in filtered.points) == [A, B]
    assert filtered.next_offset is None


async def test_edge_shards_persist_across_reopen(tmp_path: Path) -> None:
    first = EdgeVectorIndex(tmp_path / "index")
    await first.ensure_collection(COLLECTION, DIM)
    await first.upsert(COLLECTION, POINTS)
    await first.close()

    reopened = EdgeVectorIndex(tmp_path / "index")
    try:
        await reopened.ensure_collection(COLLECTION, DIM)
        assert await reopened.count(COLLECTION) == 4
    finally:
        await reopened.close()


async def test_edge_temporary_root_is_removed_on_close() -> None:
    index = EdgeVectorIndex(":memory:")
    await index.ensure_collection(COLLECTION, DIM)
    root = index.root
    assert root.is_dir()
    await index.close()
    assert not root.exists()


class _CountingShard:
    """An edge shard that counts the payloads read from it (by queries and retrieves)."""

    def __init__(self, shard: object) -> None:
        self._shard = shard
        self.payloads_read = 0

    def query(self, request: object) -> list[object]:
        points = self._shard.query(request)  # type: ignore[attr-defined]
        self.payloads_read += sum(1 for p in points if p.payload)
        return list(points)

    def retrieve(
        self, ids: list[object], with_payload: object = None, with_vector: object = None
    ) -> list[object]:
        records = self._shard.retrieve(ids, with_payload, with_vector)  # type: ignore[attr-defined]
        self.payloads_read += sum(1 for r in records if r.payload)
        return list(records)

    def __getattr__(self, name: str) -> object:
        return getattr(self._shard, name)


async def _counting_edge(payloads: PayloadCache | None = None) -> tuple[EdgeVectorIndex, _CountingShard]:
    index = EdgeVectorIndex(":memory:", payloads=payloads)
    await index.ensure_collection(COLLECTION, DIM)
    await index.upsert(COLLECTION, POINTS)
    shard = _CountingShard(index._shards[COLLECTION])
    index._shards[COLLECTION] = shard  # type: ignore[assignment]
    return index, shard


async def test_edge_reads_a_hits_payload_once_across_searches() -> None:
    index, shard = await _counting_edge()
    try:
        # No two hits tie on RRF score (the shard orders a tie either way).
        sparse = SparseVector(indices=[12], values=[1.0])
        first = await index.search(
            COLLECTION, dense=[1.0, 0.2, 0.0, 0.0], sparse=sparse, limit=3, candidates=4
        )
        assert shard.payloads_read == 3
        for _ in range(5):
            again = await index.search(
                COLLECTION, dense=[1.0, 0.2, 0.0, 0.0], sparse=sparse, limit=3, candidates=4
            )
            assert again == first
        assert shard.payloads_read == 3
    finally:
        await index.close()


async def test_edge_search_results_equal_with_and_without_kept_payloads() -> None:
    kept, _ = await _counting_edge()
    uncached, reads = await _counting_edge(PayloadCache(max_entries=0))
    try:
        queries = [[1.0, 0.2, 0.0, 0.0], [0.9, 0.3, 0.1, 0.0], [0.0, 0.1, 0.2, 1.0]] * 2
        for query in queries:
            sparse = SparseVector(indices=[12], values=[1.0])
            expected = await uncached.search(COLLECTION, dense=query, sparse=sparse, limit=4, candidates=4)
            assert (
                await kept.search(COLLECTION, dense=query, sparse=sparse, limit=4, candidates=4) == expected
            )
        assert reads.payloads_read == 4 * len(queries)  # nothing kept: every hit read each time
    finally:
        await kept.close()
        await uncached.close()


async def test_edge_kept_payload_follows_reindexing_and_deletion() -> None:
    index, _ = await _counting_edge()
    try:
        query = [1.0, 0.0, 0.0, 0.0]
        assert (await index.search(COLLECTION, dense=query, sparse=None, limit=1, candidates=4))[0].payload[
            "name"
        ] == "a"
        await index.upsert(COLLECTION, [_point(A, [1.0, 0.0, 0.0, 0.0], {10: 1.0}, name="a2")])
        [hit] = await index.search(COLLECTION, dense=query, sparse=None, limit=1, candidates=4)
        assert hit.payload == {"id": A, "name": "a2"}
        hit.payload["name"] = "changed by a caller"
        [hit] = await index.search(COLLECTION, dense=query, sparse=None, limit=1, candidates=4)
        assert hit.payload["name"] == "a2"
        await index.delete(COLLECTION, [A])
        await index.upsert(COLLECTION, [_point(A, [1.0, 0.0, 0.0, 0.0], {10: 1.0}, name="a3")])
        [hit] = await index.search(COLLECTION, dense=query, sparse=None, limit=1, candidates=4)
        assert hit.payload["name"] == "a3"
    finally:
        await index.close()


def test_payload_cache_is_bounded_oldest_first() -> None:
    cache = PayloadCache(max_entries=2)
    for n in range(3):
        cache.put(COLLECTION, str(n), {"n": n})
    assert cache.get(COLLECTION, "0") is None
    assert [cache.get(COLLECTION, str(n)) for n in (1, 2)] == [{"n": 1}, {"n": 2}]
