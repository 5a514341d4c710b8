"""Calibrated scoring and rejection over catalogue candidates.

Each candidate is scored on its own scale: the cosine to its example prototype when the
endpoint has examples, else the cosine to its description (the two live on different
scales, so each has its own thresholds in the calibration profile). A candidate's
*margin* is its score minus its scale's acceptance threshold, which makes endpoints of
both kinds comparable; the best margin wins.

One calibrated decision accepts or rejects the best endpoint:

    evidence = margin(best) + gap_weight × (margin(best) − margin(runner-up))

and the best endpoint is accepted when evidence ≥ 0. The lead over the runner-up counts
because a short et/ru question scores low in absolute terms but still points clearly at
one endpoint; an unrelated question scores about the same against everything. There is
no word-coverage veto: on CLINC150 and SGD it rejected mostly short non-English questions
and long slot-filled messages, and bought nothing a threshold did not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from classifier_svc.calibration import CalibrationProfile, ScoreThresholds
from classifier_svc.candidates import Candidate

# Candidates within this margin of the best are "close": the disambiguator (with an LLM)
# chooses among them, and they are reported as plausible.
CLOSE_MARGIN = 0.01
# Evidence above this is a clear match: no disambiguation, no decomposition.
HIGH_EVIDENCE = 0.02


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    NONE = "none"


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    # The cosine on the candidate's own scale (prototype or description).
    score: float
    # score − the scale's acceptance threshold.
    margin: float


@dataclass(frozen=True)
class Match:
    confidence: Confidence
    best: Candidate | None
    # The best and every other candidate close to it, best first (even when rejected).
    plausible: tuple[Candidate, ...] = ()
    # Lead of the best margin over the runner-up's margin.
    gap: float = 0.0
    # margin + gap_weight × gap of the best candidate; accepted when ≥ 0.
    evidence: float = float("-inf")
    score: float = 0.0
    # The best candidate even when rejected (for reports and the decomposer gate).
    top: Candidate | None = None


@dataclass(frozen=True)
class ConversationContext:
    """What the conversation before a message was about, as a boost per endpoint.

    "Yes, please" after "Should I book it for you?" names no domain: a table, a room, a
    car and a ticket all fit the offer equally well. The messages before it do name one.
    The earlier messages are searched as one text; every endpoint that text is itself an
    accepted match for boosts, by its margin there (> 0), itself and every endpoint of its
    API (`Candidate.api`): after a bus search, "buy the tickets" means the bus API's
    purchase, which the search messages themselves did not match.

    Among the message's candidates within `window` of its best margin, the one with the
    highest margin + weight × boost is chosen; acceptance stays the message's own
    decision, so context never turns a rejection into a call.
    """

    endpoint_boost: Mapping[str, float]
    api_boost: Mapping[str, float]
    weight: float = 1.0
    window: float = 0.03

    @classmethod
    def of(cls, ranked: Sequence[Scored], *, weight: float, window: float) -> ConversationContext | None:
        """The context of the conversation's own ranked candidates; None when it clearly
        matches nothing."""
        endpoint_boost: dict[str, float] = {}
        api_boost: dict[str, float] = {}
        for s in ranked:
            if s.margin <= 0:
                continue
            endpoint_boost[s.candidate.name] = s.margin  # `rank` keeps one entry per name
            api_boost[s.candidate.api] = max(s.margin, api_boost.get(s.candidate.api, 0.0))
        if not endpoint_boost:
            return None
        return cls(endpoint_boost, api_boost, weight, window)

    def boost(self, candidate: Candidate) -> float:
        return max(self.endpoint_boost.get(candidate.name, 0.0), self.api_boost.get(candidate.api, 0.0))

    def rerank(self, ranked: Sequence[Scored]) -> Scored:
        best = ranked[0]
        near = [s for s in ranked if best.margin - s.margin <= self.window]
        return max(near, key=lambda s: s.margin + self.weight * self.boost(s.candidate))


def has_rival(ranked: Sequence[Scored], window: float) -> bool:
    """Whether another candidate is within `window` of the best: only then can anything
    but the scores themselves change the choice."""
    return len(ranked) > 1 and ranked[0].margin - ranked[1].margin <= window


def read_first(ranked: Sequence[Scored], chosen: Scored, window: float) -> Scored:
    """With nothing in the conversation to go by, an endpoint that acts (books, buys) and
    one of the same API that looks up are a near tie: look up first. It is the step
    that comes first (a booking needs something found), and it costs nothing to undo;
    measured on SGD dev first turns, it also is what people meant more often."""
    if not chosen.candidate.acts or window <= 0:
        return chosen
    return next(
        (
            s
            for s in ranked
            if not s.candidate.acts
            and s.candidate.api == chosen.candidate.api
            and chosen.margin - s.margin <= window
        ),
        chosen,
    )


def thresholds_for(candidate: Candidate, profile: CalibrationProfile) -> ScoreThresholds:
    return profile.prototype if candidate.has_prototype else profile.description


def score_of(candidate: Candidate, profile: CalibrationProfile) -> float:
    if not candidate.has_prototype:
        return candidate.description_cosine + profile.description.coverage_weight * candidate.term_coverage
    w = profile.prototype.description_weight
    dense = (candidate.prototype_cosine + w * candidate.description_cosine) / (1.0 + w)
    return dense + profile.prototype.coverage_weight * candidate.term_coverage


def rank(candidates: Sequence[Candidate], profile: CalibrationProfile) -> list[Scored]:
    """Candidates by margin, best first (one entry per endpoint name)."""
    seen: set[str] = set()
    scored = []
    for c in candidates:
        if c.name in seen:
            continue
        seen.add(c.name)
        score = score_of(c, profile)
        margin = score - thresholds_for(c, profile).accept
        scored.append(Scored(c, score, margin))
    return sorted(scored, key=lambda s: s.margin, reverse=True)


def evidence_of(best: Scored, runner_up: Scored | None, profile: CalibrationProfile) -> tuple[float, float]:
    """(evidence, gap) of the best candidate against its runner-up."""
    # Alone in the catalogue, the lead is measured against the acceptance threshold itself.
    gap = best.margin - runner_up.margin if runner_up is not None else max(best.margin, 0.0)
    return best.margin + thresholds_for(best.candidate, profile).gap_weight * gap, gap


def _no_words(candidate: Candidate) -> bool:
    """A message of nothing but numbers, dates and names ("2026-01-01 to 2026-12-31")
    says what, not which: alone it answers a question, it does not ask for an endpoint."""
    return candidate.query_terms == 0 and candidate.matched_terms == 0


def assess(
    candidates: Sequence[Candidate],
    profile: CalibrationProfile,
    context: ConversationContext | None = None,
    *,
    read_first_window: float = 0.0,
) -> Match:
    return assess_ranked(rank(candidates, profile), profile, context, read_first_window=read_first_window)


def assess_ranked(
    ranked: Sequence[Scored],
    profile: CalibrationProfile,
    context: ConversationContext | None = None,
    *,
    read_first_window: float = 0.0,
) -> Match:
    """`assess` of candidates already ranked by `rank`."""
    if not ranked:
        return Match(Confidence.NONE, None)
    best = ranked[0]
    runner_up = ranked[1] if len(ranked) > 1 else None
    evidence, gap = evidence_of(best, runner_up, profile)
    plausible = tuple(s.candidate for s in ranked if best.margin - s.margin <= CLOSE_MARGIN)
    if evidence < 0 or _no_words(best.candidate):
        return Match(Confidence.NONE, None, plausible, gap, evidence, best.score, best.candidate)
    confidence = Confidence.HIGH if evidence >= HIGH_EVIDENCE else Confidence.MEDIUM
    chosen = context.rerank(ranked) if context is not None else read_first(ranked, best, read_first_window)
    return Match(confidence, chosen.candidate, plausible, gap, evidence, chosen.score, best.candidate)
