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


# RRF scores are sums of 1/(k + rank): two points with swapped ranks tie exactly, up to
# the float rounding of the engine's sum, which this many digits absorbs.
_TIE_DIGITS = 9


def _tie_score(score: float) -> float:
    return round(float(score), _TIE_DIGITS)


def fusion_limit(candidates: int, prefetches: int) -> int:
    """How many fused points to ask the engine for: every candidate of every prefetch.

    The engine orders RRF ties by storage order, so a cut at `limit` inside a tie would pick
    whichever point happened to be stored first; asking for all of them lets `through_tie` and
    `build_hits` decide ties by cosine instead."""
    return candidates * max(prefetches, 1)


def through_tie(fused: Sequence[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """The first `limit` of `fused` (in fused order) and every later point tied with the last."""
    if len(fused) <= limit:
        return list(fused)
    kept = list(fused[:limit])
    edge = _tie_score(kept[-1][1]) if kept else None
    for point_id, score in fused[limit:]:
        if _tie_score(score) != edge:
            break
        kept.append((point_id, score))
    return kept


def build_hits(
    fused: Sequence[tuple[str, float, dict[str, Any]]],
    dense_cosines: Mapping[str, float],
    stored_dense: Mapping[str, Sequence[float]],
    query: Sequence[float],
    limit: int,
) -> list[ScoredPoint]:
    """The best `limit` of `fused` ((id, rrf score, payload)), ranked by RRF score, a tie
    going to the higher dense cosine, then to the smaller id: the same on both backends and
    whatever order the points were stored in."""

    def cosine_of(point_id: str) -> float:
        if point_id in dense_cosines:
            return float(dense_cosines[point_id])
        if point_id in stored_dense:
            return cosine(query, stored_dense[point_id])
        return 0.0

    scored = [(point_id, float(score), cosine_of(point_id), payload) for point_id, score, payload in fused]
    scored.sort(key=lambda hit: (-_tie_score(hit[1]), -hit[2], hit[0]))
    return [
        ScoredPoint(
            id=point_id,
            dense_cosine=dense_cosine,
            hybrid_rank=rank,
            hybrid_score=score,
            payload=payload,
        )
        for rank, (point_id, score, dense_cosine, payload) in enumerate(scored[:limit], start=1)
    ]
