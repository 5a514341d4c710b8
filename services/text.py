"""Word-level text analysis shared by the indexer (sparse vectors, lexical evidence at
search) and the classifier (extractive answers): tokens, function words, stems, sentences.

Tokens: camelCase and snake_case split into words, lowercased, split on anything that
is not a letter or digit. Each token is stemmed so inflections meet:
- Cyrillic tokens → the Russian stemmer ("праздники", "праздников" → "праздник").
- Latin tokens → both the English and the Estonian stem, each emitted once (one term
  when they agree). The catalogue and the queries mix English and Estonian, and a
  query is often too short to tell its language, so a per-token guess would sometimes
  pick the wrong stemmer and miss. Both stemmers are deterministic, so a word and its
  inflections share at least the stem of their own language on both sides
  ("riigipühad"/"riigipühade" → et "riigipüha"; "holidays"/"holiday" → en "holiday");
  the other-language stem is a near-copy of the word that only matches itself.
Function words of en/et/ru are dropped first: Qdrant's IDF discounts words that are
everywhere, but a catalogue of a few dozen endpoints is too small for that ("are" in one
description outweighed "public" in another).
"""

from __future__ import annotations

import re

import snowballstemmer

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-zà-ÿ0-9])(?=[A-ZÀ-Þ])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
# What may stand between a sentence's end and the name that opens the next sentence.
_OPENERS = " \t\"'«„“("
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'«„(]?[A-ZÕÄÖÜŠŽА-ЯЁ0-9])")

# Question words, articles, pronouns, auxiliaries and prepositions: frequent in questions
# and descriptions, never what distinguishes one endpoint from another.
STOPWORDS: frozenset[str] = frozenset(
    """
    a an the and or but if of in on at to for from by with about as into over under than then so
    is are was were be been being am do does did have has had will would can could should may might
    must shall i me my we our you your he she it its they them their this that these those there
    here what which who whom whose when where why how all any some no not only own same such too
    very just also e g eg ie etc
    ja ning või ega ka kui et see need seda selle siin seal on oli olid olema ole pole ei mis mida
    mille kes keda kelle millal kus kuhu kust miks kuidas kas kui palju milline millised millist
    mina ma sina sa tema ta meie me teie te nemad nad minu sinu tema meie mu su oma üks ühe
    kõik kõiki kõige veel juba nüüd siis aga vaid ainult ju küll nagu
    и или но а не ни да нет что как где когда куда откуда почему зачем кто какой какая какое какие
    каких это этот эта эти тот та те то в во на с со к ко по о об от до из за для при у же ли бы
    быть есть был была были я мы ты вы он она оно они мой моя мое мои наш ваш его ее их
    """.split()
)


def tokenize(text: str) -> list[str]:
    return _WORD.findall(_CAMEL_BOUNDARY.sub(" ", text).lower())


def content_words(text: str) -> set[str]:
    """The distinct words of `text` that can carry meaning: no function words, no numbers."""
    return {t for t in tokenize(text) if t not in STOPWORDS and not t.isdigit()}


def names(text: str) -> set[str]:
    """Capitalised words that do not start a sentence ("Rüütli", "Tartu", "San Francisco"):
    names of streets, places and people, which are parameter values more often than words
    that say what the user wants."""
    found: set[str] = set()
    # The last character before the current word that is not a space, quote or bracket
    # ("" at the text's start), carried along in one pass: slicing the text before each
    # word instead made a long message quadratic.
    previous = ""
    end = 0
    for match in _WORD.finditer(text):
        between = text[end : match.start()].rstrip(_OPENERS)
        if between:
            previous = between[-1]
        word = match.group()
        if word[0].isupper() and previous and previous not in ".!?:\n":
            found.add(word.lower())
        previous, end = word[-1], match.end()
    return found


def intent_words(text: str) -> set[str]:
    """Content words that are not names: what a query's coverage is measured against."""
    return content_words(text) - names(text)


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def excerpt(text: str, max_chars: int) -> str:
    """What a long message asks, within `max_chars`: its opening sentence and its last
    question (the last sentence when none ends with "?"), in the message's order. A text
    that fits is returned as it is. One pass over the text: a 10,000-character message
    costs the search what a short one does, and its request is usually where it starts or
    where it ends."""
    if len(text) <= max_chars:
        return text
    sentences = split_sentences(text)
    if not sentences:
        return text[:max_chars].strip()
    asked = next((i for i in range(len(sentences) - 1, 0, -1) if sentences[i].endswith("?")), None)
    last = asked if asked is not None else len(sentences) - 1
    first = sentences[0]
    if last == 0 or sentences[last] == first:
        return first[:max_chars].strip()
    opening = first[: max_chars // 2].strip()
    return f"{opening} {sentences[last][: max_chars - len(opening) - 1].strip()}".strip()


# Longer "words" (a run of letters pasted a thousand times) are no word of any language:
# they are their own stem, instead of costing the stemmers time that grows with them.
MAX_STEMMED_CHARS = 64
# Distinct words a Stemmer remembers (a few MB at most) before it starts afresh.
STEM_MEMO_SIZE = 20_000


class Stemmer:
    """Not thread-safe (the stemmers keep state): call it from one thread, e.g. the event loop.

    The snowball stemmers are pure Python (tens of microseconds a word) and were most of
    a routing decision's own work: the same words are stemmed again on every search and
    for every hit. Each word's stems are therefore computed once and remembered (up to
    `memo_size` distinct words, then the memo starts afresh: bounded memory)."""

    def __init__(self, memo_size: int = STEM_MEMO_SIZE) -> None:
        self._english = snowballstemmer.stemmer("english")
        self._estonian = snowballstemmer.stemmer("estonian")
        self._russian = snowballstemmer.stemmer("russian")
        self._memo: dict[str, tuple[str, ...]] = {}
        self._memo_size = memo_size
        # Words stemmed by the snowball stemmers (not found in the memo): the work meter.
        self.stemmed = 0

    def stems(self, token: str) -> tuple[str, ...]:
        found = self._memo.get(token)
        if found is None:
            found = self._stem(token)
            if len(self._memo) >= self._memo_size:
                self._memo.clear()
            self._memo[token] = found
        return found

    def _stem(self, token: str) -> tuple[str, ...]:
        if len(token) > MAX_STEMMED_CHARS:
            return (token,)
        self.stemmed += 1
        if _CYRILLIC.search(token):
            return (self._russian.stemWord(token),)
        english = self._english.stemWord(token)
        estonian = self._estonian.stemWord(token)
        return (english,) if estonian == english else (english, estonian)

    def terms(self, text: str) -> list[str]:
        """The stems of the words of `text`, function words left out."""
        return [stem for token in tokenize(text) if token not in STOPWORDS for stem in self.stems(token)]
