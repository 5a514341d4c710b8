"""Dates people say instead of write (en/et/ru), resolved against an injected "today".

Understood:
- day words: today/tonight/later today, tomorrow, the day after tomorrow, yesterday
  (täna/tänasest/tänaseni, homme, ülehomme, eile; сегодня/сегодняшнего, завтра,
  послезавтра, вчера);
- weekdays: "Friday", "this Friday", "on Friday" → the next such day from today on;
  "next Friday", "Friday next week", "järgmisel reedel", "в следующую пятницу" → the
  first one after today (as SGD resolves them);
- periods: "next week/month/year", "this week/month" (järgmisel nädalal/kuul, järgmisel
  aastal, sel nädalal/kuul; на следующей неделе, в следующем месяце, в следующем году,
  на этой неделе, в этом месяце) → the whole period;
- period ends: "the end of the year/month", "aasta/kuu lõpuni", "до конца года/месяца";
- "in 3 days" / "3 päeva pärast" / "через 3 дня";
- a day of a month without a year: "March 14th", "14th of March", "the 14th", "14th of
  this month", "24. veebruaril", "1. märtsist", "30. juunini", "1 марта", "30 июня" —
  this year (a bare day number is this month, or the next one when it has passed; a
  year written in the same message wins).

Estonian case endings carry the range role: -st/-sest (from) opens a range, -ni (until)
closes it ("1. märtsist 30. juunini", "tänasest aasta lõpuni").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from loop_svc.extraction.calendar_words import typo_weekday
from loop_svc.extraction.periods import past_tense, reading_as_past, said_in_past
from loop_svc.extraction.text import TakenSpans, fold
from loop_svc.schema import Role
from services.language import russian_analyzer

_ORD = r"(?:st|nd|rd|th|\.)?"
_WEEKDAYS: list[tuple[str, ...]] = [
    ("monday", "mon", "esmaspaev", "понедельник"),
    ("tuesday", "tue", "tues", "teisipaev", "вторник"),
    ("wednesday", "wed", "kolmapaev", "сред"),
    ("thursday", "thu", "thur", "thurs", "neljapaev", "четверг"),
    ("friday", "fri", "reede", "пятниц"),
    ("saturday", "sat", "laupaev", "суббот"),
    ("sunday", "sun", "puhapaev", "воскресень", "воскресенье"),
]
_LONG_WEEKDAY_STEMS = [
    ("monday", "esmaspae", "понедельник"),
    ("tuesday", "teisipae", "вторник"),
    ("wednesday", "kolmapae", "сред"),
    ("thursday", "neljapae", "четверг"),
    ("friday", "reede", "пятниц"),
    ("saturday", "laupae", "суббот"),
    ("sunday", "puhapae", "воскресень"),
]
_NEXT = r"(?:next|coming|j[äa]rgmi\w*|tuleva\w*|следующ\w*|ближайш\w*)"
_THIS = r"(?:this|sel|sellel|k[äa]esolev\w*|see|eto\w*|эт\w+|текущ\w*)"
_NEXT_WEEK = re.compile(rf"\b(?:{_NEXT}\s+(?:week|n[äa]dal\w*|недел\w*))\b|\bnext\s+wk\b", re.I)
_THIS_WEEK = re.compile(rf"\b(?:{_THIS}\s+(?:week|n[äa]dal\w*|недел\w*))\b", re.I)
_NEXT_MONTH = re.compile(rf"\b{_NEXT}\s+(?:month|kuu\w*|месяц\w*)\b", re.I)
_THIS_MONTH = re.compile(rf"(?<!of\s)\b{_THIS}\s+(?:month|kuu\w*|месяц\w*)\b(?!\s*\d)", re.I)
_NEXT_YEAR = re.compile(rf"\b{_NEXT}\s+(?:year|yr|aasta\w*|год\w*)\b|\bв\s+следующем\s+году\b", re.I)
_END_OF_YEAR = re.compile(
    r"\b(?:(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?year|year[- ]end|aasta\s+lõpu\w*|"
    r"конц\w*\s+(?:этого\s+|текущего\s+)?года)\b",
    re.I,
)
_END_OF_MONTH = re.compile(
    r"\b(?:(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month|kuu\s+lõpu\w*|конц\w*\s+(?:этого\s+)?месяца)\b",
    re.I,
)
_DAY_AFTER_TOMORROW = re.compile(r"\b(?:(?:the\s+)?day\s+after\s+tomorrow|ülehomme\w*|послезавтра)\b", re.I)
_DAY_WORDS: list[tuple[int, re.Pattern[str]]] = [
    # Two days away first: "the day before yesterday" holds "yesterday".
    (
        -2,
        re.compile(
            r"\b(?:the\s+)?day\s+before\s+yesterday\b|\büle\s*eile\w*|\bule\s*eile\w*|\bпозавчера\w*", re.I
        ),
    ),
    (
        2,
        re.compile(
            r"\b(?:the\s+)?day\s+after\s+tomorrow\b|\büle\s*homme\w*|\bule\s*homme\w*|\bпослезавтра\w*", re.I
        ),
    ),
    # "tana", "tanane": "täna" typed without its diacritic (never "tanav", a street, nor
    # "tänavu", this year).
    (
        0,
        re.compile(
            r"\b(?:later\s+)?(?:today|tonight)\b|\btäna(?!vu)\w*|\btana(?:ne|se\w*|st)?\b|\bсегодня\w*", re.I
        ),
    ),
    # The Estonian adjectives in every case: "homne/homse/homset hind", "eilne/eilse".
    (1, re.compile(r"\btomorrow\b|\bhomme\w*|\bhom[sn]e\w*|\bзавтра\w*", re.I)),
    (-1, re.compile(r"\byesterday\b|\beile\b|\beil[sn]e\w*|\bвчера\w*", re.I)),
]
_IN_DAYS = re.compile(
    r"\b(?:in\s+(\d{1,3})\s+days?|(\d{1,3})\s+päeva\s+pärast|через\s+(\d{1,3})\s+(?:день|дня|дней))\b", re.I
)
_WEEKDAY_WORD = re.compile(r"\b([^\W\d_]{3,})\b")
# "14th of this month", "the 14th", "on the 3rd"
# ("kella 22st", "kell 6st", "6st 9ni" are hours: the Estonian elative, not "22nd"; an
# ordinal's ending agrees with its number.)
_DAY_OF_THIS_MONTH = re.compile(
    r"(?<!kella )(?<!kell )\b(?:the\s+)?(\d{1,2})(st|nd|rd|th)(?:\s+of\s+(?:this|the)\s+month)?\b", re.I
)


# What closes a span at today or now, right after its first day: "to/until today", "till
# now", "tänaseni", "praeguseni", "kuni tänaseni", "по сегодня", "до сегодняшнего дня",
# "до сих пор". Bounded: read on at most 40 characters after the weekday.
_UP_TO_NOW = re.compile(
    r"[\w-]{0,3}\s*(?:(?:to|till|until|up\s+to|through|kuni|по|до)\s+(?:today|now|tana\w*|täna\w*|praegu\w*|"
    r"сегодня\w*|сегодняшн\w*|сейчас|сих\s+пор)|tanaseni|tänaseni|praeguseni)(?!\w)",
    re.I,
)


def english_ordinal(number: int, suffix: str) -> bool:
    """Whether `suffix` is the English ordinal ending of `number` ("21st", "12th", not "6st")."""
    if number % 100 in (11, 12, 13):
        return suffix.lower() == "th"
    return suffix.lower() == {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


# A day of the month said as a day in Russian and Estonian, no month: "23-го", "23-е число",
# "23 числа", "23. kuupäeval", "23-ndal".
_DAY_NUMBER_SAID = re.compile(
    r"(?<![\d.])(\d{1,2})(?:-?(?:го|е|ое)(?:\s+числ\w*)?|\s+числ\w*|\.\s*kuupäev\w*|\.\s*kuupaev\w*|-?ndal)(?![\w-])",
    re.I,
)
_WORD = r"([^\W\d_]{3,})"
_DAY_MONTH = re.compile(rf"(?<![\d.])(\d{{1,2}}){_ORD}\s*(?:of\s+)?{_WORD}", re.I)
_MONTH_DAY = re.compile(rf"\b{_WORD}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![.:]?\d)", re.I)


@dataclass(frozen=True)
class Spoken:
    value: date
    start: int
    end: int
    # The last day when the phrase names a period (a week, a month).
    last: date | None = None
    # A role the words themselves give ("tänasest" opens, "juunini" closes).
    role: Role = None


def _russian_weekday(word: str, stem: str) -> bool:
    """The Russian word is a form of the weekday noun ("среду", "в среды"), not another word
    that begins like it ("среди": among), by pymorphy3's dictionary."""
    parses = russian_analyzer().parse(word.lower())
    return any(p.tag.POS == "NOUN" and str(p.normal_form).startswith(stem) for p in parses) or not parses


def weekday_of(word: str) -> tuple[int, bool] | None:
    """(weekday, is_long_form) of a weekday word in any of the three languages, in any
    case form, diacritics or not, typos too ("pühapäeval", "puhapaeval", "pyhapaeval", "в
    воскресенье")."""
    lowered = fold(word)
    for index, stems in enumerate(_LONG_WEEKDAY_STEMS):
        for stem in stems:
            # A Russian stem takes a case ending of at most two letters ("среду", not "средняя").
            cyrillic = not stem.isascii()
            if lowered.startswith(stem) and (
                not cyrillic or (len(lowered) - len(stem) <= 2 and _russian_weekday(word, stem))
            ):
                return index, True
    for index, names in enumerate(_WEEKDAYS):
        if lowered in names:
            return index, False
    typo = typo_weekday(lowered)  # "pyhapaeval", "wendesday", "субота"
    return (typo, True) if typo is not None else None


def _estonian_role(word: str) -> Role:
    lowered = word.lower()
    if lowered.endswith("ni"):
        return "end"
    if lowered.endswith("st"):
        return "start"
    return None


def _month_role(word: str, month_of: Callable[[str], int | None]) -> Role:
    """An Estonian month's case ending ("jaanuarist", "juunini"), never a month whose own
    name ends that way ("juuni", "August")."""
    return _estonian_role(word) if month_of(word[:-2]) is not None else None


def _month_bounds(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# How far back a day of a month said without a year may be and still be the one meant
# (about five months): further back, the coming one is, even when it is a little further.
RECENT_PAST_DAYS = 150


def _day_of_month(
    month: int, day: int, today: date, year: int | None, past: bool, weekday: int | None = None
) -> date | None:
    """A day of a month ("jan 6", "4. jaanuaril"): in the year said; else in a year where
    it falls on the weekday written with it ("Thursday, 1 January"); else, for a sentence
    about the past, the last such day up to today; else the nearest one (on 2 December
    "6 January" is the coming one, "28 November" the one just gone) when the one gone is
    recent: half a year away either side, "is 24 December a holiday?" asked in June is
    about the coming December, not the one six months ago."""
    if year is not None:
        return _safe(year, month, day)
    options = [d for d in (_safe(today.year + k, month, day) for k in (-1, 0, 1)) if d is not None]
    if weekday is not None:
        options = [d for d in options if d.weekday() == weekday] or options
    if not options:
        return None
    if past:
        earlier = [d for d in options if d <= today]
        return max(earlier) if earlier else None
    recent = [d for d in options if d >= today or (today - d).days <= RECENT_PAST_DAYS]
    return min(recent or options, key=lambda d: (abs((d - today).days), d < today))


def find_spoken(
    text: str,
    today: date,
    month_of: Callable[[str], int | None],
    taken: list[tuple[int, int]],
    year_hint: int | None = None,
) -> list[Spoken]:
    """Spoken dates outside `taken` (spans already read as written dates); each one
    found is added to `taken`. `month_of(word) -> int | None` names months."""
    found: list[Spoken] = []
    spans = TakenSpans(taken)
    free = spans.free

    def add(value: date | None, start: int, end: int, last: date | None = None, role: Role = None) -> None:
        if value is None or not free(start, end):
            return
        spans.take(start, end)
        found.append(Spoken(value, start, end, last, role))

    year = year_hint or today.year
    past = past_tense(text)
    for pattern, period in (
        (_NEXT_WEEK, "next_week"),
        (_THIS_WEEK, "this_week"),
        (_NEXT_MONTH, "next_month"),
        (_THIS_MONTH, "this_month"),
        (_NEXT_YEAR, "next_year"),
    ):
        for m in pattern.finditer(text):
            # "Friday next week" is a day, not the week: read by the weekday rule below.
            before = text[max(0, m.start() - 12) : m.start()]
            if period.endswith("week") and re.search(r"[^\W\d_]{3,}\s*$", before):
                word = re.search(r"([^\W\d_]{3,})\s*$", before)
                if word is not None and weekday_of(word.group(1)) is not None:
                    continue
            if period == "next_week":
                monday = today + timedelta(days=7 - today.weekday())
                add(monday, m.start(), m.end(), monday + timedelta(days=6))
            elif period == "this_week":
                # The whole week ("any holidays this week?" counts its Monday too), up to
                # today when asked in the past ("были на этой неделе праздники?").
                monday = today - timedelta(days=today.weekday())
                add(monday, m.start(), m.end(), today if past else monday + timedelta(days=6))
            elif period == "next_month":
                following = _add_months(today, 1)
                first, last = _month_bounds(following.year, following.month)
                add(first, m.start(), m.end(), last)
            elif period == "this_month":
                first, last = _month_bounds(today.year, today.month)
                add(first, m.start(), m.end(), today if past else last)
            else:
                add(date(today.year + 1, 1, 1), m.start(), m.end(), date(today.year + 1, 12, 31))
    for m in _END_OF_YEAR.finditer(text):
        add(date(year, 12, 31), m.start(), m.end(), role="end")
    for m in _END_OF_MONTH.finditer(text):
        add(_month_bounds(today.year, today.month)[1], m.start(), m.end(), role="end")
    for m in _DAY_AFTER_TOMORROW.finditer(text):
        add(today + timedelta(days=2), m.start(), m.end())
    for offset, pattern in _DAY_WORDS:
        for m in pattern.finditer(text):
            add(today + timedelta(days=offset), m.start(), m.end(), role=_estonian_role(m.group(0)))
    for m in _IN_DAYS.finditer(text):
        days = int(next(g for g in m.groups() if g))
        add(today + timedelta(days=days), m.start(), m.end())
    # Days of a month written out ("27 November", "27. novembril", "November 27").
    day_months = [
        (d.start(), d.end())
        for pattern in (_DAY_MONTH, _MONTH_DAY)
        for d in pattern.finditer(text)
        if month_of(d.group(2) if pattern is _DAY_MONTH else d.group(1)) is not None
    ]
    written_weekday: dict[int, int] = {}
    for m in _WEEKDAY_WORD.finditer(text):
        weekday = weekday_of(m.group(1))
        if weekday is None:
            continue
        beside = [
            s
            for s, e in day_months
            if re.fullmatch(r"[\s,(]*", text[m.end() : s]) or re.fullmatch(r"[\s,()]*", text[e : m.start()])
        ]
        if beside:
            # "Friday, 27 November", "reedel 27. novembril": the weekday of that date, read
            # as nothing else (no next Friday, no Good Friday).
            spans.take(m.start(), m.end())
            written_weekday[beside[0]] = weekday[0]
            continue
        index, long_form = weekday
        if not long_form and not m.group(1)[0].isupper():
            continue  # "sun", "wed" in lower case are ordinary words more often than days
        before = text[max(0, m.start() - 25) : m.start()]
        after = text[m.end() : m.end() + 12]
        prior = bool(re.search(r"(?:last|previous|past|eelmi\w*|прошл\w*|минувш\w*)\s*$", before, re.I))
        later = bool(re.search(rf"{_NEXT}\s*$", before, re.I)) or bool(
            re.match(r"\s+(?:next\s+week|järgmisel\s+nädalal|на\s+следующей\s+неделе)", after, re.I)
        )
        ahead = (index - today.weekday()) % 7
        if later and ahead == 0:
            ahead = 7
        closes_now = bool(_UP_TO_NOW.match(text[m.end() : m.end() + 40])) or bool(
            re.search(r"\bsince\s*$", before, re.I)
        )
        # Read again as past (values published up to a day), "this Saturday" still asks
        # ahead; said in the past tense ("was there a holiday on Tuesday this week"), not.
        this = bool(re.search(rf"{_THIS}\s*$", before, re.I)) or bool(
            re.match(r"\s+(?:this\s+week|sel\s+n[äa]dalal|на\s+этой\s+неделе)", after, re.I)
        )
        past = said_in_past(text) or closes_now or (reading_as_past() and not this)
        if not later and not prior and past:
            # A span from it up to today ("from Monday until today", "esmaspäevast tänaseni",
            # "с понедельника по сегодня", "since Monday") opens on the last one.
            # "когда в понедельник было дешевле всего", "what was it on Monday": the last one.
            ahead = -((today.weekday() - index) % 7)
        span_start = m.start()
        prefix = re.search(rf"(?:{_NEXT}|{_THIS})\s*$", before, re.I)
        if prefix is not None:
            span_start = m.start() - (len(before) - prefix.start())
        suffix = re.match(
            r"\s+(?:(?:next|this)\s+week|järgmisel\s+nädalal|на\s+следующей\s+неделе)", after, re.I
        )
        span_end = m.end() + (suffix.end() if suffix else 0)
        add(today + timedelta(days=ahead), span_start, span_end)
    for m in _DAY_MONTH.finditer(text):
        month = month_of(m.group(2))
        if month is not None:
            add(
                _day_of_month(month, int(m.group(1)), today, year_hint, past, written_weekday.get(m.start())),
                m.start(),
                m.end(),
                role=_month_role(m.group(2), month_of),
            )
    for m in _MONTH_DAY.finditer(text):
        month = month_of(m.group(1))
        if month is not None:
            day_number = int(m.group(2))
            add(
                _day_of_month(month, day_number, today, year_hint, past, written_weekday.get(m.start())),
                m.start(),
                m.end(),
            )
    for m in (*_DAY_OF_THIS_MONTH.finditer(text), *_DAY_NUMBER_SAID.finditer(text)):
        day_number = int(m.group(1))
        if m.re is _DAY_OF_THIS_MONTH and not english_ordinal(day_number, m.group(2)):
            continue
        month_after = re.match(r"\s*(?:of\s+)?([^\W\d_]{3,})", text[m.end() :])
        if month_after is not None and month_of(month_after.group(1)) is not None:
            continue  # "23-го декабря", "the 23rd of June": a day of the month named
        candidate = _safe(today.year, today.month, day_number)
        if candidate is not None and candidate < today and "month" not in m.group(0).lower():
            following = _add_months(today, 1)
            candidate = _safe(following.year, following.month, day_number)
        add(candidate, m.start(), m.end())
    return found


def names_day_of_month(text: str, month_of: Callable[[str], int | None]) -> bool:
    """Whether `text` names a day of a month ("24th feb", "3 октября", "december 24")."""
    return any(month_of(m.group(2)) is not None for m in _DAY_MONTH.finditer(text)) or any(
        month_of(m.group(1)) is not None for m in _MONTH_DAY.finditer(text)
    )


def upcoming_range(today: date) -> tuple[date, date]:
    """The open range a "next holiday"-style question means: a year from today."""
    return today, _safe(today.year + 1, today.month, today.day) or today + timedelta(days=365)


_UPCOMING = re.compile(
    r"\b(?:next|upcoming|coming|soonest|järgmi\w*|lähim\w*|eelseisv\w*|tuleva\w*|следующ\w*|ближайш\w*|"
    r"предстоящ\w*)\b",
    re.I,
)


def asks_for_upcoming(text: str) -> bool:
    return bool(_UPCOMING.search(text))
