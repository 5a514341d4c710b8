"""Near matches: when a call finds nothing, the rows of a broader call nearest to what was asked.

A search API finds only what is written as it has it: "Petri plats 5, Narva" finds nothing
where the register has "Peetri plats 5", and "Raekoja plats 1, Tartu" nothing where it has
"Raekoja plats 1a". The loop sends broader values with such a call (the street without its
house number, the town alone); the executor tries them in order when the call's list of rows
is empty, and of the rows the first broader call finds keeps those nearest to the values
first asked, by the words they share: each asked word scores its closest word of the row
(difflib's ratio on lower-case letters without diacritics), and a row's score is the mean.
Only rows at least `min_similarity` near, with no asked name word further than
`min_word_similarity` from all of the row's words, are kept, and of them the nearest (ties
together): a town's whole list never stands in for one address, nor "Viru tn 4" for
"Niine tn 4" (the same street type, house number and town, another street).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from copy import deepcopy
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from caller_svc.json_view import find_collections, is_multilingual

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Ties within this much of the nearest row are kept with it.
_TIE = 1e-6
# A row's words are read this deep into its objects (an address, its parts).
_MAX_DEPTH = 3
# Words of a row or of the values asked looked at, and letters of each: a value longer
# than a message is no search.
_MAX_WORDS = 64
_MAX_LETTERS = 40


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    return [w[:_MAX_LETTERS] for w in _WORD.findall(_fold(text))[:_MAX_WORDS]]


def _row_texts(value: Any, depth: int = 0) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, dict) and depth < _MAX_DEPTH:
        for inner in value.values():
            yield from _row_texts(inner, depth + 1)
    elif isinstance(value, list) and depth < _MAX_DEPTH:
        for inner in value:
            yield from _row_texts(inner, depth + 1)


@dataclass(frozen=True)
class NearMatch:
    # The mean closeness of the asked words to a row's words that makes the row near.
    min_similarity: float = 0.8
    # The closeness every asked name word (letters, three or more) must have to some word of
    # the row: one street name far from every word of the row makes it another street.
    min_word_similarity: float = 0.6


def _closeness(word: str, row_words: set[str]) -> float:
    if word in row_words:
        return 1.0
    return max(SequenceMatcher(None, word, other).ratio() for other in row_words)


def similarity(asked: list[str], row: Any, min_word_similarity: float = 0.0) -> float:
    """Mean over the asked words of each one's closest word in the row (0..1); 0 when an
    asked name word is further than `min_word_similarity` from every word of the row."""
    if not asked:
        return 0.0
    row_words = {w for text in _row_texts(row) for w in words(text)}
    if not row_words:
        return 0.0
    total = 0.0
    for word in asked:
        closeness = _closeness(word, row_words)
        if closeness < min_word_similarity and len(word) >= 3 and word.isalpha():
            return 0.0
        total += closeness
    return total / len(asked)


def _rows(data: Any) -> tuple[str, list[Any]] | None:
    """The list of row objects a result holds ('' for a top-level list), else None."""
    if isinstance(data, list):
        return "", data
    if isinstance(data, dict):
        lists = [(p, v) for p, v in find_collections(data) if not is_multilingual(v)]
        if len(lists) == 1:
            return lists[0]
    return None


def found_nothing(data: Any) -> bool:
    """A result whose one list of rows is empty: a search that found nothing."""
    rows = _rows(data)
    return rows is not None and not rows[1]


def asked_words(params: Mapping[str, str], broader: Mapping[str, str]) -> list[str]:
    """The words of the values a broader call changed, as first asked."""
    return [w for name in broader if name in params for w in words(params[name])]


def nearest(data: Any, asked: list[str], near: NearMatch) -> Any | None:
    """`data` with only its rows nearest to `asked` (at least `near.min_similarity` near), a
    count beside them that counted the list counting the kept ones; None when no row is."""
    located = _rows(data)
    if located is None or not located[1]:
        return None
    path, rows = located
    scored = [(similarity(asked, row, near.min_word_similarity), row) for row in rows]
    best = max(score for score, _ in scored)
    if best < near.min_similarity:
        return None
    kept = [row for score, row in scored if score >= best - _TIE]
    if not path:
        return kept
    narrowed = deepcopy(data)
    *parents, last = path.split(".")
    holder = narrowed
    for key in parents:
        holder = holder[key]
    holder[last] = kept
    # {"count": 2, "addresses": [...]}: a count of the list beside it counts what is kept.
    for key, value in list(holder.items()):
        if isinstance(value, int) and not isinstance(value, bool) and value == len(rows) and key != last:
            holder[key] = len(kept)
    return narrowed
