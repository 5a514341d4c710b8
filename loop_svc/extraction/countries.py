"""Country names in en/et/ru → ISO 3166-1 alpha-2, inflected forms included.

Names come from pycountry and its bundled gettext translations (English names
plus their Estonian and Russian translations); each name is stemmed with its
language's Snowball stemmer so "Eestis", "Lätis", "Эстонии" and "Латвии" match
"Eesti", "Läti", "Эстония" and "Латвия". `pycountry.search_fuzzy` is
English-only, hence the map.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass

import pycountry

from loop_svc.extraction.text import Word, stem, words
from services.language import Lang

# Everyday names the ISO lists spell differently ("Russian Federation").
_ALIASES: dict[Lang, dict[str, str]] = {
    "en": {
        "russia": "RU",
        "usa": "US",
        "america": "US",
        "uk": "GB",
        "britain": "GB",
        "great britain": "GB",
        "england": "GB",
        "south korea": "KR",
        "north korea": "KP",
        "korea": "KR",
        "vietnam": "VN",
        "iran": "IR",
        "syria": "SY",
        "moldova": "MD",
        "bolivia": "BO",
        "venezuela": "VE",
        "tanzania": "TZ",
        "laos": "LA",
        "czech republic": "CZ",
        "turkey": "TR",
        "holland": "NL",
        "taiwan": "TW",
    },
    "et": {
        "venemaa": "RU",
        "usa": "US",
        "ameerika": "US",
        "inglismaa": "GB",
        "lõuna-korea": "KR",
        "põhja-korea": "KP",
        "tšehhi": "CZ",
        "holland": "NL",
        "türgi": "TR",
        "valgevene": "BY",
    },
    "ru": {
        "россия": "RU",
        "рф": "RU",
        "сша": "US",
        "америка": "US",
        "англия": "GB",
        "великобритания": "GB",
        "южная корея": "KR",
        "северная корея": "KP",
        "чехия": "CZ",
        "голландия": "NL",
        "турция": "TR",
        "молдавия": "MD",
        "молдова": "MD",
        "белоруссия": "BY",
        "беларусь": "BY",
    },
}
# Adjectives that name a country ("Estonian holidays", "эстонские праздники", "saksa pühad").
# After "in"/"на" they name a language instead ("in Estonian", "на эстонском").
_ADJECTIVES: dict[Lang, dict[str, str]] = {
    "en": {
        "estonian": "EE",
        "latvian": "LV",
        "lithuanian": "LT",
        "finnish": "FI",
        "swedish": "SE",
        "norwegian": "NO",
        "danish": "DK",
        "german": "DE",
        "polish": "PL",
        "french": "FR",
        "spanish": "ES",
        "italian": "IT",
        "dutch": "NL",
        "belgian": "BE",
        "austrian": "AT",
        "swiss": "CH",
        "czech": "CZ",
        "slovak": "SK",
        "hungarian": "HU",
        "portuguese": "PT",
        "irish": "IE",
        "greek": "GR",
        "british": "GB",
        "american": "US",
        "ukrainian": "UA",
        "russian": "RU",
        "icelandic": "IS",
        "croatian": "HR",
        "slovenian": "SI",
        "romanian": "RO",
        "bulgarian": "BG",
    },
    "et": {
        "läti": "LV",
        "leedu": "LT",
        "rootsi": "SE",
        "norra": "NO",
        "taani": "DK",
        "saksa": "DE",
        "poola": "PL",
        "prantsuse": "FR",
        "hispaania": "ES",
        "itaalia": "IT",
        "vene": "RU",
        "ukraina": "UA",
        "soome": "FI",
    },
    "ru": {
        "эстонский": "EE",
        "латвийский": "LV",
        "латышский": "LV",
        "литовский": "LT",
        "финский": "FI",
        "шведский": "SE",
        "норвежский": "NO",
        "датский": "DK",
        "немецкий": "DE",
        "германский": "DE",
        "польский": "PL",
        "французский": "FR",
        "испанский": "ES",
        "итальянский": "IT",
        "российский": "RU",
        "украинский": "UA",
        "британский": "GB",
        "американский": "US",
    },
}
_LANGUAGE_PREPOSITIONS = frozenset({"in", "на", "по"})
# Names that are also common words in that language ("того" = "of that").
_COMMON_WORDS = frozenset({"того"})
# Stems this short collide with ordinary words ("Мали" → "мал" = "мало"):
# such names must appear exactly as written.
_SHORT_STEM = 3
_MAX_NAME_WORDS = 5
_LANGS: tuple[Lang, ...] = ("en", "et", "ru")


@dataclass(frozen=True)
class CountryMention:
    code: str
    start: int
    end: int


class CountryNames:
    """Finds country mentions in a message. Build once (≈ 30 ms) and share."""

    def __init__(self) -> None:
        self._stemmed: dict[Lang, dict[tuple[str, ...], str]] = {lang: {} for lang in _LANGS}
        self._exact: dict[tuple[str, ...], str] = {}
        self.codes = frozenset(c.alpha_2 for c in pycountry.countries)
        translations: dict[Lang, gettext.NullTranslations] = {
            lang: gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
            for lang in ("et", "ru")
        }
        for country in pycountry.countries:
            for attr in ("name", "official_name", "common_name"):
                english = getattr(country, attr, None)
                if not english:
                    continue
                self._add(english, "en", country.alpha_2)
                for lang, translation in translations.items():
                    self._add(translation.gettext(english), lang, country.alpha_2)
        for lang, aliases in _ALIASES.items():
            for name, code in aliases.items():
                self._add(name, lang, code)
        self._adjectives: set[tuple[str, ...]] = set()
        for lang, adjectives in _ADJECTIVES.items():
            for name, code in adjectives.items():
                self._add(name, lang, code)
                self._adjectives.add((stem(name, lang),))

    def _add(self, name: str, lang: Lang, code: str) -> None:
        name_words = [w.lower for w in words(name)]
        if not name_words or len(name_words) > _MAX_NAME_WORDS or name.lower() in _COMMON_WORDS:
            return
        self._exact.setdefault(tuple(name_words), code)
        stemmed = tuple(stem(w, lang) for w in name_words)
        if len(stemmed) == 1 and len(stemmed[0]) <= _SHORT_STEM:
            return
        self._stemmed[lang].setdefault(stemmed, code)

    def find(self, text: str) -> list[CountryMention]:
        """Country mentions in order of appearance, longest names first.
        A name used as a language ("eesti keeles") is not a country mention."""
        tokens = words(text)
        lowered = [t.lower for t in tokens]
        stemmed = {lang: [stem(t.text, lang) for t in tokens] for lang in _LANGS}
        mentions: list[CountryMention] = []
        i = 0
        while i < len(tokens):
            found = self._match_at(i, lowered, stemmed)
            if found is None:
                i += 1
                continue
            code, n = found
            adjective = n == 1 and any((stemmed[lang][i],) in self._adjectives for lang in _LANGS)
            after_preposition = i > 0 and lowered[i - 1] in _LANGUAGE_PREPOSITIONS
            if not _used_as_language(tokens, i + n) and not (adjective and after_preposition):
                mentions.append(CountryMention(code, tokens[i].start, tokens[i + n - 1].end))
            i += n
        return mentions

    def _match_at(self, i: int, lowered: list[str], stemmed: dict[Lang, list[str]]) -> tuple[str, int] | None:
        for n in range(min(_MAX_NAME_WORDS, len(lowered) - i), 0, -1):
            if lowered[i] in _COMMON_WORDS:
                return None
            exact = self._exact.get(tuple(lowered[i : i + n]))
            if exact:
                return exact, n
            for lang in _LANGS:
                code = self._stemmed[lang].get(tuple(stemmed[lang][i : i + n]))
                if code:
                    return code, n
        return None


def _used_as_language(tokens: list[Word], after: int) -> bool:
    if after >= len(tokens):
        return False
    following = tokens[after].lower
    return following.startswith(("keel", "language", "язык"))
