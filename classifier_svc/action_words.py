"""What an endpoint *does* versus what it is *about*: its action words.

"How did parliament vote on the car tax?" shares "car tax" with the vehicle-tax endpoint
and "vote" with the votings one, and the two score within a hair of each other. The
word the question turns on is its predicate ("vote", "hääletati", "голосовали"): the
car tax is only what the vote was about. An endpoint's *action words* are the words its
own texts (examples, description, response labels) use as verbs or participles, read
from their morphology, so nothing here names an API:

- Russian: pymorphy3's parts of speech (verbs, infinitives, participles, gerunds), kept
  as the lemma ("голосовал" → "голосовать", which also meets "голосования");
- English: a past form in "-ed" ("voted", "passed"), matched by its stem;
- Estonian: a verb-only ending (past "-sid", "-tas", impersonal "-ti/-takse",
  participles "-nud/-tud/-dud", infinitive "-ma/-mas"), kept as the base before it
  ("hääletas" → "hääleta", which meets "hääletati" and "hääletus").

The matching of a message's tokens to those words is the lexicon's (inflection, missing
diacritics, typos: classifier_svc/lexicon.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.lexicon import Concept, Lexicon, fold, tokens
from services.language import Lang, LanguageDetector, parse_lang, russian_analyzer
from services.text import STOPWORDS

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_RU_VERB_POS = frozenset({"VERB", "INFN", "PRTF", "PRTS", "GRND"})
# Estonian endings only verbs take (the 3rd person past "-s" is also the inessive case,
# "parlamendis", and "-sid" the plural partitive, "eelnõusid": only the past "-tas"/"-das"
# of -tama/-dama verbs is kept).
# (ending, letters cut): the past "hääletas" keeps its verb base "hääleta".
_ET_VERB_ENDINGS = (
    ("takse", 5),
    ("dakse", 5),
    ("nud", 3),
    ("tud", 3),
    ("dud", 3),
    ("tas", 1),
    ("das", 1),
    ("mas", 3),
    ("ti", 2),
    ("di", 2),
    ("ma", 2),
)
# A base shorter than this is too short to tell a verb from any word ("võe" of "võetud").
_MIN_BASE = 4
_MIN_ACTION_LANGS = 2
# Compound heads: words this long compared by their last letters (Estonian compounds:
# five letters hold the commonest heads whole, "pühad" of "riigipühad" and
# "lihavõttepühad", "vaheaeg"'s "heaeg" of every break).
_COMPOUND_MIN = 9
_HEAD_LETTERS = 5
# A message is read for its own words up to this many distinct tokens.
_MAX_OWN_TOKENS = 40


def _russian_verb_lemma(word: str) -> str | None:
    # The language detector's analyzer: one dictionary per thread, loaded at start.
    analyzer = russian_analyzer()
    # A word the dictionary does not know is guessed, often as a verb ("Рюютли").
    parses = analyzer.parse(word) if analyzer.word_is_known(word) else []
    if parses and parses[0].tag.POS in _RU_VERB_POS:
        lemma = str(parses[0].normal_form)
        # The infinitive's "-ть" goes: the lexicon's prefix match then meets the noun
        # ("голосова" in "голосования") as well as every finite form.
        return lemma[:-2] if lemma.endswith(("ть", "ти")) and len(lemma) > 6 else lemma
    return None


def verb_words(text: str, lang: Lang) -> set[str]:
    """The words `text` (written in `lang`) uses as verbs, in the form the lexicon
    matches them by."""
    found: set[str] = set()
    for token in tokens(text):
        # Auxiliaries and copulas ("были", "is") are every endpoint's verbs.
        if token in STOPWORDS:
            continue
        if _CYRILLIC.search(token):
            lemma = _russian_verb_lemma(token)
            if lemma is not None and lemma not in STOPWORDS:
                found.add(lemma)
            continue
        word = fold(token)
        if lang != "et":
            # "-ed" is also an Estonian plural ("hääletused"): English texts only.
            if len(word) > _MIN_BASE and word.endswith("ed"):
                found.add(word)  # the lexicon stems it ("voted" → "vote")
            continue
        for ending, cut in _ET_VERB_ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= _MIN_BASE:
                found.add(word[:-cut])
                break
    return found


def endpoint_texts(endpoint: object) -> list[tuple[str, Lang | None]]:
    """The endpoint's own words: its examples and description (language unknown) and
    its response labels (by their language code)."""
    texts: list[tuple[str, Lang | None]] = [(str(getattr(endpoint, "description", "") or ""), None)]
    texts.extend((str(e), None) for e in getattr(endpoint, "examples", ()) or ())
    for label in getattr(endpoint, "response_labels", ()) or ():
        for code, text in dict(getattr(label, "labels", {}) or {}).items():
            texts.append((str(text), parse_lang(str(code))))
    return [(t, lang) for t, lang in texts if t]


@dataclass(frozen=True)
class _EndpointWords:
    # The words the endpoint's texts use as verbs.
    actions: Lexicon
    # Every content word of its examples and description, one concept per text ("0",
    # "1", …): how many of them hold a word tells how central to the endpoint it is.
    texts: Lexicon
    # Per script (Cyrillic or not), how many of the texts are written in it.
    per_script: dict[bool, int]
    # The languages in which its texts use verbs of their own.
    action_langs: frozenset[str]


class ActionWords:
    """Per endpoint, its action words and its texts' words, read once per endpoint name
    and description (a re-indexed catalogue is read again)."""

    def __init__(self, detector: LanguageDetector, max_endpoints: int = 512) -> None:
        self._detector = detector
        self._lexicons: dict[tuple[str, str], _EndpointWords] = {}
        self._heads: dict[tuple[str, str, str], frozenset[str]] = {}
        self._max = max_endpoints

    def _words(self, name: str, endpoint: object) -> _EndpointWords:
        key = (name, str(getattr(endpoint, "description", "") or ""))
        found = self._lexicons.get(key)
        if found is None:
            actions: set[str] = set()
            concepts: list[Concept] = []
            per_script = {True: 0, False: 0}
            langs: set[str] = set()
            for i, (text, lang) in enumerate(endpoint_texts(endpoint)):
                text_lang = lang or self._detector.detect(text, fallback="en")
                verbs = verb_words(text, text_lang)
                if verbs:
                    actions |= verbs
                    langs.add(text_lang)
                if lang is not None:
                    continue  # a label: a field's name, not a question the endpoint answers
                words = [t for t in tokens(text) if t not in STOPWORDS and not t.isdigit()]
                concepts.append(Concept(str(i), tuple(words)))
                per_script[bool(_CYRILLIC.search(text))] += 1
            found = _EndpointWords(
                Lexicon([Concept(name, tuple(sorted(actions)))]),
                Lexicon(concepts),
                per_script,
                frozenset(langs),
            )
            if len(self._lexicons) >= self._max:
                self._lexicons.clear()
            self._lexicons[key] = found
        return found

    def action_tokens(self, message: str, name: str, endpoint: object, min_share: float) -> list[str]:
        """The message's words that say the endpoint's action and are in at least
        `min_share` of its texts of their script: what the endpoint is about ("vote" in
        most of a votings endpoint's examples), not a verb one example happens to use."""
        if endpoint is None:
            return []
        words = self._words(name, endpoint)
        # One language's cue alone is weak (English has only its "-ed" forms, and many
        # are adjectives: on CLINC they flipped clear matches); an action the endpoint's
        # texts say in two languages is its own.
        if len(words.action_langs) < _MIN_ACTION_LANGS:
            return []
        found = words.actions.find(message)
        said = [found.tokens[i] for i in found.positions.get(name, ())]
        return [t for t in said if self._share(t, words) >= min_share]

    @staticmethod
    def _share(token: str, words: _EndpointWords) -> float:
        total = words.per_script[bool(_CYRILLIC.search(token))]
        return len(words.texts.find(token).positions) / total if total else 0.0

    def has_word(self, message_words: Sequence[str], name: str, endpoint: object) -> bool:
        """Whether any of `message_words` is in the endpoint's own texts, in any form."""
        if endpoint is None or not message_words:
            return False
        return bool(self._words(name, endpoint).texts.find(" ".join(message_words)).positions)

    def _compound_heads(self, name: str, endpoint: object) -> frozenset[str]:
        """The last letters of the long words of the endpoint's texts: an Estonian compound
        shares its head with its siblings ("suvevaheaeg", "sügisvaheaeg"), which neither a
        stem nor a prefix meets."""
        key = ("heads", name, str(getattr(endpoint, "description", "") or ""))
        found = self._heads.get(key)
        if found is None:
            found = frozenset(
                fold(t)[-_HEAD_LETTERS:]
                for text, lang in endpoint_texts(endpoint)
                if lang is None
                for t in tokens(text)
                if len(t) >= _COMPOUND_MIN and not _CYRILLIC.search(t)
            )
            if len(self._heads) >= self._max:
                self._heads.clear()
            self._heads[key] = found
        return found

    def _says(self, token: str, name: str, endpoint: object) -> bool:
        if self.has_word([token], name, endpoint):
            return True
        return (
            len(token) >= _COMPOUND_MIN
            and not _CYRILLIC.search(token)
            and fold(token)[-_HEAD_LETTERS:] in self._compound_heads(name, endpoint)
        )

    def choose_by_own_words(
        self, message: str, names: Sequence[str], endpoints: Sequence[object]
    ) -> int | None:
        """Among near-tied endpoints (best first), the index of the one the message's words
        single out: the words its texts say and no other of them does ("break", "vaheaeg",
        "каникулы" are a school calendar's, "holidays" both calendars'), when it has more
        of them than any other. None when the best stands or no one stands out."""
        said = [
            t for t in dict.fromkeys(tokens(message)) if t not in STOPWORDS and not t.isdigit() and len(t) > 2
        ]
        if len(names) < 2 or not said:
            return None
        holders = [
            {t for t in said[:_MAX_OWN_TOKENS] if self._says(t, name, endpoint)}
            for name, endpoint in zip(names, endpoints, strict=True)
        ]
        own = [
            len(h - set().union(*(o for j, o in enumerate(holders) if j != i))) for i, h in enumerate(holders)
        ]
        top = max(range(len(own)), key=lambda i: own[i])
        if top == 0 or own[top] == 0 or any(n >= own[top] for i, n in enumerate(own) if i != top):
            return None
        return top

    def choose(
        self, message: str, names: Sequence[str], endpoints: Sequence[object], *, min_share: float
    ) -> int | None:
        """Among near-tied endpoints (best first), the index of the one whose action the
        message names, when:
        - no other of them (the best included) has its action named;
        - the action's words are its own: nowhere in the best's texts ("vote" is in no
          tax calculator's);
        - the best is there for a topic only: the message's other words that the best's
          texts have, the chosen one's do not ("car tax").
        None when the best stands."""
        acting = [
            (i, said)
            for i, (name, endpoint) in enumerate(zip(names, endpoints, strict=True))
            if (said := self.action_tokens(message, name, endpoint, min_share))
        ]
        if len(acting) != 1 or acting[0][0] == 0:
            return None
        index, said = acting[0]
        best, best_endpoint = names[0], endpoints[0]
        if self.has_word(said, best, best_endpoint):
            return None
        others = [t for t in tokens(message) if t not in said and t not in STOPWORDS and not t.isdigit()]
        topic = [t for t in others if self.has_word([t], best, best_endpoint)]
        if not topic or any(self.has_word([t], names[index], endpoints[index]) for t in topic):
            return None
        return index
