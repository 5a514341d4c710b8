"""The port the indexer talks to; backends: qdrant-edge (embedded) and qdrant-client."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from indexer_svc.vector_index.models import (
    IndexPoint,
    Page,
    PayloadFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
)


class VectorIndex(Protocol):
    """Collections of points with one dense vector ("dense", cosine) and one sparse
    vector ("sparse", IDF modifier). Point ids are UUID strings."""

    async def ensure_collection(self, name: str, dense_size: int) -> None:
        """Create the collection, or open it when it exists (its vector size must match)."""
        ...

    async def upsert(self, collection: str, points: Sequence[IndexPoint]) -> None:
        """Insert, or replace (vectors and payload) the points with the same ids."""
        ...

    async def delete(self, collection: str, ids: Sequence[str]) -> None: ...

    async def get(self, collection: str, ids: Sequence[str]) -> list[StoredPoint]:
        """The points that exist, in no particular order."""
        ...

    async def count(self, collection: str, where: PayloadFilter | None = None) -> int: ...

    async def scroll(
        self, collection: str, *, limit: int, offset: str | None = None, where: PayloadFilter | None = None
    ) -> Page: ...

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
        """Hybrid search: `candidates` dense and `candidates` sparse hits fused with RRF,
        best `limit` returned in fused order, each with its real dense cosine."""
        ...

    async def close(self) -> None: ...
