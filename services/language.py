"""Languages the mesh speaks (en, et, ru) and detection of a message's language.

Short replies ("jah", "2026-01-01") cannot be judged reliably: they keep the chat's
language (`LanguageDetector.detect(text, fallback=...)`, `detect_in_chat`). Russian typed
in Latin letters and English with Estonian names inside are told apart from Estonian
(`RussianInLatin`, and the detector's look at the sentence without its few foreign words).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable
from typing import Any, Literal, get_args

from atc.common.v1 import chat_pb2

Lang = Literal["en", "et", "ru"]
SUPPORTED: tuple[Lang, ...] = get_args(Lang)
DEFAULT_LANG: Lang = "en"

_TO_PROTO: dict[Lang, int] = {
    "en": chat_pb2.LANGUAGE_EN,
    "et": chat_pb2.LANGUAGE_ET,
    "ru": chat_pb2.LANGUAGE_RU,
}
_FROM_PROTO: dict[int, Lang] = {v: k for k, v in _TO_PROTO.items()}

LANGUAGE_NAMES: dict[Lang, str] = {"en": "English", "et": "Estonian", "ru": "Russian"}

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_ESTONIAN_LETTERS = re.compile(r"[õäöüšžÕÄÖÜŠŽ]")
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_DIGIT = re.compile(r"\d")
# A message's language shows in its opening: the detector reads this much of a long one, so
# its work (the dictionary look at Latin-letter Russian is per word) stays bounded.
TELLING_CHARS = 1_000


def parse_lang(value: str | None) -> Lang | None:
    """'et', 'ET', 'et-EE', 'Estonian' → 'et'; anything else → None."""
    if not value:
        return None
    key = value.strip().lower().replace("_", "-").split("-")[0]
    for lang, name in LANGUAGE_NAMES.items():
        if key in (lang, name.lower()):
            return lang
    return None


def to_proto(lang: Lang | None) -> int:
    return _TO_PROTO[lang] if lang else chat_pb2.LANGUAGE_UNSPECIFIED


def from_proto(value: int) -> Lang | None:
    return _FROM_PROTO.get(value)


# Languages py3langid is asked about beyond ours: what Russian in Latin letters is mistaken
# for. The Latin-script Slavic languages stand for it, and `RussianInLatin` must confirm it (a
# Polish or Czech sentence is not a Russian one). Finnish is not asked: among ours alone,
# Estonian that reads as Finnish is Estonian.
_LATIN_SLAVIC = ("pl", "cs", "sk", "sl", "hr", "bs", "lt", "lv")
_ASKED = (*SUPPORTED, *_LATIN_SLAVIC)
_WORD = re.compile(r"\S+")
_LETTER_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_ASCII_WORD = re.compile(r"[a-z']+")
_morph_local = threading.local()

# People's Latin for Russian is no standard: cyrtranslit writes one spelling back, and these
# are the letters it writes that people also mean otherwise ("c" for ц, "y" for ы/й, "e" for
# э, "ts" for ц, "sch" for щ, a soft sign never typed).
_CYRILLIC_ALTERNATIVES: tuple[tuple[str, str], ...] = (
    ("кх", "х"),
    ("тс", "ц"),
    ("шч", "щ"),
    ("сч", "щ"),
    ("к", "ц"),
    ("и", "ы"),
    ("и", "й"),
    ("ы", "й"),
)
_SOFT_AFTER = set("лнтдсрзмвпб")
_SOFT_AT_END = _SOFT_AFTER | set("шчж")
# Parses that say nothing of a Russian sentence: names and abbreviations ("Тарту", "Хома",
# "Кас" are in the dictionary as places and names).
_NAME_GRAMMEMES = frozenset({"Name", "Surn", "Patr", "Geox", "Orgn", "Trad", "Abbr", "Init"})
_CONSONANTS = set("бвгджзйклмнпрстфхцчшщ")


def _without_identifiers(text: str) -> str:
    """`text` without its identifiers: a token of letters and digits together ("AB1234567",
    "TLN0045571", "123ABC") is a value in no language, and its letters read as one to the
    identifier ("id card status AB1234567" was Russian)."""
    pieces: list[str] = []
    last = 0
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if _DIGIT.search(word) and not word.isdigit():
            pieces.append(text[last : m.start()])
            last = m.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return " ".join(p for p in pieces if p.strip()) or ""


def russian_analyzer() -> Any:
    """This thread's pymorphy3 analyzer, loaded once per thread (`LanguageDetector.warm_up`
    loads it at a service's start): every Russian word lookup shares it."""
    analyzer = getattr(_morph_local, "morph", None)
    if analyzer is None:
        import pymorphy3  # a thread's own: the analyzer is not shared across threads

        analyzer = _morph_local.morph = pymorphy3.MorphAnalyzer()
    return analyzer


@functools.lru_cache(maxsize=4096)
def _cyrillic_spellings(word: str, limit: int = 64) -> tuple[str, ...]:
    """`word` (Latin letters) written in Cyrillic the ways people mean it."""
    import cyrtranslit

    # "j" is cyrtranslit's ж, and people's й or the iotation of я/ю/е ("zajavlenije").
    typed = [word, word.replace("j", "y")] if "j" in word else [word]
    found = []
    for latin in typed:
        base = cyrtranslit.to_cyrillic(latin, "ru").replace("'", "ь")
        if base.isalpha() and not _ASCII_WORD.search(base):
            found.append(base)
    if not found:
        return ()
    base = found[0]
    found += ["э" + spelling[1:] for spelling in list(found) if spelling.startswith("е")]
    for written, meant in _CYRILLIC_ALTERNATIVES:
        for spelling in list(found):
            start = spelling.find(written)
            while start >= 0 and len(found) < limit:
                found.append(spelling[:start] + meant + spelling[start + len(written) :])
                start = spelling.find(written, start + 1)
    for spelling in list(found):
        for i, ch in enumerate(spelling[:-1]):
            after = spelling[i + 1] if i + 1 < len(spelling) else ""
            if ch in _SOFT_AFTER and i > 0 and (after in _CONSONANTS or i == len(spelling) - 1):
                found.append(spelling[: i + 1] + "ь" + spelling[i + 1 :])
        if spelling[-1] in _SOFT_AT_END:
            found.append(spelling + "ь")
    return tuple(dict.fromkeys(found))[:limit]


def cyrillic_reading(text: str) -> str:
    """Russian typed in Latin letters read back in Cyrillic ("skolko let dejstvuet id
    karta" → "сколько лет действует id карта"): each Latin word becomes its first spelling
    that pymorphy3 knows; a word none of whose spellings is Russian stays as it is."""
    analyzer = russian_analyzer()

    def read(match: re.Match[str]) -> str:
        word = match.group(0)
        if len(word) < 2:
            # One letter is a word only as a preposition or conjunction ("s 8 do 12", "v
            # subbotu", "i"): every letter is some abbreviation in the dictionary.
            short = [
                c
                for c in _cyrillic_spellings(word.lower())
                if analyzer.word_is_known(c) and analyzer.parse(c)[0].tag.POS in _ONE_LETTER_POS
            ]
            return short[0] if short else word
        known = [c for c in _cyrillic_spellings(word.lower()) if analyzer.word_is_known(c)]
        return known[0] if known else word

    return _ASCII_LETTERS.sub(read, text)


_ONE_LETTER_POS = frozenset({"PREP", "CONJ"})
_ASCII_LETTERS = re.compile(r"(?<![\w'])[A-Za-z']+(?![\w'])")


@functools.lru_cache(maxsize=8192)
def _is_russian_word(word: str) -> bool:
    analyzer = russian_analyzer()
    return any(
        parse.is_known and _tells_russian(parse)
        for spelling in _cyrillic_spellings(word)
        if analyzer.word_is_known(spelling)
        for parse in analyzer.parse(spelling)
    )


def _tells_russian(parse: Any) -> bool:
    """A word, or a place declined the Russian way ("финляндии", "эстонии"); a name, an
    abbreviation or a place as it stands ("Тарту", "Кас") tells nothing."""
    grammemes = parse.tag.grammemes
    if not (_NAME_GRAMMEMES & grammemes):
        return True
    declined = parse.word != parse.normal_form and "Fixd" not in grammemes
    return declined and "Geox" in grammemes and not (grammemes & {"Name", "Surn", "Patr"})


class RussianInLatin:
    """How much of a Latin-letter text is Russian typed on a Latin keyboard ("skolko stoit
    elektrichestvo"): the letters of its words that, written back in Cyrillic (cyrtranslit,
    with the spellings people mean), are words of pymorphy3's Russian dictionary."""

    def __init__(self, min_word_letters: int = 3) -> None:
        # Short words ("na", "on", "kas", "mis") are Russian words in every language.
        self._min = min_word_letters

    def warm_up(self) -> None:
        """Loads the dictionary on this thread now (≈ 0.2 s), not in the first turn that needs it."""
        _is_russian_word("privet")

    def words(self, text: str) -> list[str]:
        """The words that tell: long enough, and no capitalised name inside the sentence
        ("Tartu", "Viru" are in the Russian dictionary too)."""
        found = _LETTER_WORD.findall(text)
        return [
            w.lower() for i, w in enumerate(found) if len(w) >= self._min and not (i > 0 and w[0].isupper())
        ]

    def russian_words(self, text: str) -> list[str]:
        """The telling words that are Russian words (one with letters beyond ASCII, "päev", is not)."""
        return [w for w in self.words(text) if _ASCII_WORD.fullmatch(w) and _is_russian_word(w)]

    def share(self, text: str) -> float:
        """The share of the telling words' letters that are Russian words."""
        letters = sum(len(w) for w in self.words(text))
        return sum(len(w) for w in self.russian_words(text)) / letters if letters else 0.0


def _restricted_identifier() -> Any:
    """py3langid's identifier over the languages asked about only."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(_ASKED))
    # The identifier keeps its full 97-language table (≈ 27 MiB) only to undo
    # set_languages, which this detector never does: keep the restricted one alone.
    identifier._full_model = (identifier.nb_ptc, identifier.nb_pc, identifier.nb_classes)
    return identifier


class LanguageDetector:
    """py3langid over en/et/ru (the Latin-script Slavic languages it is asked about too
    stand for Russian typed in Latin letters when `RussianInLatin` confirms it), with script shortcuts for
    certain cases and a look at the sentence without its few foreign words: Estonian names
    inside an English or Russian sentence ("Pärnu mnt 10", "jaanipäev") do not make it Estonian."""

    def __init__(
        self,
        min_letters: int = 8,
        min_confidence: float = 0.8,
        *,
        russian_in_latin: RussianInLatin | None = None,
        min_russian_share: float = 0.6,
        clear_russian_share: float = 0.8,
        min_words_confidence: float = 0.75,
        max_words_for_names: int = 16,
        min_short_confidence: float = 0.7,
    ) -> None:
        # The identifier's model (≈ 80 MiB once loaded) is read on first use or at warm_up:
        # a service that is always told the language (the loop) never pays for it.
        self._identifier: Any = None
        self._identifier_lock = threading.Lock()
        self._min_letters = min_letters
        self._min_confidence = min_confidence
        self._russian_in_latin = russian_in_latin or RussianInLatin()
        self._min_russian_share = min_russian_share
        self._clear_russian_share = clear_russian_share
        # Once a sentence's foreign names are left out, the rest must be this clearly of
        # another language. Only a message's worth of words is looked at so: in a page or a
        # long text a few names weigh nothing, and the search is quadratic in words.
        self._max_words_for_names = max_words_for_names
        self._min_words_confidence = min_words_confidence
        # A chat's first message of a few letters around an identifier: the identifier's
        # verdict on it is taken at this share (below it, English as for any short text).
        self._min_short_confidence = min_short_confidence

    def warm_up(self) -> None:
        """Loads the identifier and what the first Latin-letter Russian message would (the
        dictionary) on the calling thread: a service calls it at start, on the thread its
        turns run on."""
        self._identifier_loaded()
        self._russian_in_latin.warm_up()

    def _identifier_loaded(self) -> Any:
        if self._identifier is None:
            with self._identifier_lock:
                if self._identifier is None:
                    self._identifier = _restricted_identifier()
        return self._identifier

    def detect(self, text: str, fallback: Lang | None = None) -> Lang:
        """The message's language, or `fallback` (then English) when it is too short to tell."""
        return self.signal(text, fallback) or fallback or DEFAULT_LANG

    def detect_in_chat(self, text: str, earlier: Iterable[str]) -> Lang:
        """The message's language; for one that carries none ("2027", "123ABC", "ok") or
        too little to be sure, the chat's: that of the latest of `earlier` (newest first)
        that shows one."""
        chat = next((lang for message in earlier if (lang := self.signal(message)) is not None), None)
        found = self.signal(text, fallback=chat) or chat
        if found is None:
            # The first message of a chat, too short to be sure of ("048BMW maks"): its
            # words without the identifier, when the identifier is clear about them, rather
            # than English by default. Inside a chat a short reply keeps the chat's language.
            found = self._short_verdict(text)
        return found or DEFAULT_LANG

    def _short_verdict(self, text: str) -> Lang | None:
        text = text[:TELLING_CHARS]
        words = _without_identifiers(text).strip()
        if words == text.strip() or len(_LETTERS.findall(words)) < 3:
            return None  # only a message around an identifier is read so
        lang, confidence, _ = self._judge(text, by_words=False)
        return lang if confidence >= self._min_short_confidence else None

    def signal(self, text: str, fallback: Lang | None = None) -> Lang | None:
        """The language `text` shows, or None when it shows none; a weak verdict yields to
        `fallback` when one is given."""
        if len(text) > TELLING_CHARS:
            cut = text.rfind(" ", TELLING_CHARS // 2, TELLING_CHARS)
            text = text[: cut if cut > 0 else TELLING_CHARS]
        letters = len(_LETTERS.findall(text))
        if _CYRILLIC.search(text) and len(_CYRILLIC.findall(text)) * 2 >= letters:
            return "ru"
        if letters < self._min_letters:
            return "et" if _ESTONIAN_LETTERS.search(text) else None
        # Judged without its identifiers; the letters counted with them, so a short
        # reply around a number ("zx998877 mis seis") is still told.
        text = _without_identifiers(text) or text
        lang, confidence, _ = self._judge(text)
        if lang == "et" and (other := self._without_foreign_words(text)) is not None:
            return other
        if confidence < self._min_confidence and fallback:
            return fallback
        return lang

    def _judge(self, text: str, *, by_words: bool = True) -> tuple[Lang, float, float]:
        """Ours of the languages asked, its share of the probability, and Estonian's. With
        `by_words`, Russian in Latin letters may be told by its dictionary words alone."""
        scores = dict(self._identifier_loaded().rank(text))
        ours: dict[Lang, float] = {lang: scores.get(lang, 0.0) for lang in SUPPORTED}
        slavic = sum(scores.get(x, 0.0) for x in _LATIN_SLAVIC)
        best = max(ours, key=lambda k: ours[k])
        total = sum(ours.values()) or 1.0
        estonian = ours["et"] / total
        # Typed Russian reads as Polish or Slovene to the identifier; a clear share of
        # dictionary words in a sentence of a few says so also where it reads as Estonian
        # ("naidi adres viru 4") but not surely so, never where it reads as English
        # (loanwords: "internet"). One Russian word is never enough ("where" reads "вере").
        # The dictionary look (dozens of spellings per word) runs only where the identifier
        # leans Slavic or is unsure of a non-English verdict: a plain Estonian sentence costs none.
        slavic_lead = slavic > ours[best]
        may_be_clear = by_words and best != "en" and ours[best] < self._min_words_confidence
        if not _CYRILLIC.search(text) and (slavic_lead or may_be_clear):
            share = self._russian_in_latin.share(text)
            clear = may_be_clear and share >= self._clear_russian_share
            if (
                share >= self._min_russian_share
                and len(self._russian_in_latin.russian_words(text)) >= 2
                and (slavic_lead or clear)
            ):
                # As sure as the surer of the two signals (the share is no probability, but
                # a sentence of dictionary words is Russian beyond the detector's doubt).
                return "ru", max(share, slavic / (slavic + total)), estonian
        return best, ours[best] / total, estonian

    def _without_foreign_words(self, text: str) -> Lang | None:
        """Another language the sentence is clearly in once fewer than half of its words
        (names: streets, towns, holidays) are left out, greedily the most telling first."""
        words = _WORD.findall(text)
        drops = (len(words) - 1) // 2
        if drops < 1 or len(words) > self._max_words_for_names:
            return None
        kept = list(words)
        for _ in range(drops):
            # The word whose leaving out makes the rest least Estonian.
            best: tuple[float, int, Lang, float] | None = None
            for i in range(len(kept)):
                rest = " ".join(kept[:i] + kept[i + 1 :])
                if len(_LETTERS.findall(rest)) < self._min_letters:
                    continue
                # What is left of a sentence is short: its dictionary words alone prove
                # nothing ("mis kell kino" reads "мыс целл кино"), the identifier must agree.
                lang, confidence, estonian = self._judge(rest, by_words=False)
                if best is None or estonian < best[0]:
                    best = (estonian, i, lang, confidence)
            if best is None:
                return None
            _, i, lang, confidence = best
            if lang != "et" and confidence >= self._min_words_confidence:
                return lang
            del kept[i]
        return None
