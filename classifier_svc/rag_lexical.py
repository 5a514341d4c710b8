"""Typo- and diacritics-tolerant word matching between a citizen's question and passages.

Citizens type "tootutoetus" for "töötutoetus", "pasport", "водительськие", "ravikindlustsue";
the stems of services.text meet inflections but not these. Two words match when their
folded stems are equal, when one is a long enough beginning of the other (case forms
and compounds: "kindlustus"/"ravikindlustus" do not, "ravikindlust…" does), or when they
are one edit apart (two for long words) — rapidfuzz's Levenshtein distance.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from rapidfuzz.distance import Levenshtein

from classifier_svc.passages import Passage
from classifier_svc.rag_aspects import fold
from services.text import STOPWORDS, Stemmer, content_words, tokenize

# A weekday is what the pages say of weekends and working days ("a public holiday that
# falls on a weekend is not moved to a weekday" answers "…on a Saturday, is Monday off?").
_WEEKDAYS = {
    "weekday": "monday tuesday wednesday thursday friday esmaspaev teisipaev kolmapaev neljapaev "
    "reede понедельник вторник среда среду четверг пятница пятницу",
    "weekend": "saturday sunday laupaev puhapaev суббота субботу воскресенье",
}
_WEEKDAY_KEYS = {
    "weekday": ("weekday", "workday", "toopaev", "рабоч"),
    "weekend": ("weekend", "nadalavahetus", "выходн"),
}

# A question's word names a page's topic when at most this share of the retrieved pages'
# topics (titles and other names) hold it (and at least one): "driving licence" names one
# page, "Estonian" the passport page and the holidays page alike.
TOPIC_PAGE_SHARE = 1 / 3

# Shared beginnings shorter than this never make two words one.
MIN_PREFIX = 5
MIN_PREFIX_SHARE = 0.7


class WordMatcher:
    """Not thread-safe (the stemmer keeps state): one per thread, e.g. the event loop."""

    def __init__(self, stemmer: Stemmer | None = None) -> None:
        self._stemmer = stemmer or Stemmer()
        self._keys: dict[str, frozenset[str]] = {}

    def keys(self, word: str) -> frozenset[str]:
        """The folded forms a word is compared by: the word and its stems."""
        cached = self._keys.get(word)
        if cached is None:
            folded = fold(word)
            cached = frozenset(
                {folded, *(fold(s) for s in self._stemmer.stems(word)), *_weekday_keys(folded)}
            )
            if len(self._keys) < 50_000:
                self._keys[word] = cached
        return cached

    def words(self, text: str) -> set[str]:
        """The content words of `text` (function words and numbers left out), as typed."""
        return {
            t
            for t in tokenize(text)
            if t not in STOPWORDS and fold(t) not in _FOLDED_STOPWORDS and not t.isdigit()
        }

    def match(self, word: str, others: Iterable[str]) -> bool:
        mine = self.keys(word)
        return any(_similar(a, b) for other in others for a in mine for b in self.keys(other))

    def found(self, words: Iterable[str], text_words: set[str]) -> set[str]:
        """Those of `words` that occur in a text whose `words()` are `text_words`."""
        return {w for w in words if self.match(w, text_words)}


_FOLDED_STOPWORDS = frozenset(fold(w) for w in STOPWORDS)


def _weekday_keys(folded: str) -> tuple[str, ...]:
    for kind, names in _WEEKDAYS.items():
        if any(_similar(folded, name) for name in names.split()):
            return _WEEKDAY_KEYS[kind]
    return ()


def _similar(a: str, b: str) -> bool:
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4:
        return False
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    if prefix >= MIN_PREFIX and prefix >= MIN_PREFIX_SHARE * shorter:
        return True
    if a[0] != b[0]:  # a typo rarely hits the first letter; "card"/"yard" are other words
        return False
    allowed = 1 if shorter < 8 else 2
    return Levenshtein.distance(a, b, score_cutoff=allowed) <= allowed


def with_lexical_evidence(query: str, passages: Sequence[Passage], matcher: WordMatcher) -> list[Passage]:
    """The passages with the query's words counted typo- and diacritics-tolerantly in
    their title, section and text (never fewer than the indexer's stems found): the RAG
    gate's lexical evidence for "tootutoetus paevas" as for "töötutoetus päevas". The page's
    other names count as its title does ("sisse kirjutada" on the residence page)."""
    words = {w for w in content_words(query)}
    counted: list[Passage] = []
    for passage in passages:
        text_words = matcher.words(f"{passage.topic} {passage.section} {passage.text}")
        found = len(matcher.found(words, text_words))
        counted.append(
            dataclasses.replace(passage, matched_terms=found) if found > passage.matched_terms else passage
        )
    return counted


def with_topic_evidence(query: str, passages: Sequence[Passage], matcher: WordMatcher) -> list[Passage]:
    """The passages with `topic_terms`: how many of the question's words name their page's
    topic (its title or another name of it) and few of the other retrieved pages' topics.
    "How long is a driving licence valid" names the driving-licence page, though the ID
    card page is as close by cosine; "kolisin, mis ajaga pean elukoha registreerima" names
    the residence page ("Elukoha registreerimine"), not the birth page that mentions it."""
    words = matcher.words(query)
    topics: dict[str, set[str]] = {}
    for passage in passages:
        page = passage.document_id.rsplit("#", 1)[0]
        if page not in topics:
            topics[page] = matcher.found(words, matcher.words(passage.topic))
    most = max(1, int(len(topics) * TOPIC_PAGE_SHARE))
    naming = {w: sum(w in found for found in topics.values()) for w in words}
    distinct = {page: sum(1 for w in found if naming[w] <= most) for page, found in topics.items()}
    return [
        dataclasses.replace(passage, topic_terms=distinct[passage.document_id.rsplit("#", 1)[0]])
        for passage in passages
    ]
