"""Country names in en/et/ru → ISO 3166-1 alpha-2, inflected forms included.

Names come from pycountry and its bundled gettext translations (English names
plus their Estonian and Russian translations); each name is stemmed with its
language's Snowball stemmer so "Eestis", "Lätis", "Эстонии" and "Латвии" match
"Eesti", "Läti", "Эстония" and "Латвия". `pycountry.search_fuzzy` is
English-only, hence the map.

Names typed loosely are found too: without diacritics ("latis" → Läti), with one typo
in a name of six letters or more ("lativa", "finalnd", "germny": rapidfuzz's OSA
distance 1 to a name, same first letter), and Russian typed in Latin letters ("v
estonii", "latvii", "polshe": cyrtranslit's Cyrillic, Snowball-stemmed, compared with
the Russian names' stems without soft signs, exactly, or within distance 1 for stems of
six letters or more — people's Latin is not cyrtranslit's, "c" becomes "к").
"""

from __future__ import annotations

import functools
import gettext
import re
from dataclasses import dataclass

import cyrtranslit
import pycountry
import pytz
from babel import Locale
from rapidfuzz import process
from rapidfuzz.distance import OSA

from loop_svc.extraction.text import ESTONIAN_CASE_ENDINGS, Word, fold, stem, words
from services.language import Lang, russian_analyzer

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
# The people of a country, said for the country ("у латышей Лиго", "soomlastel on vaba
# päev", "do the finns have a day off"): matched like names, by stem (plural forms that
# stem too short to be matched by stem are listed as written).
_DEMONYMS: dict[Lang, dict[str, str]] = {
    "en": {
        "estonians": "EE",
        "latvians": "LV",
        "lithuanians": "LT",
        "finns": "FI",
        "germans": "DE",
        "swedes": "SE",
        "norwegians": "NO",
        "danes": "DK",
        "poles": "PL",
    },
    "et": {
        "eestlased": "EE",
        "lätlased": "LV",
        "leedukad": "LT",
        "soomlased": "FI",
        "sakslased": "DE",
        "rootslased": "SE",
        "norralased": "NO",
        "taanlased": "DK",
        "poolakad": "PL",
    },
    "ru": {
        "эстонцы": "EE",
        "латыши": "LV",
        "литовцы": "LT",
        "финны": "FI",
        "финнов": "FI",
        "финов": "FI",
        "финам": "FI",
        "финнам": "FI",
        "немцы": "DE",
        "шведы": "SE",
        "норвежцы": "NO",
        "датчане": "DK",
        "поляки": "PL",
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
# Estonian case endings a place name takes ("Riias", "Helsingist", "Berliini", "Vilniusesse"
# after the stem vowel), longest first: a token is the name when the name is left after one.
_PLACE_CASE_ENDINGS = tuple(sorted(ESTONIAN_CASE_ENDINGS, key=len, reverse=True))
_CASE_BASE_MIN_LENGTH = 4
_STEM_VOWELS = "aeiu"
_CYRILLIC = re.compile(r"[а-яё]")
_LANGUAGE_PREPOSITIONS = frozenset({"in", "на", "по"})
# Names that are also common words in that language ("того" = "of that").
_COMMON_WORDS = frozenset({"того"})
# Stems this short collide with ordinary words ("Мали" → "мал" = "мало"):
# such names must appear exactly as written.
_SHORT_STEM = 3
_MAX_NAME_WORDS = 5
_LANGS: tuple[Lang, ...] = ("en", "et", "ru")
# Typos are read only in names this long: shorter ones are too often other words ("poole").
_FUZZY_MIN_LENGTH = 6
_LATIN_RUSSIAN_MIN_LENGTH = 5
_CYRILLIC_FOLD = str.maketrans({"э": "е", "ё": "е", "й": "и", "ь": None, "ъ": None})


# The European cities time zones are named after stand for their country ("coming over
# from riga", "elame helsingis", "сестра живет в хельсинки"): tz's country of each zone,
# the city's name in English from the zone, in Estonian and Russian from babel (CLDR).
_CITY_ZONES = "Europe/"


def city_names() -> dict[Lang, dict[str, str]]:
    """City name (lower case) → ISO code, by language."""
    out: dict[Lang, dict[str, str]] = {lang: {} for lang in _LANGS}
    zones = {
        z: c.upper() for c, zs in pytz.country_timezones.items() for z in zs if z.startswith(_CITY_ZONES)
    }
    others: tuple[Lang, ...] = ("et", "ru")
    localized = {lang: Locale.parse(lang).time_zones for lang in others}
    for zone, code in zones.items():
        english = zone.removeprefix(_CITY_ZONES).replace("_", " ")
        out["en"][english.lower()] = code
        for lang, names in localized.items():
            name = str(names.get(zone, {}).get("city") or english).lower()
            # A name a message's words cannot spell ("i̇stanbul" lower-cased with its dot) is left.
            if name.replace(" ", "").replace("-", "").isalpha():
                out[lang][name] = code
    return out


def _cyrillic_key(text: str) -> str:
    return text.lower().translate(_CYRILLIC_FOLD)


@dataclass(frozen=True)
class CountryMention:
    code: str
    start: int
    end: int


class CountryNames:
    """Finds country mentions in a message. Build once (≈ 30 ms) and share."""

    def __init__(self) -> None:
        # A token's loose reading (a fuzzy search over every country name) once per
        # distinct token: a long message repeats its words.
        self._loose = functools.lru_cache(maxsize=1 << 14)(self._loose_reading)
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
        for table in (_ALIASES, _DEMONYMS):
            for lang, aliases in table.items():
                for name, code in aliases.items():
                    self._add(name, lang, code)
        # One-word names, diacritics folded, for typo-tolerant lookups.
        self._folded: dict[str, str] = {}
        for key, code in self._exact.items():
            if len(key) == 1:
                self._folded.setdefault(fold(key[0]), code)
        for lang in ("en", "et"):
            for key, code in self._stemmed[lang].items():
                if len(key) == 1:
                    self._folded.setdefault(fold(key[0]), code)
        self._fuzzy_names = [n for n in self._folded if len(n) >= _FUZZY_MIN_LENGTH]
        self._russian_stems = {
            _cyrillic_key(key[0]): code for key, code in self._stemmed["ru"].items() if len(key) == 1
        }
        # Short stems ("Дания" → "дан") only for Latin-letter Russian, where a whole case
        # form must lead to them ("danii").
        for country in pycountry.countries:
            name = translations["ru"].gettext(getattr(country, "common_name", None) or country.name)
            if " " not in name and len(name) >= _LATIN_RUSSIAN_MIN_LENGTH:
                self._russian_stems.setdefault(_cyrillic_key(stem(name, "ru")), country.alpha_2)
        self._russian_keys = list(self._russian_stems)
        # One-word city names, never stemmed ("Viin" and "viimast" share a stem), as written
        # and folded; a word written with diacritics is matched as written ("päris" is no
        # "Paris").
        self._cities: dict[str, str] = {}
        self._folded_cities: dict[str, str] = {}
        for cities in city_names().values():
            for name, code in cities.items():
                if " " not in name and "-" not in name:
                    self._cities.setdefault(name, code)
                    self._folded_cities.setdefault(fold(name), code)
        self._city = functools.lru_cache(maxsize=1 << 14)(self._city_reading)
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
                # A city as written before a country within one typo ("vienna" is no "vietnam").
                code = None if _in_street_address(tokens, i) else self._city(tokens[i].text)
                if code is None:
                    code = self._loose(tokens[i].text)
                if code is not None:
                    mentions.append(CountryMention(code, tokens[i].start, tokens[i].end))
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

    def _loose_reading(self, token: str) -> str | None:
        """A country named without diacritics, with one typo, or in Latin-letter Russian."""
        if not token.isalpha():
            return None
        folded = fold(token)
        for lang in ("et", "en"):
            code = self._folded.get(folded) or self._folded.get(fold(stem(token, lang)))
            if code:
                return code
        if len(folded) >= _FUZZY_MIN_LENGTH - 1:
            close = process.extract(
                folded, self._fuzzy_names, scorer=OSA.distance, score_cutoff=1, limit=None
            )
            codes = {self._folded[name] for name, _, _ in close if name[0] == folded[0]}
            if len(codes) == 1:  # one country within one typo, or none: never a guess between two
                return codes.pop()
        if token.isascii() and len(token) >= _LATIN_RUSSIAN_MIN_LENGTH:
            russian = _cyrillic_key(stem(cyrtranslit.to_cyrillic(token.lower(), "ru"), "ru"))
            if len(russian) < _SHORT_STEM:
                return None
            code = self._russian_stems.get(russian)
            if code:
                return code
            match = process.extractOne(russian, self._russian_keys, scorer=OSA.distance, score_cutoff=1)
            if match is not None and len(russian) >= _FUZZY_MIN_LENGTH and match[0][0] == russian[0]:
                return self._russian_stems[match[0]]
        return None

    def _city_reading(self, token: str) -> str | None:
        """The country of a city named as written, in an Estonian case ("Riias",
        "Helsingist", "Berliinis") or in a Russian one pymorphy3 reads as a place ("в Риге",
        "из Вильнюса")."""
        if not token.isalpha():
            return None
        written = token.lower()
        cities = self._folded_cities if written.isascii() else self._cities
        if written in cities:
            return cities[written]
        for ending in _PLACE_CASE_ENDINGS:
            base = written.removesuffix(ending)
            if base == written or len(base) < _CASE_BASE_MIN_LENGTH:
                continue
            # The ending follows the genitive stem: "Tallinna|st", "Berliini|s", "Vilniuse|sse".
            for name in (base, base[:-1] if base[-1] in _STEM_VOWELS else base):
                if name in cities:
                    return cities[name]
        if _CYRILLIC.search(written):
            for parse in russian_analyzer().parse(written):
                if "Geox" in parse.tag and (code := self._cities.get(parse.normal_form.replace("ё", "е"))):
                    return code
        return None


# A city this near a house number is part of an address ("viru 4 tallinn", "riia 15 tartus",
# "индекс у виру 4 в таллине"), no country asked about.
_ADDRESS_REACH = 3


def _in_street_address(tokens: list[Word], i: int) -> bool:
    near = tokens[max(0, i - _ADDRESS_REACH) : i] + tokens[i + 1 : i + 2]
    return any(t.text[:1].isdigit() for t in near)


def _used_as_language(tokens: list[Word], after: int) -> bool:
    if after >= len(tokens):
        return False
    following = tokens[after].lower
    return following.startswith(("keel", "language", "язык"))
