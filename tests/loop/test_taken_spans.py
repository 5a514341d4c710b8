"""TakenSpans answers what `outside` answers over the same spans, whatever the order in
which they were taken (empty, touching, nested and overlapping spans included)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction.text import TakenSpans, outside

_SPAN = st.tuples(st.integers(0, 40), st.integers(0, 12)).map(lambda p: (p[0], p[0] + p[1]))


@settings(max_examples=400, deadline=None)
@given(before=st.lists(_SPAN, max_size=12), steps=st.lists(st.tuples(st.booleans(), _SPAN), max_size=40))
def test_free_is_outside_over_what_was_taken(
    before: list[tuple[int, int]], steps: list[tuple[bool, tuple[int, int]]]
) -> None:
    taken = list(before)
    spans = TakenSpans(taken)
    for take, (start, end) in steps:
        assert spans.free(start, end) == outside(taken, start, end), (taken, start, end)
        if take:
            spans.take(start, end)
    assert taken[len(before) :] == [span for take, span in steps if take]


def test_twenty_thousand_touching_spans_stay_apart() -> None:
    taken: list[tuple[int, int]] = []
    spans = TakenSpans(taken)
    for n in range(20_000):
        start = 6 * n
        assert spans.free(start, start + 5)
        spans.take(start, start + 5)
        assert not spans.free(start + 2, start + 3)
    assert len(taken) == 20_000 and spans.free(5, 6) and not spans.free(0, 120_000)


def test_runs_of_years_pairs_and_letters_are_read_promptly() -> None:
    """Each run once made the date finder quadratic: thousands of years and school-year
    pairs (each checked against every span taken before it), and a 20,000-letter word (the
    month-day-year pattern tried from each of its letters). Unbounded, this took minutes;
    pytest-timeout is the bound, no clock is read."""
    from datetime import date

    from loop_svc.extraction.dates import find_dates

    text = "2027/ " * 10_000 + "õppeaasta " * 5_000 + "27/28 " * 3_000 + "x" * 20_000 + " 2027" * 10_000
    assert len(text) > 150_000
    found = find_dates(text + " 5. detsembril 2027", "et", date(2026, 12, 1))
    assert date(2027, 12, 5) in [d.value for d in found.dates]
