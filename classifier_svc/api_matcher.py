"""Score bands over catalogue candidates (seed: APISemanticSearcher steps 1–4).

Dense cosine decides whether anything matches and how confidently; the hybrid
(dense + sparse, RRF) rank breaks ties in the ambiguous band, where exact
words ("riigipühad", "vehicle tax") are stronger evidence than the embedding.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from classifier_svc.candidates import Candidate


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    NONE = "none"


@dataclass(frozen=True)
class Thresholds:
    minimum: float
    high: float
    gap: float


@dataclass(frozen=True)
class Match:
    confidence: Confidence
    best: Candidate | None
    # Every candidate at or above the minimum, best first.
    plausible: tuple[Candidate, ...] = ()

    @property
    def gap(self) -> float:
        if self.best is None or len(self.plausible) < 2:
            return 1.0
        return self.best.dense_cosine - self.plausible[1].dense_cosine


def assess(candidates: list[Candidate], thresholds: Thresholds) -> Match:
    if not candidates:
        return Match(Confidence.NONE, None)
    by_cosine = sorted(candidates, key=lambda c: c.dense_cosine, reverse=True)
    top = by_cosine[0]
    if top.dense_cosine < thresholds.minimum:
        return Match(Confidence.NONE, None)
    runner_up = by_cosine[1].dense_cosine if len(by_cosine) > 1 else 0.0
    if top.dense_cosine >= thresholds.high and top.dense_cosine - runner_up >= thresholds.gap:
        return Match(Confidence.HIGH, top, (top,))
    plausible = tuple(c for c in by_cosine if c.dense_cosine >= thresholds.minimum)
    # Ambiguous band: the best hybrid rank among the plausible ones wins.
    best = min(plausible, key=lambda c: c.hybrid_rank or 1_000_000)
    return Match(Confidence.MEDIUM, best, (best, *(c for c in plausible if c is not best)))
