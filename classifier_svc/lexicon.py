"""Word classes ("concepts") found in a message the way people type it: inflected,
without diacritics, with a typo.

A concept is a set of words in en/et/ru ("forge, counterfeit, võltsima, подделать").
Each word is reduced once to its stem by the Snowball stemmer of its script (the same
maintained stemmers the indexer uses), and a message's tokens are reduced the same way,
so "võltsida/võltsin/võltsitud" and "подделать/подделка/поддельный" meet their
lexicon word. On top of that, with both sides folded to ASCII-like letters
(diacritics dropped, "ё" → "е"):
- a token that starts with a lexicon stem of five or more letters matches it (Estonian
  compounds: "võltsdokument", "ID-kaardi"), and from six letters on also one that starts
  with the stem less its last letter (Estonian case endings the stemmer leaves:
  "allkiri" → "allkirja");
- a token (or its stem) within one edit of a stem of six or more letters (two edits from
  ten) matches it (rapidfuzz's Levenshtein distance): "pasport", "instrucions"; and a
  token whose head is a stem of five or more letters with one letter slipped in
  ("полииции", "võlttsin").
Rules built on concepts (classifier_svc/guard.py, small_talk.py, layer_choice.py) name
classes of words, never a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz.distance import Levenshtein

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
# Stems shorter than this match only exactly (or by their own stemmer): "pass" must not
# match "passes", "id" must not match "idea".
PREFIX_MIN = 5
TYPO_MIN = 6
# Stems this long also match without their last letter (Estonian case endings).
HEAD_MIN = 6
TWO_TYPOS_MIN = 10
# A message is read up to this many tokens; distinct tokens' matches are remembered.
MAX_TOKENS = 200
MAX_CACHED_TOKENS = 50_000


def fold(text: str) -> str:
    """Lower case, diacritics dropped ("Võltsida" → "voltsida"), "ё" → "е"."""
    text = text.lower().replace("ё", "е")
    decomposed = unicodedata.normalize("NFD", text)
    # Combining marks go, except the Cyrillic short i's breve (и + ̆ → й stays й).
    kept = "".join(c for c in decomposed if not (unicodedata.combining(c) and c != "\u0306"))
    return unicodedata.normalize("NFC", kept)


class _Stemmers:
    def __init__(self) -> None:
        self.english = snowballstemmer.stemmer("english")
        self.estonian = snowballstemmer.stemmer("estonian")
        self.russian = snowballstemmer.stemmer("russian")


@lru_cache(maxsize=1)
def _stemmers() -> _Stemmers:
    return _Stemmers()


@lru_cache(maxsize=20000)
def stems_of(token: str) -> frozenset[str]:
    """The folded token and its Snowball stems (Russian for Cyrillic, else English and
    Estonian: a short message rarely tells which of the two it is)."""
    s = _stemmers()
    low = token.lower().replace("ё", "е")
    if _CYRILLIC.search(low):
        out = {s.russian.stemWord(low)}
    else:
        out = {s.english.stemWord(low), s.estonian.stemWord(low)}
    out.add(low)
    return frozenset(fold(x) for x in out if x)


def tokens(text: str) -> list[str]:
    # Composed first: a decomposed "й" (и + breve) would split the word in two.
    return _WORD.findall(unicodedata.normalize("NFC", text).lower())


@dataclass(frozen=True)
class Concept:
    name: str
    # Lexicon entries: single words, or phrases of words that must follow each other.
    words: tuple[str, ...]

    @classmethod
    def of(cls, name: str, *groups: str) -> Concept:
        words: list[str] = []
        for group in groups:
            words.extend(w.strip() for w in group.split(",") if w.strip())
        return cls(name, tuple(words))


def _token_matches(token_stems: frozenset[str], entry_stems: frozenset[str], *, typos: bool = True) -> bool:
    if token_stems & entry_stems:
        return True
    for stem in entry_stems:
        if len(stem) < PREFIX_MIN:
            continue
        # Estonian stems change their last letter with the case ("allkiri" → "allkirja"),
        # which the Snowball stemmer leaves: a long stem also matches without its last one.
        head = stem[:-1] if len(stem) >= HEAD_MIN else stem
        for t in token_stems:
            if t.startswith(stem) or t.startswith(head):
                return True
            if not typos:
                continue
            if len(stem) >= TYPO_MIN and len(t) >= TYPO_MIN - 1:
                limit = 2 if len(stem) >= TWO_TYPOS_MIN else 1
                if (
                    abs(len(t) - len(stem)) <= limit
                    and Levenshtein.distance(t, stem, score_cutoff=limit) <= limit
                ):
                    return True
            # An inflected word with a letter slipped in ("võlttsin" for "võltsin"): its
            # head less one letter is the stem.
            if any(len(t) > len(h) and _one_extra(t[: len(h) + 1], h) for h in {stem, head}):
                return True
    return False


def _one_extra(head: str, stem: str) -> bool:
    return any(head[:i] + head[i + 1 :] == stem for i in range(len(head)))


class Lexicon:
    """Concepts compiled once; `find` tells which concepts a text contains.

    Each distinct word of the lexicon ("part") is compared with a message's token once:
    the parts a token matches are remembered per token (`MAX_CACHED_TOKENS`), and a
    typo is looked for only among parts whose stems start with the token's letter (a
    slip in the first letter is rare, and it keeps the cost to a few parts per token).
    Messages are read up to `MAX_TOKENS` tokens: the cost is bounded whatever is sent.
    """

    def __init__(self, concepts: Iterable[Concept], *, typos: bool = True) -> None:
        # Off: only inflected and compound forms match, no typo. For words whose match
        # refuses a question: a typo match turns a name into a word ("peetri" → "poetry").
        self._typos = typos
        self._entries: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
        self._parts: list[frozenset[str]] = []
        part_ids: dict[frozenset[str], int] = {}
        self._names: set[str] = set()
        # Compounds typed as one word ("idkaart", "системныйпромпт"): entry → its joined head.
        self._joined: list[tuple[str, str]] = []
        for concept in concepts:
            self._names.add(concept.name)
            for word in concept.words:
                parts = tuple(stems_of(t) for t in tokens(word))
                if not parts:
                    continue
                ids = tuple(part_ids.setdefault(p, len(part_ids)) for p in parts)
                self._entries.setdefault(ids[0], []).append((concept.name, ids))
                if len(parts) > 1:
                    joined = fold("".join(min(p, key=len) for p in parts))
                    if len(joined) >= PREFIX_MIN:
                        self._joined.append((concept.name, joined))
        self._parts = [None] * len(part_ids)  # type: ignore[list-item]
        for part, i in part_ids.items():
            self._parts[i] = part
        self._by_letter: dict[str, list[int]] = {}
        for i, part in enumerate(self._parts):
            for letter in {stem[0] for stem in part if stem}:
                self._by_letter.setdefault(letter, []).append(i)
        self._token_cache: dict[str, frozenset[int]] = {}
        self._joined_cache: dict[str, tuple[str, ...]] = {}

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._names)

    def _matching_parts(self, token: str) -> frozenset[int]:
        cached = self._token_cache.get(token)
        if cached is not None:
            return cached
        token_stems = stems_of(token)
        candidates = {i for stem in token_stems if stem for i in self._by_letter.get(stem[0], ())}
        found = frozenset(
            i for i in candidates if _token_matches(token_stems, self._parts[i], typos=self._typos)
        )
        if len(self._token_cache) >= MAX_CACHED_TOKENS:
            self._token_cache.clear()
        self._token_cache[token] = found
        return found

    def _joined_of(self, token: str) -> tuple[str, ...]:
        cached = self._joined_cache.get(token)
        if cached is None:
            stems = stems_of(token)
            cached = tuple({c for c, j in self._joined if any(t.startswith(j) for t in stems)})
            if len(self._joined_cache) >= MAX_CACHED_TOKENS:
                self._joined_cache.clear()
            self._joined_cache[token] = cached
        return cached

    def find(self, text: str) -> Found:
        toks = tokens(text)[:MAX_TOKENS]
        matched = [self._matching_parts(t) for t in toks]
        hits: dict[str, list[int]] = {}
        covered: set[int] = set()
        for i, parts in enumerate(matched):
            for first in parts:
                for concept, ids in self._entries.get(first, ()):
                    n = len(ids)
                    if i + n <= len(toks) and all(ids[k] in matched[i + k] for k in range(1, n)):
                        hits.setdefault(concept, []).append(i)
                        covered.update(range(i, i + n))
            for concept in self._joined_of(toks[i]):
                hits.setdefault(concept, []).append(i)
                covered.add(i)
        return Found(
            {k: tuple(sorted(set(v))) for k, v in hits.items()}, len(toks), frozenset(covered), tuple(toks)
        )


@dataclass(frozen=True)
class Found:
    # Concept name → token positions where it was found.
    positions: Mapping[str, tuple[int, ...]]
    words: int
    # Positions of the tokens some concept covers, and the message's tokens.
    covered: frozenset[int] = frozenset()
    tokens: tuple[str, ...] = ()

    def uncovered(self) -> list[str]:
        """The message's tokens that no concept covers."""
        return [t for i, t in enumerate(self.tokens) if i not in self.covered]

    def __contains__(self, concept: object) -> bool:
        return concept in self.positions

    def all(self, *concepts: str) -> bool:
        return all(c in self.positions for c in concepts)

    def any(self, *concepts: str) -> bool:
        return any(c in self.positions for c in concepts)
