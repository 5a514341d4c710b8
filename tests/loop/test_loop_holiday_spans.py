"""The holiday reader skips the words other readers took (a country's name) in one pass."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from loop_svc.extraction.holiday_names import _outside

_WORDS = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 8)), max_size=40).map(
    lambda pairs: [(f"w{i}", s, s + n) for i, (s, n) in enumerate(sorted(pairs))]
)
_SPANS = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 30)), max_size=20).map(
    lambda pairs: [(s, s + n) for s, n in pairs]
)


@given(_WORDS, _SPANS)
def test_words_outside_spans_are_those_overlapping_none(
    words: list[tuple[str, int, int]], spans: list[tuple[int, int]]
) -> None:
    naive = [w for w in words if all(w[2] <= s or w[1] >= e for s, e in spans)]
    assert _outside(words, spans) == naive
