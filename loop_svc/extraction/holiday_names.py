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
    | {"päev", "paev", "püha", "puha", "pühad", "pühade", "riigipüha", "esimene", "teine", "laupäev", "aasta"}
    | {"день", "праздник", "праздники", "второй", "первый", "год"}
    # "day" in the reference countries' own languages (lv/lt "diena", fi "päivä", de "Tag").
    | {"diena", "dien", "päivä", "paiva", "paev", "tag"}
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
        "easter": _EASTER,
        "boxing day": ("Second Day of Christmas",),
        "st john's day": ("Midsummer Day",),
        "new year": ("New Year's Eve", "New Year's Day"),
    },
    "et": {
        "lihavõtted": _EASTER,
        "lihavõttepühad": _EASTER,
        "ülestõusmispühad": _EASTER,
        "nelipühad": ("Pentecost",),
        "nelipüha": ("Pentecost",),
        "nelipühade teine püha": _WHIT_MONDAY,
        "taevaminemispüha": ("Ascension Day",),
        "taevaminemise püha": ("Ascension Day",),
        "jaanilaupäev": ("Midsummer Eve",),
        "emadepäev": ("Mother's Day",),
        "isadepäev": ("Father's Day",),
        "vana-aasta": ("New Year's Eve",),
        "vanaaasta": ("New Year's Eve",),
        "vana-aastaõhtu": ("New Year's Eve",),
        "aastavahetus": ("New Year's Eve", "New Year's Day"),
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
        "день независимости": ("Independence Day",),
        "день матери": ("Mother's Day",),
        "день отца": ("Father's Day",),
        "канун нового года": ("New Year's Eve",),
        "новогодняя ночь": ("New Year's Eve", "New Year's Day"),
    },
}


# Words of an English holiday name that pick one day of a feast: never lost when a name is
# matched to another country's ("Christmas Eve" in Germany is no "Christmas Day").
_DAY_OF_A_FEAST = frozenset({"eve", "monday", "sunday", "friday", "thursday", "saturday", "second", "first"})
_ENGLISH_FILLER = frozenset({"day", "days", "of", "the", "and", "s", "holiday", "national", "public"})


def _english_words(name: str) -> frozenset[str]:
    """An English holiday name's words that say which holiday ("Restoration of
    Independence Day" → restoration, independence); a country's own name is one of them."""
    return frozenset(w for w, _, _ in _stems(name, "en") if w not in _ENGLISH_FILLER)


_AND = frozenset({"and", "ja", "и", "or", "või", "voi", "или", "&"})


def _joined(message: list[tuple[str, int, int]], spans: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """The words joined by a conjunction to a span: the one before "X and" and the one
    after "and X" (the word right after a preposition too: "and on Christmas")."""
    out: list[tuple[str, int, int]] = []
    for i, (word, _, _) in enumerate(message):
        if word not in _AND:
            continue
        before = message[i - 1] if i > 0 else None
        after = message[i + 1 : i + 3]
        if before is not None and any(a <= before[1] < b for a, b in spans):
            out.extend(m for m in after if not any(a <= m[1] < b for a, b in spans))
        elif after and any(a <= after[0][1] < b for a, b in spans) and i > 0:
            out.extend(m for m in message[max(0, i - 2) : i] if not any(a <= m[1] < b for a, b in spans))
    return out


# How far (in characters) a name's generic word may stand from its own words.
_NAME_REACH = 4


def _near_any(word: tuple[str, int, int], others: list[tuple[str, int, int]]) -> bool:
    return any(word[1] - o[2] <= _NAME_REACH and o[1] - word[2] <= _NAME_REACH for o in others)


def _relation(wanted: frozenset[str], theirs: frozenset[str]) -> str:
    """How a country's holiday name's words stand to the words of the name said."""
    if theirs == wanted:
        return "same"
    if wanted < theirs:
        return "more"
    return "fewer" if theirs < wanted else "other"


@dataclass(frozen=True)
class HolidayMention:
    dates: tuple[date, ...]
    start: int
    end: int


@dataclass(frozen=True)
class _Name:
    english: str
    stems: tuple[str, ...]
    # A country's own name ("Līgo diena"): its one word of its own names it ("Līgo").
    local: bool = False


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
                        if "(" in one_local:
                            # A day the package notes ("Day off (substituted from …)",
                            # "… (выходной)"): no holiday's name people say.
                            continue
                        name_stems = tuple(s for s, _, _ in _stems(one_local, lang))
                        if name_stems and one_english:
                            self._names[lang].append(_Name(one_english, name_stems))
        # Each reference country's own names ("Līgo diena", "Motinos diena", "Juhannus",
        # "Karfreitag"), said as they are in any of the three languages: read as written
        # (folded, the English stemmer only cuts endings), in every vocabulary.
        for code in self._countries:
            calendar = holidays_lib.country_holidays(code)
            local_lang = calendar.default_language
            if not local_lang or local_lang in _PACKAGE_LANGUAGES.values():
                continue
            english = holidays_lib.country_holidays(code, years=[year, year + 1], language="en_US")
            local = holidays_lib.country_holidays(code, years=[year, year + 1], language=local_lang)
            for day, local_name in local.items():
                for one_local, one_english in zip(
                    local_name.split("; "), english.get(day, "").split("; "), strict=False
                ):
                    if "(" in one_local or not one_english:
                        continue
                    for lang in _PACKAGE_LANGUAGES:
                        name_stems = tuple(s for s, _, _ in _stems(one_local, lang))
                        if name_stems:
                            self._names[lang].append(_Name(one_english, name_stems, local=True))
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
        target = (country or self._home).upper()
        chosen: list[str] = []
        span = (0, 0)
        # The message's language first; then a name in another of the three ("jaanipäev"
        # in English, "Midsummer" in Estonian), read with that language's stemmer.
        for vocabulary in dict.fromkeys([lang, *_PACKAGE_LANGUAGES]):
            message = _outside(_stems(text, vocabulary), skip)
            if not message:
                return []
            chosen, span = self._match(
                message,
                self._names.get(vocabulary, []),
                families and vocabulary == lang,
                joined=vocabulary == lang,
            )
            if chosen:
                break
        if not chosen:
            return []
        years = [year] if year is not None else [today.year - 1, today.year, today.year + 1]
        chosen = self._in_country(chosen, target, years)
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
        return [HolidayMention(tuple(sorted(set(days))), span[0], span[1])]

    def _in_country(self, chosen: list[str], country: str, years: list[int]) -> list[str]:
        """The names as `country` has them: a holiday another country calls otherwise
        ("Independence Day" said of Latvia or Lithuania, whose days are "Restoration of
        Independence ...") is the country's holiday whose English name shares the most
        distinctive words with it; names the country has stay as they are."""
        own = {name for y in years for name in self._by_english(country, y)}
        if not own or all(name in own for name in chosen):
            return chosen
        out = [name for name in chosen if name in own]
        for name in chosen:
            if name in own:
                continue
            wanted = _english_words(name)
            # The country's name with the same words, else one holding them all, else one
            # whose words it holds; never differing in a word that picks a day of a feast
            # ("Christmas Eve" is not "Christmas Day", nor "Easter Monday" "Easter Sunday").
            candidates = [
                (theirs, words)
                for theirs in sorted(own)
                if wanted and (words := _english_words(theirs)) and not (wanted ^ words) & _DAY_OF_A_FEAST
            ]
            similar: list[str] = []
            for tier in ("same", "more", "fewer"):
                similar = [theirs for theirs, words in candidates if _relation(wanted, words) == tier]
                if similar:
                    break
            if out and similar and all(_english_words(o) & wanted for o in out):
                continue  # the country's own name was said too: that one is meant
            out.extend(theirs for theirs in similar if theirs not in out)
            if not similar:
                out.append(name)  # dated elsewhere, or said to be no holiday here
        return out

    def _match(
        self, message: list[tuple[str, int, int]], names: list[_Name], families: bool, joined: bool = True
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

        # Every word of a name present: that holiday. A name's generic words may go
        # unsaid when two of its own are there ("new year" is New Year's Day).
        full: dict[str, tuple[int, tuple[int, int]]] = {}
        for name in names:
            hits = []
            missing_generic = False
            for name_stem in name.stems:
                hit = first_hit(name_stem)
                if hit is None:
                    if name_stem in _GENERIC and name_stem != "eve":  # an eve is its own day
                        missing_generic = True
                        continue
                    break
                hits.append(hit)
            else:
                distinctive = [h for h in hits if h[0] not in _GENERIC]
                # A generic word far from the name's own ("which days are holidays … over
                # Christmas") is the sentence's, not the name's: it counts as unsaid.
                near = [h for h in hits if h in distinctive or _near_any(h, distinctive)]
                if len(near) < len(hits):
                    hits, missing_generic = near, True
                own = [s for s in name.stems if s not in _GENERIC]
                # Said as it is: a short name's stem starts other words ("Jāņu" → "january").
                single_local = (
                    name.local
                    and len(own) == 1
                    and len(own[0]) >= _MIN_STEM
                    and any(h[0] == own[0] for h in hits)
                )
                if distinctive and (not missing_generic or len(distinctive) >= 2 or single_local):
                    span = (min(h[1] for h in hits), max(h[2] for h in hits))
                    if len(hits) > full.get(name.english, (0, span))[0]:
                        full[name.english] = (len(hits), span)
        if full:
            # The longest names first; a shorter one over other words is a second holiday
            # named ("Līgo and Jāņi", "Christmas and New Year").
            chosen: list[str] = []
            accepted: list[tuple[int, tuple[int, int]]] = []
            for english, (n, span) in sorted(full.items(), key=lambda item: -item[1][0]):
                clash = [(k, s) for k, s in accepted if s[0] < span[1] and span[0] < s[1]]
                if clash and (n, span) not in clash:
                    continue
                chosen.append(english)
                accepted.append((n, span))
            spans = [s for _, s in accepted]
            # A family word joined to a name by "and" ("Christmas and New Year", "на
            # Рождество и Новый год") is a second holiday; other words are not read again.
            said_with = _joined(message, spans) if joined else []
            if said_with:
                more, more_span = self._family(said_with, names)
                if more:
                    chosen.extend(e for e in more if e not in chosen)
                    spans.append(more_span)
            return chosen, (min(s for s, _ in spans), max(e for _, e in spans))
        if not families:
            return [], (0, 0)
        return self._family(message, names)

    @staticmethod
    def _family(message: list[tuple[str, int, int]], names: list[_Name]) -> tuple[list[str], tuple[int, int]]:
        """A word that begins or ends some names: the family of holidays it names."""
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
