"""Fitting a calibration profile from scored evaluation cases.

For one score kind the decision is `score(best) + w × gap ≥ accept` (see
classifier_svc/api_matcher.py). For each lead weight `w` on a small grid, `accept` is the
lowest value that still rejects the wanted share of out-of-scope cases — of every
catalogue's own (a case's `group`), not of all of them pooled: a catalogue whose negatives
are easy to reject (English chatter against an Estonian public-service catalogue) must
not carry one whose negatives are hard; the weight that keeps the most in-scope cases
right wins. Few numbers, fitted on many cases: a profile
generalises to catalogues it has not seen better than a model with many features.

The weak-match rule is fitted with them (`fit_with_weak_match`): an accepted match whose
evidence is below `weak` and whose endpoint shares no word with a message of at least
`min_question_words` content words opens no session (the router asks to confirm it or
lets the knowledge base answer). A confirmation is no wrong call, so for OOS cases it
counts as a rejection, and for in-scope ones as a miss; the rule must also be right more
often than not where it fires (`min_weak_precision` of the matches it holds back are
wrong ones), so it fires on real weak matches, not on clear questions that happen to
share no word with an endpoint's text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.calibration import ScoreThresholds

GAP_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
WEAK_EVIDENCE = tuple(round(0.0025 * i, 4) for i in range(17))
WEAK_QUESTION_WORDS = (1, 2, 3, 4)
# A catalogue with fewer OOS cases than this is weighed with the others pooled, not alone.
MIN_GROUP = 30


@dataclass(frozen=True)
class ScoredCase:
    # Score of the best candidate on its own scale, and its lead over the runner-up.
    score: float
    gap: float
    # True when the best candidate is the expected endpoint (or an accepted sibling).
    correct: bool
    # True for an out-of-scope case (expected null).
    out_of_scope: bool
    # Words of the message in the best candidate's text, and the message's content words.
    matched_terms: int = 1
    query_terms: int = 1
    # The catalogue the case was searched in: the OOS share is reached in each.
    group: str = ""


@dataclass(frozen=True)
class WeakRule:
    evidence: float = 0.0
    min_question_words: int = 3

    def applies(self, case: ScoredCase) -> bool:
        """Whether the rule weighs this case at all (no shared word, enough words)."""
        return self.evidence > 0 and case.matched_terms == 0 and case.query_terms >= self.min_question_words


@dataclass(frozen=True)
class Fit:
    thresholds: ScoreThresholds
    in_scope_accuracy: float
    # The lowest OOS share rejected (or held back as weak) in any one catalogue.
    oos_recall: float
    weak: WeakRule = WeakRule()
    # Of the accepted matches the weak rule holds back, the share that are wrong.
    weak_precision: float = 0.0
    weak_fired: int = 0


def fit_thresholds(cases: Sequence[ScoredCase], oos_recall: float) -> Fit:
    return fit_with_weak_match(cases, oos_recall, weak_rules=(WeakRule(),))


def fit_with_weak_match(
    cases: Sequence[ScoredCase],
    oos_recall: float,
    *,
    weak_rules: Sequence[WeakRule] | None = None,
    min_weak_precision: float = 0.5,
) -> Fit:
    """The lead weight, acceptance threshold and weak-match rule that keep the most
    in-scope cases right while at least `oos_recall` of the OOS cases are rejected or
    held back as weak. Ties go to the rule that holds back fewer matches."""
    in_scope = [c for c in cases if not c.out_of_scope]
    oos = [c for c in cases if c.out_of_scope]
    if not in_scope or not oos:
        raise ValueError("fitting needs in-scope and out-of-scope cases")
    # No rule at all is always a candidate: when every rule is refused, thresholds alone remain.
    grid = weak_rules or [WeakRule(e, q) for e in WEAK_EVIDENCE for q in WEAK_QUESTION_WORDS]
    rules = list(dict.fromkeys([WeakRule(), *grid]))
    best: Fit | None = None
    for weight in GAP_WEIGHTS:
        for rule in rules:
            # A weak case passes only `rule.evidence` above the threshold: its value is lowered by it.
            def value(c: ScoredCase, rule: WeakRule = rule, weight: float = weight) -> float:
                return c.score + weight * c.gap - (rule.evidence if rule.applies(c) else 0.0)

            accept = max(_order_statistic([value(c) for c in group], oos_recall) for group in _groups(oos))
            fired = [
                c
                for c in cases
                if rule.applies(c) and c.score + weight * c.gap >= accept and value(c) < accept
            ]
            precision = sum(1 for c in fired if not c.correct) / len(fired) if fired else 1.0
            if fired and precision < min_weak_precision:
                continue
            right = sum(1 for c in in_scope if c.correct and value(c) >= accept)
            recall = min(sum(1 for c in group if value(c) < accept) / len(group) for group in _groups(oos))
            fit = Fit(
                ScoreThresholds(accept=round(accept, 6), gap_weight=weight),
                right / len(in_scope),
                recall,
                rule,
                precision,
                len(fired),
            )
            if best is None or (fit.in_scope_accuracy, -fit.weak_fired) > (
                best.in_scope_accuracy,
                -best.weak_fired,
            ):
                best = fit
    assert best is not None
    return best


def _groups(oos: Sequence[ScoredCase]) -> list[list[ScoredCase]]:
    """OOS cases per catalogue; the catalogues with too few to weigh alone pooled."""
    by: dict[str, list[ScoredCase]] = {}
    for case in oos:
        by.setdefault(case.group, []).append(case)
    groups = [g for g in by.values() if len(g) >= MIN_GROUP]
    rest = [c for g in by.values() if len(g) < MIN_GROUP for c in g]
    if rest and (len(rest) >= MIN_GROUP or not groups):
        groups.append(rest)
    return groups


def _order_statistic(values: list[float], oos_recall: float) -> float:
    """The lowest acceptance threshold that rejects at least `oos_recall` of `values`."""
    values = sorted(values)
    k = min(len(values) - 1, max(0, math.ceil(oos_recall * len(values)) - 1))
    return values[k] + 1e-6
