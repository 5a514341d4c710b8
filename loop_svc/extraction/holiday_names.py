"""Holidays named in a message ("Christmas Eve", "jõululaupäeval", "сочельник", "Easter
Monday", "over Christmas", "jõulude ajal", "на Рождество") → their dates, from the
`holidays` package: its per-language names (en_US, et, ru, ...) of a few reference
countries are the vocabulary, each name standing for its English (en_US) name; the
dates come from the country the message names (else the home country), in the year the
message names (else the next occurrence from today, or the last one for the past).

A name whose every word is in the message is that holiday ("Christmas Eve"); a word
that only starts or ends some names ("Christmas", "jõulu-", "рождеств-") is the whole
family: every holiday of that country whose name it touches ("over Christmas" → 24–26
December in Estonia). Words are compared by Snowball stem with diacritics folded away.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import holidays as holidays_lib

from loop_svc.extraction.text import fold, stem, words
from services.language import Lang

# The package's language codes for the mesh's languages.
_PACKAGE_LANGUAGES: dict[Lang, str] = {"en": "en_US", "et": "et", "ru": "ru"}
# Countries whose names (in whichever of en/et/ru the package has) make the vocabulary.
REFERENCE_COUNTRIES = ("EE", "LV", "LT", "FI", "DE")
# Words every other holiday name has: they name no holiday by themselves.
_GENERIC = frozenset(
    {"day", "days", "holiday", "holidays", "public", "national", "eve", "of", "the", "and", "s"}
    | {"päev", "paev", "püha", "puha", "pühad", "pühade", "riigipüha", "esimene", "teine", "laupäev"}
    | {"день", "праздник", "праздники", "второй", "первый", "год"}
)
_MIN_STEM = 4
# Names people use that the package's name tables lack (their holidays by the package's
# English names): the church and folk names of the movable feasts and of midsummer, and
# the whole of Easter said in one word ("lihavõtted", "Easter holidays").
_EASTER = ("Good Friday", "Easter Sunday", "Easter Monday")
_WHIT_MONDAY = ("Pentecost Monday", "Whit Monday")
ALIASES: dict[Lang, dict[str, tuple[str, ...]]] = {
    "en": {
        "whitsun": ("Pentecost",),
        "whit sunday": ("Pentecost",),
        "whitsunday": ("Pentecost",),
        "whit monday": _WHIT_MONDAY,
        "easter holidays": _EASTER,
        "boxing day": ("Second Day of Christmas",),
        "st john's day": ("Midsummer Day",),
    },
    "et": {
        "lihavõtted": _EASTER,
        "lihavõttepühad": _EASTER,
        "ülestõusmispühad": _EASTER,
        "nelipühad": ("Pentecost",),
        "nelipüha": ("Pentecost",),
        "nelipühade teine püha": _WHIT_MONDAY,
    },
    "ru": {
        "пасхальные праздники": _EASTER,
        "троица": ("Pentecost",),
        "пятидесятница": ("Pentecost",),
        "духов день": _WHIT_MONDAY,
        "иванов день": ("Midsummer Day",),
        "янов день": ("Midsummer Day",),
        "юханнус": ("Midsummer Eve", "Midsummer Day"),
        "вознесение": ("Ascension Day",),
    },
}


@dataclass(frozen=True)
class HolidayMention:
    dates: tuple[date, ...]
    start: int
    end: int


@dataclass(frozen=True)
class _Name:
    english: str
    stems: tuple[str, ...]


def _stems(text: str, lang: Lang) -> list[tuple[str, int, int]]:
    return [(fold(stem(w.text, lang)), w.start, w.end) for w in words(text) if not w.text.isdigit()]


_Stem = tuple[str, int, int]


def _outside(stems: list[_Stem], skip: Iterable[tuple[int, int]]) -> list[_Stem]:
    """The words overlapping none of the spans: one pass over both in order (a message
    naming a country hundreds of times must not cost words × spans)."""
    spans = sorted(skip)
    kept, i = [], 0
    for word in stems:
        _, start, end = word
        while i < len(spans) and spans[i][1] <= start:
            i += 1
        # Words come in order, so a span ending before this word ends before every later one.
        if i < len(spans) and spans[i][0] < end:
            continue
        kept.append(word)
    return kept


class HolidayNames:
    """Build once (≈ 0.3 s) and share: it reads the package's names for a few years."""

    def __init__(self, home_country: str = "EE", reference: Iterable[str] = REFERENCE_COUNTRIES) -> None:
        self._home = home_country.upper()
        self._countries = tuple(dict.fromkeys([self._home, *reference]))
        self._names: dict[Lang, list[_Name]] = defaultdict(list)
        year = date.today().year
        for code in self._countries:
            supported = set(holidays_lib.country_holidays(code).supported_languages)
            english = holidays_lib.country_holidays(code, years=[year, year + 1], language="en_US")
            for lang, package_lang in _PACKAGE_LANGUAGES.items():
                if package_lang not in supported:
                    continue
                local = holidays_lib.country_holidays(code, years=[year, year + 1], language=package_lang)
                for day, local_name in local.items():
                    for one_local, one_english in zip(
                        local_name.split("; "), english.get(day, "").split("; "), strict=False
                    ):
                        name_stems = tuple(s for s, _, _ in _stems(one_local, lang))
                        if name_stems and one_english:
                            self._names[lang].append(_Name(one_english, name_stems))
        for lang, aliases in ALIASES.items():
            for alias, english_names in aliases.items():
                alias_stems = tuple(s for s, _, _ in _stems(alias, lang))
                self._names[lang].extend(_Name(english, alias_stems) for english in english_names)
        self._dates: dict[tuple[str, int], dict[str, list[date]]] = {}

    def _by_english(self, country: str, year: int) -> dict[str, list[date]]:
        key = (country, year)
        if key not in self._dates:
            found: dict[str, list[date]] = defaultdict(list)
            calendar: Mapping[date, str]
            try:
                calendar = holidays_lib.country_holidays(country, years=year, language="en_US")
            except NotImplementedError:
                calendar = {}
            for day, name in calendar.items():
                for one in name.split("; "):
                    found[one].append(day)
            self._dates[key] = dict(found)
        return self._dates[key]

    def _date_of(self, english: str, country: str, year: int, anywhere: bool) -> date | None:
        """The date in `country`, or (`anywhere`) in the first reference country that has
        it ("Easter Monday" is not an Estonian holiday, but it has a date)."""
        codes = dict.fromkeys([country, self._home, *self._countries]) if anywhere else [country]
        for code in codes:
            days = self._by_english(code, year).get(english)
            if days:
                return days[0]
        return None

    def find(
        self,
        text: str,
        lang: Lang,
        today: date,
        *,
        country: str | None = None,
        year: int | None = None,
        past: bool = False,
        skip: Iterable[tuple[int, int]] = (),
        families: bool = True,
    ) -> list[HolidayMention]:
        """The holiday(s) the message names; words inside `skip` (a country's name, which
        some holiday names contain) are not read."""
        message = _outside(_stems(text, lang), skip)
        if not message:
            return []
        target = (country or self._home).upper()
        chosen, span = self._match(message, self._names.get(lang, []), families)
        if not chosen:
            return []
        years = [year] if year is not None else [today.year - 1, today.year, today.year + 1]
        anywhere = not any(self._date_of(name, target, y, False) for name in chosen for y in years)
        if year is not None:
            days = [d for d in (self._date_of(name, target, year, anywhere) for name in chosen) if d]
        else:
            days = []
            for name in chosen:
                options = [self._date_of(name, target, y, anywhere) for y in years]
                present = [d for d in options if d is not None]
                if past:
                    earlier = [d for d in present if d <= today]
                    day = max(earlier) if earlier else None
                else:
                    later = [d for d in present if d >= today]
                    day = min(later) if later else None
                if day is not None:
                    days.append(day)
        if not days:
            return []
        return [HolidayMention(tuple(sorted(days)), span[0], span[1])]

    def _match(
        self, message: list[tuple[str, int, int]], names: list[_Name], families: bool
    ) -> tuple[list[str], tuple[int, int]]:
        def same(said: str, name_stem: str) -> bool:
            # The message's word is the name's word, maybe inflected past its stem.
            return said == name_stem or (len(name_stem) >= _MIN_STEM and said.startswith(name_stem))

        # The message's words by their first letters, in order: a name's word is looked
        # up among the words it can match, not against the whole message (a long message
        # would cost its length times the number of names).
        by_prefix: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
        for m in message:
            by_prefix[m[0][:_MIN_STEM]].append(m)

        def first_hit(name_stem: str) -> tuple[str, int, int] | None:
            return next((m for m in by_prefix.get(name_stem[:_MIN_STEM], ()) if same(m[0], name_stem)), None)

        # Every word of a name present: that holiday (the longest names first).
        full: dict[str, tuple[int, tuple[int, int]]] = {}
        for name in names:
            hits = []
            for name_stem in name.stems:
                hit = first_hit(name_stem)
                if hit is None:
                    break
                hits.append(hit)
            else:
                distinctive = [h for h in hits if h[0] not in _GENERIC]
                if distinctive:
                    span = (min(h[1] for h in hits), max(h[2] for h in hits))
                    if len(hits) > full.get(name.english, (0, span))[0]:
                        full[name.english] = (len(hits), span)
        if full:
            best = max(n for n, _ in full.values())
            chosen = [english for english, (n, _) in full.items() if n == best]
            spans = [full[e][1] for e in chosen]
            return chosen, (min(s for s, _ in spans), max(e for _, e in spans))
        if not families:
            return [], (0, 0)
        # A word that begins or ends some names: the family of holidays it names.
        seen: set[str] = set()
        for word, start, end in message:
            if word in _GENERIC or len(word) < _MIN_STEM + 1 or word in seen:
                continue
            seen.add(word)  # a word said again names the same family (or none) again
            family = sorted(
                {
                    name.english
                    for name in names
                    if any(
                        len(s) >= _MIN_STEM
                        and (s.startswith(word) or (word.startswith(s) and s not in _GENERIC))
                        for s in name.stems
                    )
                }
            )
            if 0 < len(family) <= 4:
                return family, (start, end)
        return [], (0, 0)
