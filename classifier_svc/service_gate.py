"""The two-signal gate for registered services and knowledge-adjacent layers.

Services are few and narrow and carry no example prototypes, so they keep the simple
gate: a dense cosine together with lexical evidence (the share of the query's content
words found, by stem, in the service's indexed text), or a very high cosine alone. The
endpoint router uses the calibrated prototype scoring in classifier_svc/api_matcher.py.
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
    # Cosine an endpoint needs, together with enough term coverage.
    minimum: float
    # Cosine (with two or more matched words and the gap) for a high-confidence match.
    high: float
    # Lead over the runner-up's cosine for a high-confidence match.
    gap: float
    # Share of the query's content words the endpoint must contain.
    min_term_coverage: float = 0.5
    # Cosine that makes an endpoint eligible without any word in common.
    dense_only: float = 0.88


@dataclass(frozen=True)
class Match:
    confidence: Confidence
    best: Candidate | None
    # Every eligible candidate, best first.
    plausible: tuple[Candidate, ...] = ()
    # Lead of the best candidate's cosine over the best other cosine.
    gap: float = 0.0


def is_eligible(candidate: Candidate, thresholds: Thresholds) -> bool:
    if candidate.dense_cosine >= thresholds.dense_only:
        return True
    return (
        candidate.dense_cosine >= thresholds.minimum
        and candidate.term_coverage >= thresholds.min_term_coverage
    )


def assess(candidates: list[Candidate], thresholds: Thresholds) -> Match:
    eligible = [c for c in candidates if is_eligible(c, thresholds)]
    if not eligible:
        return Match(Confidence.NONE, None)
    best = max(eligible, key=lambda c: c.dense_cosine)
    others = [c.dense_cosine for c in candidates if c is not best]
    gap = best.dense_cosine - max(others, default=0.0)
    plausible = (best, *(c for c in eligible if c is not best))
    strong = best.dense_cosine >= thresholds.high and best.matched_terms >= 2 and gap >= thresholds.gap
    return Match(Confidence.HIGH if strong else Confidence.MEDIUM, best, plausible, gap)
