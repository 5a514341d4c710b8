"""The deterministic parameter extractor: every value it returns is one the
message states plainly. What it cannot settle stays missing (and is asked for,
or left to an LLM extractor when one is configured)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from loop_svc.extraction.addresses import find_address, find_street_or_town, sentence_word, with_town
from loop_svc.extraction.alternatives import listed
from loop_svc.extraction.countries import CountryMention, CountryNames
from loop_svc.extraction.dates import (
    DateFindings,
    DateMention,
    find_dates,
    iso_date,
    iso_datetime,
    whole_year,
)
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.extraction.identifiers import attempted_identifier, find_identifier, find_identifiers
from loop_svc.extraction.languages import CODES as LANGUAGE_CODES
from loop_svc.extraction.languages import find_languages
from loop_svc.extraction.periods import past_tense
from loop_svc.extraction.relative import asks_for_upcoming, upcoming_range
from loop_svc.extraction.shifts import find_shift
from loop_svc.extraction.spans import clock_times, is_common_word, name_spans
from loop_svc.extraction.text import outside, words
from loop_svc.extraction.values import (
    enum_value,
    number_words,
    numbers,
    registration_number,
    registration_numbers,
    yes_no,
)
from loop_svc.extraction.windows import Window, find_window
from loop_svc.schema import Concept, ParamSpec, Role, date_pairs
from services.language import Lang, cyrillic_reading

# A day of the month said alone, no month: "the 23rd", "23rd", "on the 24th".
_BARE_DAY = re.compile(
    r"(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?:-?(?:го|е|ое)(?:\s+числ\w*)?|\s+числ\w*|"
    r"\.\s*kuup[aä]ev\w*|-?ndal)",
    re.I,
)

# "X instead of Y", "not Y", "Y asemel", "вместо Y": Y is being replaced.
_REPLACED_AFTER = re.compile(r"\b(instead of|rather than|not|mitte|вместо|не)\s+", re.I)
# From a word's start only, and a word of bounded length: "(\S+)" tried at every position of a
# long run of non-spaces was quadratic.
_REPLACED_BEFORE = re.compile(r"(?<!\S)(\S{1,64})\s+(asemel)\b", re.I)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]{2}")
# Values a Latin-letter Russian message gives in words of its Cyrillic reading.
_TIME_CONCEPTS = frozenset({Concept.DATE, Concept.DATETIME, Concept.YEAR, Concept.TIME})
_PREPOSITIONS = frozenset("on in at for the a from by в во на за с со у к до по".split())
# Uppercase pairs that are ordinary words more often than country codes.
_NOT_CODES = frozenset(
    {
        "OK",
        "NO",
        "IT",
        "IN",
        "AM",
        "TO",
        "BE",
        "IS",
        "ME",
        "MY",
        "AS",
        "AT",
        "BY",
        "DO",
        "GO",
        "HE",
        "IF",
        "OF",
        "ON",
        "OR",
        "SO",
        "UP",
        "WE",
        "AN",
        "ID",
        "PM",
        "TV",
        "EU",
    }
)
_CODE = re.compile(r"(?<![\w-])([A-Za-z]{2})(?![\w-])")
# "…the address Viru tn 4, Tallinn", "aadress Rüütli 10 Tartu", "адрес Нарвское шоссе 5": the
# words after an address keyword, up to the next clause ("and …", "ja …", "и …") or the end.
_ADDRESS_AFTER_KEYWORD = re.compile(
    r"\b(?:address|aadress\w*|адрес\w*)\s*:?\s+(?P<value>.+?)"
    r"(?=\s+(?:and|ja|ning|и|а также)\s|[?;!]|$)",
    re.IGNORECASE,
)
# What an address looks like: a house number, or a capitalised street or place name.
_LOOKS_LIKE_ADDRESS = re.compile(r"\d|^[A-ZÕÄÖÜŠŽА-ЯЁ]")


def _anchored_address(text: str) -> str | None:
    match = _ADDRESS_AFTER_KEYWORD.search(text)
    if match is None:
        return None
    value = match.group("value").strip(" ,.;:!?")
    return value if _LOOKS_LIKE_ADDRESS.search(value) else None


_FILLER = re.compile(
    r"^(?:and|ja|и|also|ka|также|year|aasta\w*|год\w*|for|the|please|palun|пожалуйста|is|on|это)$", re.I
)


# How far after a correction word its value is looked for: three words fit in it, and the
# words of the whole rest of the text, read once per match, made the work quadratic.
_REPLACED_REACH = 200


def _replaced_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _REPLACED_AFTER.finditer(text):
        following = words(text[m.end() : m.end() + _REPLACED_REACH])[:3]
        # "не в четверг", "not on Friday": the value is the word after the preposition.
        while len(following) > 1 and following[0].lower in _PREPOSITIONS:
            following = following[1:]
        if following:
            spans.append((m.end(), m.end() + following[0].end))
    for m in _REPLACED_BEFORE.finditer(text):
        spans.append((m.start(1), m.end(1)))
    return spans


def _wants_uppercase(param: ParamSpec) -> bool:
    """Language codes follow the case of the description's examples ("ET, EN")."""
    return bool(re.search(r"\b[A-Z]{2}\b", param.description)) or not param.description


def _narrower(read: Mapping[str, str], values: Mapping[str, str], start: str, end: str) -> bool:
    """Whether `read` holds a period strictly inside the one `values` holds (ISO dates)."""
    ends = (read.get(start), read.get(end), values.get(start), values.get(end))
    if not all(ends):
        return False
    first, last, outer_first, outer_last = (str(e) for e in ends)
    return bool(outer_first <= first <= last <= outer_last and (first, last) != (outer_first, outer_last))


class RuleExtractor:
    """`now` is the current moment (aware); `zone` is the citizen's time zone, in which a
    day is 00:00–23:59 and "tonight" or "18–22" are read (UTC when not given)."""

    def __init__(
        self,
        countries: CountryNames,
        today: Callable[[], date] | None = None,
        *,
        zone: tzinfo = UTC,
        now: Callable[[], datetime] | None = None,
        holidays: HolidayNames | None = None,
    ) -> None:
        self._countries = countries
        self._holidays = holidays
        self._zone = zone
        self._now = now
        if today is None:
            today = (
                (lambda: now().astimezone(zone).date())
                if now is not None
                else (lambda: datetime.now(zone).date())
            )
        self._today = today

    def _hour(self) -> int | None:
        return self._now().astimezone(self._zone).hour if self._now is not None else None

    def extract(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """Values the message states, by parameter name, as normalised strings.

        `asked` names the parameters the previous question asked for: a free
        text parameter is only taken from a reply to a question about it, or,
        for an address, from the words after an address keyword. `known` holds
        values collected earlier; new values overwrite them, so corrections work.

        Russian typed in Latin letters ("zavtra utrom", "na vyhodnyh") names its days and
        hours in words only the Cyrillic reading has (services.language.cyrillic_reading):
        the dates and times it gives fill those the message itself did not. Names and codes
        are read from the message as written ("Viru 4" is no "виру 4").
        """
        values = self._extract(message, params, language=language, asked=asked, known=known)
        if language != "ru" or _CYRILLIC.search(message) or not _LATIN.search(message):
            return values
        timed = [p for p in params if p.concept in _TIME_CONCEPTS]
        pairs = date_pairs(timed)
        # A year written in digits is found as written, its month only in the reading
        # ("v mae 2028"): a full pair is read again when the reading may narrow it.
        if not timed or (all(p.name in values for p in timed) and not pairs):
            return values
        reading = cyrillic_reading(message)
        if reading == message:
            return values
        read = self._extract(reading, timed, language=language, asked=asked, known=known)
        # A pair's two ends come from one reading: never a start of one and an end of another.
        for start, end in pairs:
            if start.name in values or end.name in values:
                if _narrower(read, values, start.name, end.name):
                    values = {**values, start.name: read[start.name], end.name: read[end.name]}
                read.pop(start.name, None)
                read.pop(end.name, None)
        return {**values, **{name: value for name, value in read.items() if name not in values}}

    def _extract(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        known = known or {}
        text = message.strip()
        if not text:
            return {}
        replaced = _replaced_spans(text)
        countries = [m for m in self._countries.find(text) if outside(replaced, m.start, m.end)]
        found = self._dates(text, params, language, known, countries)
        taken: list[tuple[int, int]] = list(found.spans)
        window = _window(text, params, found)
        if window is not None:
            taken.append((window.start, window.end))
        values: dict[str, str] = {}

        paired: set[str] = set()
        for start_param, end_param in date_pairs(params):
            paired |= {start_param.name, end_param.name}
            values.update(self._range(text, found, start_param, end_param, known, replaced, window))

        for param in params:
            if param.name in paired:
                continue
            value = self._single(text, param, found, taken, replaced, language, asked)
            if value is not None:
                values[param.name] = value

        # An address is free text too, but a keyword in front of it marks where it starts,
        # and a street with a house number is one wherever it stands.
        for param in params:
            if param.concept is Concept.ADDRESS and param.name not in values:
                address = None
                mention = find_address(text, taken, language)
                if mention is not None:
                    taken.append((mention.start, mention.end))
                    address = mention.value
                else:
                    address = _anchored_address(text)
                if address is None and (street := find_street_or_town(text, taken, language)) is not None:
                    # A street or a town without a house number: the register lists its addresses.
                    taken.append((street.start, street.end))
                    address = street.value
                    earlier = known.get(param.name)
                    if street.town_only and earlier:
                        address = with_town(earlier, street.value) or address
                if address is not None:
                    values[param.name] = address

        values.update(_places(text, params, taken, asked, values))
        values.update(_described_text(text, params, taken, values))
        free_text = [
            p for p in params if p.concept in _FREE_TEXT and p.name in asked and p.name not in values
        ]
        if len(free_text) == 1:
            others = [name for name in asked if name != free_text[0].name]
            if all(name in values or name in known for name in others):
                value = _free_text(text, taken, free_text[0])
                # A reply that gave another asked value ("my registration number is 123ABC")
                # leaves the words around it, no free text: only a leftover of names counts.
                gave_other = any(name in values for name in others)
                if value and not (gave_other and any(sentence_word(w) for w in value.split())):
                    values[free_text[0].name] = value
        return values

    def _dates(
        self,
        text: str,
        params: Sequence[ParamSpec],
        language: Lang,
        known: Mapping[str, str],
        countries: Sequence[CountryMention],
    ) -> DateFindings:
        """The dates, periods and years a message names (outside its identifiers)."""
        # An identifier shaped like a parameter's example is read before dates: "000 MON" is a
        # plate, not Monday.
        identifiers: list[tuple[int, int]] = []
        for param in params:
            if param.concept in (Concept.REGISTRATION, Concept.IDENTIFIER):
                shape = param.shape
                hits = find_identifiers(text, shape) if shape is not None else registration_numbers(text)
                identifiers.extend((hit.start, hit.end) for hit in hits)
        # A holiday is dated in the country the message names, else in the one already
        # known ("and Whit Monday?" after Germany is Germany's).
        known_country = next(
            (known[p.name] for p in params if p.concept is Concept.COUNTRY and known.get(p.name)), None
        )
        return find_dates(
            text,
            language,
            self._today(),
            self._hour(),
            holidays=self._holidays,
            country=countries[0].code if countries else known_country,
            skip=[(m.start, m.end) for m in countries],
            reserved=identifiers,
        )

    def alternatives(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        values: Mapping[str, str],
        language: Lang = "en",
    ) -> dict[str, list[str]]:
        """The first parameter (or start/end pair) the message gives several values of side
        by side ("holidays in Finland and Latvia", "tax for 123ABC or 777XYZ", "prices today
        and yesterday"): by parameter name, the values in the message's order, one per call
        (a pair's lists run in step); {} when there is none (extraction.alternatives)."""
        text = message.strip()
        replaced = _replaced_spans(text)
        for param in params:
            value = values.get(param.name)
            if value is None:
                continue
            mentions: list[tuple[str, int, int]] = []
            if param.concept is Concept.COUNTRY:
                mentions = [(m.code, m.start, m.end) for m in self._countries.find(text)]
            elif param.concept in (Concept.REGISTRATION, Concept.IDENTIFIER):
                shape = param.shape
                found = find_identifiers(text, shape) if shape is not None else registration_numbers(text)
                mentions = [(f.value, f.start, f.end) for f in found]
            elif param.concept is Concept.YEAR:
                # "the tax for 2025 and 2026 together", "за 2025, 2026 и 2027": one call a year.
                years = self._dates(text, params, language, {}, []).years
                mentions = [(str(y.value.year), y.start, y.end) for y in years if y.last is not None]
            several = listed(text, [m for m in mentions if outside(replaced, m[1], m[2])], value)
            if several:
                return {param.name: several}
        for start, end in date_pairs(params):
            if start.name in values and end.name in values:
                days = self._listed_days(text, params, language, replaced, start, end)
                if days:
                    return days
        return {}

    def _listed_days(
        self,
        text: str,
        params: Sequence[ParamSpec],
        language: Lang,
        replaced: list[tuple[int, int]],
        start: ParamSpec,
        end: ParamSpec,
    ) -> dict[str, list[str]]:
        """Days (or months) listed as alternatives ("today and yesterday", "в декабре или
        январе"), each its own period; never the two ends of a range ("between March and
        May", "märtsi ja mai vahel", "from today to Friday")."""
        countries = [m for m in self._countries.find(text) if outside(replaced, m.start, m.end)]
        found = self._dates(text, params, language, {}, countries)
        days = [
            d
            for d in found.dates
            if d.connector is None and not d.loose and outside(replaced, d.start, d.end)
        ]
        run = listed(text, [(str(i), d.start, d.end) for i, d in enumerate(days)], None)
        if not run:
            return {}
        chosen = [days[int(i)] for i in run]
        if _RANGE_BEFORE.search(text[: chosen[0].start]) or _RANGE_AFTER.match(text[chosen[-1].end :]):
            return {}
        window = _window(text, params, found)
        out: dict[str, list[str]] = {start.name: [], end.name: []}
        for day in chosen:
            period = self._range(text, DateFindings(dates=[day]), start, end, {}, replaced, window)
            if start.name not in period or end.name not in period:
                return {}
            out[start.name].append(period[start.name])
            out[end.name].append(period[end.name])
        return out

    def problems(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        values: Mapping[str, str],
        asked: Sequence[str] = (),
    ) -> dict[str, str]:
        """Values the message tried to give but in a form the parameter cannot take, by
        parameter name: an identifier of the wrong shape ("12AB" for a plate like 123ABC),
        a count outside the documented range ("200" for 1-100). Only for parameters the
        message gave no valid value for (or, for a count, the value given)."""
        found: dict[str, str] = {}
        text = message.strip()
        taken = list(find_dates(text, "en", self._today()).spans)
        for param in params:
            shape = param.shape
            if shape is not None and param.name not in values:
                reply = list(asked) == [param.name]
                attempt = attempted_identifier(text, shape, taken, reply=reply)
                if attempt is not None and (reply or param.required):
                    found[param.name] = attempt
        return found

    def _range(
        self,
        text: str,
        found: DateFindings,
        start: ParamSpec,
        end: ParamSpec,
        known: Mapping[str, str],
        replaced: list[tuple[int, int]],
        window: Window | None = None,
    ) -> dict[str, str]:
        # "2026 instead of 2025": the replaced value is not part of the range.
        dates = [d for d in found.dates if outside(replaced, d.start, d.end)]
        timed = start.concept is Concept.DATETIME and end.concept is Concept.DATETIME
        if timed and window is not None and len(dates) <= 1:
            # "tonight", "tomorrow 18-22": the window inside the one day named (today if none).
            # "and at 3 at night?" after yesterday's prices: the day already asked keeps.
            same = None if dates else self._known_day(known.get(start.name, ""))
            day = (
                dates[0]
                if dates
                else DateMention(same or self._coming_day(window, text), window.start, window.end)
            )
            opened = replace(day, opens=window.opens, closes=window.closes)
            last_day = day.last or day.value
            if window.overnight:
                last_day += timedelta(days=1)
            return {
                start.name: self._render(start, day.value, opened, "start"),
                end.name: self._render(end, last_day, opened, "end"),
            }
        years = [y for y in found.years if outside(replaced, y.start, y.end)]
        if not dates and not years and window is None:
            moved = self._shifted(text, start, end, known)
            if moved:
                return moved
        first: DateMention | None = None
        last: DateMention | None = None
        if len(dates) >= 2:
            by_role = {d.connector: d for d in dates[:2] if d.connector}
            first = by_role.get("start") or next(d for d in dates[:2] if d is not by_role.get("end"))
            last = next(d for d in dates[:2] if d is not first)
            if (
                last.value < first.value
                and by_role.get("end") is last
                and last.value.year == first.value.year
            ):
                # "20. detsember kuni 10. jaanuar": the end is in the following year.
                last = replace(last, value=_next_year(last.value), last=last.last and _next_year(last.last))
            elif last.value < first.value:
                first, last = last, first
            if len(dates) > 2 and not by_role:
                # "this weekend, is Sunday cheaper than Saturday": every day named.
                first = min(dates, key=lambda d: d.value)
                last = max(dates, key=lambda d: d.last or d.value)
        elif len(dates) == 1:
            only = dates[0]
            moved_day = self._in_known_month(text, only, start, end, known)
            if moved_day is not None:
                # "what about the 23rd" after 24 June: the 23rd of the month already asked.
                only = replace(only, value=moved_day)
            if only.last is not None:  # a whole month
                first = last = only
            elif (role := only.connector or _context_role(text, only.start)) == "start" or (
                role is None and end.name in known and start.name not in known
            ):
                first = only
            elif role == "end" or (start.name in known and end.name not in known):
                last = only
            elif (set(start.words) | set(end.words)) & _TRIP_WORDS:
                first = only  # a trip's one date is when it starts; the return is asked for
            else:  # one day
                first = last = only
        elif not years and start.name not in known and end.name not in known and asks_for_upcoming(text):
            # "When is the next public holiday?": an open range from today.
            opens, closes = upcoming_range(self._today())
            return {
                start.name: self._render(start, opens, DateMention(opens, 0, 0), "start"),
                end.name: self._render(end, closes, DateMention(closes, 0, 0), "end"),
            }
        elif years:
            starts = [y for y in years if y.connector == "start"]
            ends = [y for y in years if y.connector == "end"]
            if len(years) >= 2:
                first, last = sorted(years[:2], key=lambda y: y.value)
            elif starts:
                first = starts[0]
            elif ends:
                last = ends[0]
            else:
                first = last = years[0]
        values: dict[str, str] = {}
        if first is not None:
            values[start.name] = self._render(start, first.value, first, "start")
        if last is not None:
            values[end.name] = self._render(end, last.last or last.value, last, "end")
            today = self._today()
            if first is None and start.name not in known and (last.last or last.value) >= today:
                # "selle aasta lõpuni", "until the end of the month", "до пятницы": a range
                # closed ahead of today and opened by nothing said opens today.
                values[start.name] = self._render(start, today, DateMention(today, 0, 0), "start")
        return values

    def _shifted(
        self, text: str, start: ParamSpec, end: ParamSpec, known: Mapping[str, str]
    ) -> dict[str, str]:
        """ "and the day before?", "a mis järgmisel päeval", "а средняя за тот день": the
        period already asked, moved by whole local days, or widened to its whole days."""
        shift = find_shift(text) if known.get(start.name) and known.get(end.name) else None
        if shift is None:
            return {}
        out: dict[str, str] = {}
        for param, role in ((start, "start"), (end, "end")):
            value = known[param.name]
            if param.concept is Concept.DATETIME:
                try:
                    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
                except ValueError:
                    return {}
                local = moment.astimezone(self._zone) if moment.tzinfo else moment.replace(tzinfo=self._zone)
                day = local.date() + timedelta(days=shift.days)
                wall = local.time().replace(tzinfo=None)
                if shift.whole_day:
                    wall = time(0, 0) if role == "start" else time(23, 59, 59)
                moved = datetime.combine(day, wall, tzinfo=self._zone)
                out[param.name] = moved.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            else:
                try:
                    day = date.fromisoformat(value[:10])
                except ValueError:
                    return {}
                if shift.years:
                    # The same days a year on ("а через год?" after the Christmas break).
                    try:
                        day = day.replace(year=day.year + shift.years)
                    except ValueError:  # 29 February
                        day = day.replace(year=day.year + shift.years, day=28)
                out[param.name] = (day + timedelta(days=shift.days)).isoformat()
        return out

    def _in_known_month(
        self, text: str, mention: DateMention, start: ParamSpec, end: ParamSpec, known: Mapping[str, str]
    ) -> date | None:
        """The day a bare day of the month ("the 23rd", "24th") names when the period
        already asked lies in one month: that day of that month (None otherwise)."""
        said = text[mention.start : mention.end]
        if mention.last is not None or not _BARE_DAY.fullmatch(said.strip()):
            return None
        first, last = self._known_day(known.get(start.name, "")), self._known_day(known.get(end.name, ""))
        if first is None or last is None or (first.year, first.month) != (last.year, last.month):
            return None
        try:
            return first.replace(day=mention.value.day)
        except ValueError:
            return None

    def _known_day(self, value: str) -> date | None:
        """The local day a period already collected opens on (None when there is none)."""
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (moment.astimezone(self._zone) if moment.tzinfo and self._zone else moment).date()

    def _coming_day(self, window: Window, text: str) -> date:
        """The day of a time of day said without one: today, unless it is already over
        ("at night" asked at 10:00 is the coming night, tomorrow 00:00–05:59) and the
        sentence does not speak of the past ("what did it cost this morning")."""
        today = self._today()
        hour = self._hour()
        if hour is not None and not window.overnight and window.closes.hour < hour and not past_tense(text):
            return today + timedelta(days=1)
        return today

    def _render(self, param: ParamSpec, value: date, mention: DateMention, role: Role) -> str:
        if param.concept is Concept.DATETIME and mention.at is None:
            # A day is the citizen's: 00:00–23:59:59 (or the window named) in their zone.
            moment = (mention.closes or time(23, 59, 59)) if role == "end" else (mention.opens or time(0, 0))
            local = datetime.combine(value, moment, tzinfo=self._zone)
            return local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return _render(param, value, mention, role)

    def _single(
        self,
        text: str,
        param: ParamSpec,
        found: DateFindings,
        taken: list[tuple[int, int]],
        replaced: list[tuple[int, int]],
        language: Lang,
        asked: Sequence[str],
    ) -> str | None:
        concept = param.concept
        asked_alone = list(asked) == [param.name]
        if concept in (Concept.DATE, Concept.DATETIME):
            if found.dates:
                # Each unpaired date parameter takes the next date ("arrive 05-01, leave 05-10").
                mention = found.dates.pop(0)
                return self._render(param, mention.value, mention, param.role or "start")
            return None
        if concept is Concept.COUNTRY:
            return self._country(text, replaced, taken)
        if concept is Concept.LANGUAGE:
            return self._language(text, param, replaced, taken, asked_alone)
        if concept is Concept.YEAR:
            chosen = _asked_year(text, found, replaced)
            return str(chosen.value.year) if chosen else None
        if concept is Concept.ENUM and all(v.isdigit() for v in param.enum):
            # A count with allowed values ("party_size": 1..6): "for two people", "4 tickets".
            counted = _count(text, param, taken, asked_alone)
            return counted if counted in param.enum else None
        if concept is Concept.ENUM:
            hit = enum_value(text, param.enum, language)
            if hit is not None and outside(replaced, hit.start, hit.end):
                taken.append((hit.start, hit.end))
                return hit.value
            return None
        if concept is Concept.BOOLEAN:
            answer = yes_no(text) if asked_alone else None
            if answer is None:
                answer = _flag_mentioned(text, param)
            return None if answer is None else str(answer).lower()
        if concept in (Concept.REGISTRATION, Concept.IDENTIFIER):
            shape = param.shape
            found_id = find_identifier(text, shape, taken) if shape is not None else registration_number(text)
            if found_id is not None and outside(replaced, found_id.start, found_id.end):
                taken.append((found_id.start, found_id.end))
                return found_id.value
            return None
        if concept is Concept.TIME:
            for clock in clock_times(text):
                if outside(taken, clock.start, clock.end) and outside(replaced, clock.start, clock.end):
                    taken.append((clock.start, clock.end))
                    return clock.value
            return None
        if concept in (Concept.INTEGER, Concept.NUMBER):
            integers_only = concept is Concept.INTEGER
            if integers_only:
                return _count(text, param, taken, asked_alone)
            found_numbers = numbers(text, integers_only=integers_only, taken=taken)
            if asked_alone and found_numbers:
                taken.append((found_numbers[0].start, found_numbers[0].end))
                return found_numbers[0].value
            return _number_named(text, param, found_numbers, taken)
        return None

    def _country(
        self, text: str, replaced: list[tuple[int, int]], taken: list[tuple[int, int]]
    ) -> str | None:
        # What a value used goes into `taken`, so free text ("Viru 4 Tallinn, Estonia") leaves it out.
        for mention in self._countries.find(text):
            if outside(replaced, mention.start, mention.end):
                taken.append((mention.start, mention.end))
                return mention.code
        bare = len(words(text)) == 1
        for m in _CODE.finditer(text):
            code = m.group(1)
            if (code.isupper() or bare) and code.upper() in self._countries.codes:
                if (bare or code not in _NOT_CODES) and outside(replaced, m.start(), m.end()):
                    taken.append((m.start(), m.end()))
                    return code.upper()
        return None

    def _language(
        self,
        text: str,
        param: ParamSpec,
        replaced: list[tuple[int, int]],
        taken: list[tuple[int, int]],
        asked_alone: bool,
    ) -> str | None:
        code: str | None = None
        for mention in find_languages(text):
            if outside(replaced, mention.start, mention.end):
                taken.append((mention.start, mention.end))
                code = mention.code
                break
        if code is None and asked_alone:
            bare = text.strip(" .!?").lower()
            code = bare if bare in LANGUAGE_CODES else None
        if code is None:
            return None
        return code.upper() if _wants_uppercase(param) else code


# Two dates that are a range's ends, not alternatives: "between March and May", "from 1 to 7
# May", "märtsi ja mai vahel", "между мартом и маем".
_RANGE_BEFORE = re.compile(r"\b(?:between|from|alates|между|от|с)\s+(?:the\s+)?$", re.I)
_RANGE_AFTER = re.compile(r"\s*(?:vahel|vahelisel\w*|vaheline\w*)\b", re.I)


def _window(text: str, params: Sequence[ParamSpec], found: DateFindings) -> Window | None:
    """A time of day, only for a datetime range (clock times stay free otherwise)."""
    timed = any(a.concept is Concept.DATETIME for a, _ in date_pairs(params))
    window = find_window(text, found.spans) if timed else None
    shift = find_shift(text)
    if window is not None and shift is not None and shift.start < window.end and window.start < shift.end:
        return None  # "днём раньше" is a day earlier, not the afternoon
    return window


def _render(
    param: ParamSpec, value: date, mention: DateMention, role: Role, zone: tzinfo | None = None
) -> str:
    if param.concept is Concept.DATETIME:
        return iso_datetime(value, mention.at, role, zone)
    if param.concept is Concept.YEAR:
        return str(value.year)
    return iso_date(value)


# A year the question is for: "in 2026", "for 2027", "за 2027 год", "в 2026 году",
# "2027. aastal", "aastaks 2027"; a year that only describes a thing ("a 2010 car",
# "2010 года выпуска", "first registered 2009") has none of these.
_FOR_YEAR_BEFORE = re.compile(r"(?:\b(?:in|for|of|year|aasta|aastal|aastaks|за|на|в|во)\s+)$", re.I)
_DESCRIBED_BEFORE = re.compile(
    r"\b(?:registered|built|made|bought|manufactured|produced|registreeritud|ostetud|toodetud|"
    r"зарегистрирован\w*|куплен\w*|выпущен\w*|выпуска)\b[^.,;]*$",
    re.I,
)
_FOR_YEAR_AFTER = re.compile(
    r"^\.?\s*(?:aastal|aastaks|aasta\s+eest|aasta\s+kohta|году|год\b|год\w*\s+налог)", re.I
)


def _asked_year(text: str, found: DateFindings, replaced: list[tuple[int, int]]) -> DateMention | None:
    """The year a year parameter takes: a year named for the question ("next year", "в
    2026 году", "for 2027") before one that only describes something ("a 2010 car"),
    else the first year written."""
    named = (*found.years, *(d for d in found.dates if whole_year(d)))
    candidates = sorted((m for m in named if outside(replaced, m.start, m.end)), key=lambda m: m.start)
    if not candidates:
        return None

    def asked(mention: DateMention) -> bool:
        if not text[mention.start : mention.end].strip().isdigit():
            return True  # "next year", "в этом году": said of the question
        before, after = text[max(0, mention.start - 12) : mention.start], text[mention.end : mention.end + 20]
        if _DESCRIBED_BEFORE.search(text[max(0, mention.start - 25) : mention.start]):
            return False  # "registered in 2012", "ostetud 2019. aastal"
        return bool(_FOR_YEAR_BEFORE.search(before) or _FOR_YEAR_AFTER.match(after))

    marked = [m for m in candidates if asked(m)]
    return (marked or candidates)[0]


def _next_year(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def _number_named(text: str, param: ParamSpec, found: list, taken: list[tuple[int, int]]) -> str | None:
    """A number written next to a word of the parameter's name ("limit 5")."""
    name_words = {w for w in param.words if len(w) > 2}
    tokens = words(text)
    for number in found:
        near = [t.lower for t in tokens if 0 < number.start - t.end <= 2 or 0 < t.start - number.end <= 2]
        if any(w in name_words or w.rstrip("s") in name_words for w in near):
            taken.append((number.start, number.end))
            return str(number.value)
    return None


# Date pairs of a trip or a stay: one date is its start, not a one-day range.
_TRIP_WORDS = frozenset(
    {"pickup", "departure", "depart", "checkin", "in", "out", "checkout", "dropoff", "return"}
)
# Words shortly before a lone date that say which side of a range it is.
_START_CONTEXT = re.compile(
    r"(?:pick(?:ing)?[\s-]?(?:it\s+)?up|check(?:ing)?[\s-]?in|depart\w*|leav\w*|start\w*|begin\w*)\W+(?:\w+\W+){0,4}$",
    re.I,
)
_END_CONTEXT = re.compile(
    r"(?:drop(?:ping)?[\s-]?(?:it\s+)?off|check(?:ing)?[\s-]?out|return\w*|(?:coming|come|be)\s+back|keep\s+it)"
    r"\W+(?:\w+\W+){0,4}$",
    re.I,
)


def _context_role(text: str, start: int) -> Role:
    before = text[max(0, start - 50) : start]
    if _END_CONTEXT.search(before):
        return "end"
    if _START_CONTEXT.search(before):
        return "start"
    return None


# Name words that do not say what a yes/no flag is about (has_wifi → wifi).
_FLAG_GENERIC = frozenset(
    {"has", "is", "are", "offers", "serves", "allowed", "welcome", "service", "services", "good", "for"}
    | {"ride", "entry", "the", "in", "unit", "with", "flag"}
)
_ASKS_ABOUT_IT = re.compile(r"\s*(?:is|are|does|do|did|has|have|will|would|was|were)\b", re.I)
_NEGATION = re.compile(r"\b(?:no|not|without|don'?t|doesn'?t|never|ilma|ei|без|не)\W+(?:\w+\W+){0,2}$", re.I)


def _flag_mentioned(text: str, param: ParamSpec) -> bool | None:
    """A yes/no flag the message names ("with wifi", "a shared ride") is true; named
    after a negation ("without subtitles", "no pets") false; not named: unknown."""
    flag_words = [w for w in param.words if w not in _FLAG_GENERIC and len(w) >= 3]
    if not flag_words:
        return None
    for token in words(text):
        lowered = token.lower
        if any(lowered == w or (len(w) >= 5 and lowered.startswith(w[:5])) for w in flag_words):
            sentence_end = re.search(r"[.!?]", text[token.end :])
            sentence_start = max(text.rfind(mark, 0, token.start) for mark in ".!?") + 1
            if (
                sentence_end is not None
                and sentence_end.group(0) == "?"
                and _ASKS_ABOUT_IT.match(text[sentence_start : token.start])
            ):
                return None  # "Is it refundable?" asks about the offer; it does not ask for it
            return not _NEGATION.search(text[max(0, token.start - 30) : token.start])
    return None


_FREE_TEXT = (Concept.TEXT, Concept.ADDRESS, Concept.PLACE)
# A reply this short is the value itself ("Sacramento", "Viru 4 Tallinn").
_SHORT_REPLY_WORDS = 4
_COUNT_NOUNS = re.compile(
    r"^\s*(?:people|persons?|guests?|adults?|tickets?|seats?|rooms?|passengers?|travell?ers?|of us|"
    r"inimest\w*|piletit\w*|kohta|tuba\w*|человек\w*|билет\w*|мест\w*|номер\w*)\b",
    re.I,
)


_COUNTING_WORDS = frozenset(
    {"number", "count", "size", "seats", "travelers", "travellers", "people", "rooms", "tickets"}
    | {"passengers", "riders", "party", "guests", "adults", "persons", "group"}
)


_ORDER = (
    r"(?:last|latest|recent|most\s+recent|first|top|next|newest|previous|viimase?d?|viimast|uusima[dt]?|"
    r"esimese?d?|esimest|järgmise?d?|последни[ехм]\w*|последн\w*|первы[ехм]\w*|ближайш\w*|свеж\w*|новы[ехм]\w*)"
)
_ORDER_BEFORE = re.compile(rf"\b{_ORDER}\s+$", re.I)
_ORDER_AFTER = re.compile(rf"\s+{_ORDER}\b", re.I)


def _names_counted(after: str, param: ParamSpec) -> bool:
    """Whether the word after a number is what the parameter counts ("200 votings" for
    "How many of the most recent votings to return")."""
    following = re.match(r"\s*([^\W\d_]{4,})", after)
    if following is None:
        return False
    head = following.group(1).lower()[:5]
    return any(w.lower().startswith(head) for w in re.findall(r"[^\W\d_]{4,}", param.description))


# A number that names a thing, not how many: a year ("the 2026 state budget"), a number
# after the word for one ("vote number 392", "eelnõu nr 612", "голосование № 408"), an
# identifier with its letters ("612 SE", "bill 598 SE").
_NUMBER_WORD_BEFORE = re.compile(
    r"(?:\bnumber|\bno\.?|\bnr\.?|№|\bnumbri?\w*|\bномер\w*|\bbill|\beelnõu\w*|\bзаконопроект\w*)\s*$",
    re.I,
)
_CODE_AFTER = re.compile(r"^\s*[A-ZА-Я]{1,3}\b")


def _names_other(before: str, value: str, after: str) -> bool:
    year = len(value) == 4 and value.isdigit() and 1900 <= int(value) <= 2100
    return year or bool(_NUMBER_WORD_BEFORE.search(before) or _CODE_AFTER.match(after))


def _count(text: str, param: ParamSpec, taken: list[tuple[int, int]], asked_alone: bool) -> str | None:
    """An integer: the reply to a question only about it, a number next to a word of
    the parameter's name ("limit 5"), or a count of people, seats or rooms."""
    found = numbers(text, integers_only=True, taken=taken) + number_words(text, taken)
    found.sort(key=lambda f: f.start)
    if asked_alone and found:
        taken.append((found[0].start, found[0].end))
        return found[0].value
    named = _number_named(text, param, found, taken)
    if named is not None:
        return named
    if param.counts:
        # "the last 3 votings", "viimased 3", "5 последних", "show me 200 votings".
        for number in found:
            before = text[max(0, number.start - 25) : number.start]
            after = text[number.end : number.end + 25]
            if (
                _ORDER_BEFORE.search(before)
                or _ORDER_AFTER.match(after)
                or _names_counted(after, param)
                or (len(found) == 1 and not _names_other(before, number.value, after))
            ):
                taken.append((number.start, number.end))
                return number.value
    counting = set(param.words) & _COUNTING_WORDS
    if counting:
        for number in found:
            if _COUNT_NOUNS.match(text[number.end :]):
                taken.append((number.start, number.end))
                return number.value
    return None


def _places(
    text: str,
    params: Sequence[ParamSpec],
    taken: list[tuple[int, int]],
    asked: Sequence[str],
    values: Mapping[str, str],
) -> dict[str, str]:
    """Places named after a preposition: "from X" → an origin, "to X" → a destination,
    "in/at/around X" → any other place; a reply to a question about a place: its name."""
    places = [p for p in params if p.concept is Concept.PLACE and p.name not in values]
    if not places:
        return {}
    spans = name_spans(text, taken)
    has_to = any(p.place_role == "to" for p in places)
    has_plain = any(p.place_role is None for p in places)
    found: dict[str, str] = {}
    for param in places:
        role = param.place_role
        wanted = {"from": ("from",), "to": ("to",)}.get(role or "", ("in",) if has_to else ("in", "to"))
        if role == "from" and not has_plain:
            wanted = ("from", "in")  # "pick the car up in Philadelphia"
        chosen = next((s for s in spans if s.preposition in wanted), None)
        if chosen is None and param.name in asked:
            chosen = next((s for s in spans if s.preposition is None), spans[0] if spans else None)
        if chosen is not None:
            spans.remove(chosen)
            taken.append((chosen.start, chosen.end))
            found[param.name] = chosen.value
    return found


# "Genre of the movie", "Cuisine of food served in …": the parameter's noun and the thing it
# describes, read from its description.
_OF_THING = re.compile(r"^\s*(?:the\s+)?(\w+)\s+of\s+(?:the\s+|a\s+)?(\w+)", re.I)


def _described_text(
    text: str, params: Sequence[ParamSpec], taken: list[tuple[int, int]], values: Mapping[str, str]
) -> dict[str, str]:
    """Text values the sentence names by the parameter's own words: a name right after
    the parameter's noun ("from the album Thank You Happy Birthday"), or, for "X of the Y",
    the word before Y ("I like Drama movies" → genre Drama, "Italian food" → cuisine)."""
    found: dict[str, str] = {}
    for param in params:
        if (
            param.concept is not Concept.TEXT
            or param.name in values
            or param.type.strip().lower() != "string"
        ):
            continue
        nouns = {w for w in param.words if len(w) >= 4 and w not in ("name", "type", "number")}
        described = _OF_THING.match(param.description)
        if described:
            nouns.add(described.group(1).lower())
        for noun in sorted(nouns):
            # Capitalised words right after the noun, ordinary ones too ("album Thank You Happy Birthday").
            m = re.search(
                rf"\b{re.escape(noun)}\s+((?:[A-Z][\w'’&-]*)(?:\s+(?:[A-Z][\w'’&-]*|of|the|and|&))*)", text
            )
            if m is not None and outside(taken, m.start(1), m.end(1)):
                taken.append((m.start(1), m.end(1)))
                found[param.name] = re.sub(r"\s+(?:of|the|and|&)$", "", m.group(1))
                break
        if param.name in found or not described:
            continue
        thing = described.group(2).lower()
        for m in re.finditer(rf"\b([^\W\d_][\w-]+)\s+{re.escape(thing)}s?\b", text, re.I):
            word = m.group(1)
            if is_common_word(word) or not outside(taken, m.start(1), m.end(1)) or word.lower() in nouns:
                continue
            taken.append((m.start(1), m.end(1)))
            found[param.name] = word[:1].upper() + word[1:]
            break
    return found


def _free_text(text: str, taken: list[tuple[int, int]], param: ParamSpec) -> str | None:
    """A name in the reply ("I'd like Fighting with My Family" → "Fighting with My
    Family"), or a short reply as a whole; a long reply with no name gives nothing."""
    if param.concept is not Concept.ADDRESS:
        spans = name_spans(text, taken)
        if spans:
            taken.append((spans[0].start, spans[0].end))
            return spans[0].value
    remainder = _remainder(text, taken)
    if not remainder or yes_no(remainder) is not None or all(is_common_word(w) for w in remainder.split()):
        return None  # "Yes, that is fine" names nothing
    if param.concept is Concept.ADDRESS or len(remainder.split()) <= _SHORT_REPLY_WORDS:
        return remainder
    return None


def _remainder(text: str, taken: Sequence[tuple[int, int]]) -> str:
    """The message without what other parameters used, trimmed of joining words."""
    kept = text
    for start, end in sorted(taken, reverse=True):
        kept = kept[:start] + " " + kept[end:]
    parts = kept.split()
    while parts and _FILLER.match(parts[-1].strip(",.;:!?")):
        parts.pop()
    while parts and _FILLER.match(parts[0].strip(",.;:!?")):
        parts.pop(0)
    return " ".join(parts).strip(" ,.;:!?")


__all__ = ["RuleExtractor", "yes_no"]
