"""A best endpoint rejected by a hair is accepted when the message's words say it: most
of them are in its texts and no rival has as many ("did the 2026 state budget pass? how
many against" is every word a votings endpoint's). Property tests over generated
candidate lists: the rescue never takes a clear rejection, a question of few shared
words, or a tie in words, and never changes an accepted match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.api_matcher import assess_ranked, rank
from classifier_svc.api_tool import ApiToolMatcher, ApiToolPolicy
from classifier_svc.calibration import CalibrationProfile, ScoreThresholds
from classifier_svc.candidates import Candidate

PROFILE = CalibrationProfile(
    embedding_model="test-model",
    prototype=ScoreThresholds(accept=0.85, gap_weight=0.5, description_weight=0.0),
    description=ScoreThresholds(accept=0.80, gap_weight=0.5),
    switch_margin=0.02,
)
POLICY = ApiToolPolicy(profile=PROFILE, multi_intent_enabled=False)


def candidate(name: str, cosine: float, matched: int, of: int) -> Candidate:
    return Candidate(
        f"id-{name}",
        name,
        cosine,
        1,
        matched_terms=matched,
        query_terms=of,
        endpoint=name,
        prototype_cosine=cosine,
        description_cosine=cosine,
        has_prototype=True,
    )


class Fixed:
    def __init__(self, candidates: list[Candidate]) -> None:
        self.candidates = candidates

    async def search(self, query: str, limit: int) -> list[Candidate]:
        return self.candidates[:limit]


@settings(max_examples=60, deadline=None)
@given(
    cosines=st.lists(st.floats(0.78, 0.90), min_size=1, max_size=4),
    words=st.lists(st.integers(0, 5), min_size=4, max_size=4),
    of=st.integers(1, 6),
)
async def test_the_rescue_takes_only_a_near_miss_its_words_name(
    cosines: list[float], words: list[int], of: int
) -> None:
    candidates = [candidate(f"e{i}", c, min(words[i], of), of) for i, c in enumerate(cosines)]
    ranked = rank(candidates, PROFILE)
    plain = assess_ranked(ranked, PROFILE)
    rescued = ApiToolMatcher(Fixed(candidates), POLICY)._rescued_by_words(ranked, plain)
    if plain.best is not None:
        assert rescued == plain  # an accepted match stands
        return
    if rescued.best is None:
        return
    chosen = rescued.best.name
    # The best by score, or one tied with it (within the own-words window) that holds more
    # of the message's words than any other candidate.
    top = next(s for s in ranked if s.candidate.name == chosen)
    assert top is ranked[0] or ranked[0].margin - top.margin <= POLICY.own_words_window
    best = top.candidate
    assert plain.evidence >= -POLICY.word_rescue_band
    assert (
        best.matched_terms >= POLICY.word_rescue_words and best.term_coverage >= POLICY.word_rescue_coverage
    )
    assert all(s.candidate.matched_terms < best.matched_terms for s in ranked if s is not top)


async def test_a_near_miss_whose_words_are_all_the_endpoints_is_accepted() -> None:
    votings = candidate("votings", 0.845, 5, 5)
    holidays = candidate("holidays", 0.835, 0, 5)
    decision = await ApiToolMatcher(Fixed([votings, holidays]), POLICY).match("did the budget pass", "en")
    assert decision is not None and decision.endpoints[0].name == "votings"


async def test_a_clear_rejection_or_a_tie_in_words_stays_rejected() -> None:
    far = [candidate("votings", 0.80, 5, 5), candidate("holidays", 0.80, 0, 5)]
    assert await ApiToolMatcher(Fixed(far), POLICY).match("x", "en") is None
    tied = [candidate("votings", 0.845, 3, 5), candidate("tax", 0.844, 3, 5)]
    assert await ApiToolMatcher(Fixed(tied), POLICY).match("x", "en") is None


@pytest.mark.parametrize("below", [0.005, 0.015, 0.025, 0.035])
@pytest.mark.parametrize(("matched", "of"), [(2, 5), (2, 4), (3, 7), (3, 5)])
async def test_a_topic_question_sharing_a_few_words_more_than_any_rival_is_accepted(
    below: float, matched: int, of: int
) -> None:
    """ "did the weapons act amendment go through", "было голосование о недоверии
    министру образования?": a question about one bill shares only some of its words with
    the endpoint's texts (the bill's own words are in the record, not the catalogue)."""
    votings = candidate("votings", 0.85 - below, matched, of)
    rival = candidate("tax", 0.85 - below - 0.01, matched - 1, of)
    decision = await ApiToolMatcher(Fixed([votings, rival]), POLICY).match("x", "en")
    assert decision is not None and decision.endpoints[0].name == "votings"


@pytest.mark.parametrize(("matched", "of"), [(1, 5), (2, 6), (2, 10)])
async def test_one_shared_word_or_a_small_share_stays_rejected(matched: int, of: int) -> None:
    votings = candidate("votings", 0.84, matched, of)
    rival = candidate("tax", 0.83, 0, of)
    assert await ApiToolMatcher(Fixed([votings, rival]), POLICY).match("x", "en") is None
