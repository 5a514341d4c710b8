"""Plain data types the vector index speaks; no Qdrant types leak past the backends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "sparse"
# RRF constant of the embedded backend (Qdrant server's default too). qdrant-client's
# local mode fixes k=2, so fused scores differ by backend: compare ranks, not scores.
RRF_K = 60


@dataclass(frozen=True)
class SparseVector:
    """Sorted term indices with their weights (term frequencies; IDF is applied by Qdrant)."""

    indices: list[int]
    values: list[float]

    def __bool__(self) -> bool:
        return bool(self.indices)


@dataclass(frozen=True)
class IndexPoint:
    id: str
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]


@dataclass(frozen=True)
class StoredPoint:
    id: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Page:
    points: list[StoredPoint]
    # Opaque: the id to continue from, None on the last page.
    next_offset: str | None


@dataclass(frozen=True)
class ScoredPoint:
    id: str
    # Cosine of the query and the stored dense vector (exact, also for sparse-only hits).
    dense_cosine: float
    # 1-based position in the RRF fusion of the dense and sparse candidate lists.
    hybrid_rank: int
    hybrid_score: float
    payload: dict[str, Any]


@dataclass(frozen=True)
class PayloadFilter:
    """Points whose payload field equals the value, for every pair (AND)."""

    equals: Mapping[str, str | int | bool] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.equals)
