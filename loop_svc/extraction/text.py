"""Word tokens with their positions, and stemming in the mesh's languages."""

from __future__ import annotations

import bisect
import functools
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import snowballstemmer

from services.language import Lang

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
# The endings Estonian case forms add to a word's genitive stem (inessive -s, elative
# -st, terminative -ni, translative -ks, adessive -l, allative -le, ablative -lt,
# illative -sse, comitative -ga, abessive -ta, essive -na).
ESTONIAN_CASE_ENDINGS = ("s", "st", "ni", "ks", "l", "le", "lt", "sse", "ga", "ta", "na")
# "Now" as people write it, en/et/ru (folded: no diacritics), longest first: the current
# hour of today. Chat shorthand counts ("rn", "rite now"); a bare "nüüd" does not (in
# Estonian it mostly moves the talk on: "nüüd näita homset").
NOW_WORDS = (
    "right now",
    "rite now",
    "at the moment",
    "at present",
    "currently",
    "now",
    "rn",
    "praegusel hetkel",
    "hetkel",
    "praegu",
    "prg",
    "прямо сейчас",
    "в данный момент",
    "на данный момент",
    "в настоящий момент",
    "сегодня сейчас",
    "сейчас",
    "щас",
)
NOW_PATTERN = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in NOW_WORDS)
_STEMMER_NAMES: dict[Lang, str] = {"en": "english", "et": "estonian", "ru": "russian"}


@dataclass(frozen=True)
class Word:
    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()


def words(text: str) -> list[Word]:
    return [Word(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]


# Snowball stemmers keep per-call state on the instance, and extraction runs in
# worker threads: one stemmer per thread and language.
_local = threading.local()


def _stemmer(lang: Lang) -> snowballstemmer.stemmer:
    cached: dict[Lang, snowballstemmer.stemmer] = _local.__dict__.setdefault("stemmers", {})
    if lang not in cached:
        cached[lang] = snowballstemmer.stemmer(_STEMMER_NAMES[lang])
    return cached[lang]


# Words repeat (within a message, across readers of one message, across turns): a word's
# stem is computed once, so a long message costs per distinct word, not per reader and
# word. Bounded: a message of all-distinct words only evicts older entries.
@functools.lru_cache(maxsize=1 << 16)
def stem(word: str, lang: Lang) -> str:
    """Lower-cased stem ('Eestis' → 'eesti', 'Эстонии' → 'эстон')."""
    return str(_stemmer(lang).stemWord(word.lower().replace("ё", "е")))


_FOLD_CACHED_LENGTH = 64


def fold(text: str) -> str:
    """Lower case with Latin diacritics removed ("Pärnu" → "parnu"), one character for
    one, so positions in the folded text are positions in the original. Cyrillic is kept
    as it is apart from case ("й" stays "й")."""
    # Words are folded once each (see `stem`); whole messages are not kept.
    return _fold_word(text) if len(text) <= _FOLD_CACHED_LENGTH else _fold(text)


@functools.lru_cache(maxsize=1 << 16)
def _fold_word(text: str) -> str:
    return _fold(text)


def _fold(text: str) -> str:
    out = []
    for ch in text:
        low = ch.lower()[:1] or ch
        if ord(low) < 0x250:
            decomposed = unicodedata.normalize("NFKD", low)
            low = decomposed[0] if decomposed else low
        out.append(low)
    return "".join(out)


def outside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps none of `spans` (text already used by another value)."""
    return not any(start < s_end and s_start < end for s_start, s_end in spans)


class TakenSpans:
    """`taken` (the spans of a message already read as values) for a reader that checks
    many candidates against it and takes some: `free` is `outside` by binary search over
    the spans merged, `take` adds a span to both, and spans other readers append to the
    list are merged at the next check (spans are only ever added). A long message holds
    thousands of candidate dates or periods; checking each against the whole list made
    reading it quadratic (seconds for 100,000 characters)."""

    def __init__(self, taken: list[tuple[int, int]]) -> None:
        self._taken = taken
        self._starts: list[int] = []
        self._ends: list[int] = []
        # Empty spans, apart: one overlaps only what strictly contains it.
        self._points: list[int] = []
        # How much of `taken` is merged: readers handed the list append to it themselves.
        self._seen = 0
        self._sync()

    def _sync(self) -> None:
        for start, end in self._taken[self._seen :]:
            self._merge(start, end)
        self._seen = len(self._taken)

    def free(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps none of the spans (as `outside` says)."""
        self._sync()
        # Merged spans are disjoint, so their ends are sorted like their starts: only the
        # last span starting at or before `start` and the first one after it can overlap.
        i = bisect.bisect_right(self._starts, start)
        if i > 0 and self._ends[i - 1] > start and self._starts[i - 1] < end:
            return False
        if i < len(self._starts) and self._starts[i] < end and start < self._ends[i]:
            return False
        p = bisect.bisect_right(self._points, start)
        return not (p < len(self._points) and self._points[p] < end)

    def take(self, start: int, end: int) -> None:
        self._taken.append((start, end))
        self._sync()

    def _merge(self, start: int, end: int) -> None:
        if start >= end:
            bisect.insort(self._points, start)
            return
        # The spans overlapping [start, end) are a run: the first whose end is past
        # `start` up to the last that starts before `end`.
        lo = bisect.bisect_right(self._ends, start)
        hi = bisect.bisect_left(self._starts, end)
        if lo < hi:
            start, end = min(start, self._starts[lo]), max(end, self._ends[hi - 1])
        else:
            hi = lo = bisect.bisect_left(self._starts, start)
        self._starts[lo:hi] = [start]
        self._ends[lo:hi] = [end]
