"""Turns a fused candidate list into hits that carry a real dense cosine each.

The dense search only scores its own top candidates; a hit the sparse side brought in
gets its cosine from its stored dense vector (exact and one extra lookup, instead of a
second, filtered dense search per hit)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from indexer_svc.vector_index.models import ScoredPoint


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def missing_cosine_ids(fused_ids: Sequence[str], dense_cosines: Mapping[str, float]) -> list[str]:
    return [point_id for point_id in fused_ids if point_id not in dense_cosines]


def build_hits(
    fused: Sequence[tuple[str, float, dict[str, Any]]],
    dense_cosines: Mapping[str, float],
    stored_dense: Mapping[str, Sequence[float]],
    query: Sequence[float],
) -> list[ScoredPoint]:
    """`fused` is (id, rrf score, payload) in fused order."""

    def cosine_of(point_id: str) -> float:
        if point_id in dense_cosines:
            return float(dense_cosines[point_id])
        if point_id in stored_dense:
            return cosine(query, stored_dense[point_id])
        return 0.0

    return [
        ScoredPoint(
            id=point_id,
            dense_cosine=cosine_of(point_id),
            hybrid_rank=rank,
            hybrid_score=float(score),
            payload=payload,
        )
        for rank, (point_id, score, payload) in enumerate(fused, start=1)
    ]
