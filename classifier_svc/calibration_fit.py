"""Fitting a calibration profile from scored evaluation cases.

For one score kind the decision is `score(best) + w × gap ≥ accept` (see
classifier_svc/api_matcher.py). For each lead weight `w` on a small grid, `accept` is the
lowest value that still rejects the wanted share of out-of-scope cases; the weight that
keeps the most in-scope cases right wins. Few numbers, fitted on many cases: a profile
generalises to catalogues it has not seen better than a model with many features.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.calibration import ScoreThresholds

GAP_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


@dataclass(frozen=True)
class ScoredCase:
    # Score of the best candidate on its own scale, and its lead over the runner-up.
    score: float
    gap: float
    # True when the best candidate is the expected endpoint (or an accepted sibling).
    correct: bool
    # True for an out-of-scope case (expected null).
    out_of_scope: bool


@dataclass(frozen=True)
class Fit:
    thresholds: ScoreThresholds
    in_scope_accuracy: float
    oos_recall: float


def fit_thresholds(cases: Sequence[ScoredCase], oos_recall: float) -> Fit:
    in_scope = [c for c in cases if not c.out_of_scope]
    oos = [c for c in cases if c.out_of_scope]
    if not in_scope or not oos:
        raise ValueError("fitting needs in-scope and out-of-scope cases")
    best: Fit | None = None
    for weight in GAP_WEIGHTS:
        values = sorted(c.score + weight * c.gap for c in oos)
        # Reject at least `oos_recall` of the OOS cases: accept above the matching order statistic.
        k = min(len(values) - 1, max(0, math.ceil(oos_recall * len(values)) - 1))
        accept = values[k] + 1e-6
        right = sum(1 for c in in_scope if c.correct and c.score + weight * c.gap >= accept)
        recall = sum(1 for c in oos if c.score + weight * c.gap < accept) / len(oos)
        fit = Fit(ScoreThresholds(accept=round(accept, 6), gap_weight=weight), right / len(in_scope), recall)
        if best is None or fit.in_scope_accuracy > best.in_scope_accuracy:
            best = fit
    assert best is not None
    return best
