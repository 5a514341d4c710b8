"""Periods people name instead of writing dates (en/et/ru), resolved against an injected
"today": months and month ranges in every case form, day ranges inside one month,
weekends, the last/this/next week, month or year, seasons, the school year, the last
such weekday, stretches counted from now ("the next 3 hours", "the past 7 days", "the
rest of today": loop_svc.extraction.from_now) and "now".

- A month without a year ("in December", "detsembris", "в декабре") is the next such
  month from this one on, or the last one when the sentence speaks of the past ("were",
  "oli", "были"); a year next to it wins ("2027. aasta mais", "в мае следующего года",
  "järgmise aasta novembris", "May next year").
- Two months make a range ("jaanuarist märtsini", "с января по март 2027", "from
  January to March"); a day range shares its month ("20-23 June 2027", "1-7 dec",
  "с 1 по 7 декабря", "20. kuni 23. juuni").
- Weekends: "this/next weekend", "on the weekend", "nädalavahetusel", "на выходных" →
  the coming Saturday and Sunday (today when it is one); "last weekend", "eelmisel
  nädalavahetusel", "в прошлые выходные" → the one before.
- "last week/month/year" (eelmisel nädalal/kuul/aastal, на прошлой неделе, в прошлом
  месяце/году): the whole previous period; "last Sunday" (eelmisel pühapäeval, в
  прошлое воскресенье): the most recent one before today.
- Seasons (summer, suvel, летом, ...): this year's, or the coming one, or the last one
  for the past; the school year (õppeaasta, учебный год): 1 September – 31 August.
- "now", "praegu", "сейчас": today, and the current hour as its window.

Phrases are matched on the message with Latin diacritics folded away (same length, so
spans stay the message's), so "nadalavahetusel" reads like "nädalavahetusel"; month and
weekday words go through the callables given, which fold as well.
"""

from __future__ import annotations

import calendar
import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, time, timedelta

from loop_svc.extraction.calendar_words import abbreviated_months, full_month_names
from loop_svc.extraction.from_now import find_stretches
from loop_svc.extraction.text import NOW_PATTERN, TakenSpans, fold
from loop_svc.schema import Role
from services.language import russian_analyzer

_PAST_CUE = re.compile(
    r"\b(?:was|were|did|had|been|last|ago|past|previous|oli|olid|olnud|moodunud|eelmi\w*|"
    r"был\w*|прошл\w*|минувш\w*)\b",
    re.I,
)
_NEXT_WORD = r"(?:next|coming|following|upcoming|jargmi\w*|tuleva\w*|следующ\w*|ближайш\w*|будущ\w*)"
_LAST_WORD = r"(?:last|previous|past|eelmi\w*|moodunud\w*|прошл\w*|минувш\w*|предыдущ\w*)"
_THIS_WORD = r"(?:this|the|sel|sellel|see|selle|kaesolev\w*|jooksv\w*|эт\w+|текущ\w*|ближайш\w*)"
_YEAR_WORD = r"(?:year|aasta\w*|год\w*)"


_CYRILLIC_WORD = re.compile(r"[а-яё]{3,}")
# Bounded: a long message is judged by its first words.
_PAST_VERB_WORDS = 24


# Set while a message is read again as about the past (`read_as_past`).
_AS_PAST: contextvars.ContextVar[bool] = contextvars.ContextVar("read_as_past", default=False)


@contextlib.contextmanager
def read_as_past() -> Iterator[None]:
    """Read messages as speaking of the past inside the block: a bare weekday or month is
    the last one, not the next. For values that exist only up to a day (prices published
    up to tomorrow), "on Tuesday" or "the whole of October" can mean nothing ahead of it."""
    token = _AS_PAST.set(True)
    try:
        yield
    finally:
        _AS_PAST.reset(token)


def past_tense(text: str) -> bool:
    """Whether the sentence speaks of the past ("what were", "mis oli", "какие были", and
    any Russian verb pymorphy3 reads in the past tense: "сколько стоил", "что подорожало")."""
    return _AS_PAST.get() or said_in_past(text)


def reading_as_past() -> bool:
    """Whether messages are being read again as about the past (`read_as_past`)."""
    return _AS_PAST.get()


def said_in_past(text: str) -> bool:
    """`past_tense` from the words alone."""
    folded = fold(text)
    if _PAST_CUE.search(folded):
        return True
    words = _CYRILLIC_WORD.findall(folded)[:_PAST_VERB_WORDS]
    return any(_russian_past_verb(word) for word in words)


@functools.lru_cache(maxsize=1 << 14)
def _russian_past_verb(word: str) -> bool:
    parse = russian_analyzer().parse(word)[0]
    return parse.tag.POS == "VERB" and "past" in parse.tag


@dataclass(frozen=True)
class Period:
    value: date
    start: int
    end: int
    last: date | None = None
    role: Role = None
    # A time window inside the period, local time ("now" → the current hour).
    opens: time | None = None
    closes: time | None = None
    # A weekend no word dates ("on the weekend", "nädalavahetusel"): the coming one when
    # the message names no other period, else the rows' weekdays ("which holidays fall on
    # the weekend this year" asks about this year's Saturdays and Sundays).
    loose: bool = False


def month_bounds(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _estonian_role(word: str) -> Role:
    lowered = word.lower()
    if lowered.endswith("ni"):
        return "end"
    if lowered.endswith("st"):
        return "start"
    return None


_WORD = r"([^\W\d_]{3,})"
_YEAR_NUMBER = r"(19\d{2}|20\d{2}|21\d{2})"
# A year named next to a month: "2027. aasta mais", "mais 2027", "в мае 2027 года",
# "в мае следующего года", "järgmise aasta novembris", "May next year".
_RELATIVE_YEAR = re.compile(
    rf"\b(?:(?P<next>{_NEXT_WORD})\s+{_YEAR_WORD}|(?P<last>{_LAST_WORD})\s+{_YEAR_WORD}|"
    rf"(?P<this>this|sel|selle|kaesoleva|jooksva|этого|текущего)\s+{_YEAR_WORD}|"
    rf"{_YEAR_WORD}\s+(?P<next2>{_NEXT_WORD})|(?P<last2>mullu)|(?P<this2>tanavu))\b",
    re.I,
)
_WRITTEN_YEAR = re.compile(rf"(?<![\d\-./]){_YEAR_NUMBER}\.?(?:\s*(?:aasta\w*|года?|г\.))?(?!\d)", re.I)
_CONNECT_START = re.compile(r"(?:\bfrom|\bsince|\bbetween|\balates|\bс|\bсо|\bот)\s*$", re.I)
_CONNECT_END = re.compile(r"^\.?\s*(?:-|–|—|\.\.|to|until|till|through|thru|and|kuni|по|до|и)\s*", re.I)


@dataclass(frozen=True)
class _MonthWord:
    month: int
    start: int
    end: int
    word: str


class PeriodFinder:
    """Finds periods in a message; `month_of(word)` names months, `weekday_of(word)`
    names weekdays (index, is_long_form)."""

    def __init__(
        self,
        month_of: Callable[[str], int | None],
        weekday_of: Callable[[str], tuple[int, bool] | None],
    ) -> None:
        self._month_of = month_of
        self._weekday_of = weekday_of

    def _month_role(self, word: str) -> Role:
        """An Estonian month's case ending ("jaanuarist", "juunini"), never a month whose
        own name ends that way ("juuni", "August")."""
        return _estonian_role(word) if self._month_of(word[:-2]) is not None else None

    def find(
        self, text: str, today: date, taken: list[tuple[int, int]], hour: int | None = None
    ) -> list[Period]:
        found: list[Period] = []
        spans = TakenSpans(taken)
        free = spans.free

        def add(period: Period | None) -> None:
            if period is None or not free(period.start, period.end):
                return
            spans.take(period.start, period.end)
            found.append(period)

        written = text
        text = fold(text)  # same length: spans stay the message's own
        past = past_tense(text)
        for period, anchor in self._weekday_ranges(text, today, past):
            if anchor is None or free(*anchor):
                add(period)
                if anchor is not None and period in found:
                    spans.take(*anchor)  # "this week" dates the range; it is no second period
        for period in _school_year_pairs(text):
            add(period)
        for period in _year_ranges(text):
            add(period)
        for period in self._year_parts(text, today, past):
            add(period)
        for period in self._months(text, written, today, past, free):
            add(period)
        for period in _weekends(text, today):
            add(period)
        for period in _previous_periods(text, today):
            add(period)
        for period in self._last_weekdays(text, today):
            add(period)
        for period in _seasons(text, today, past):
            add(period)
        for period in _school_years(text, today):
            add(period)
        for period in _from_now(text, today, hour):
            add(period)
        for period in _now(text, today, hour):
            add(period)
        return found

    def find_day_ranges(self, text: str, today: date, taken: list[tuple[int, int]]) -> list[Period]:
        """Day ranges inside one month ("20-23 June 2027", "с 1 по 7 декабря"): read before
        single written dates, which would take "23 June 2027" alone."""
        text = fold(text)
        found = []
        spans = TakenSpans(taken)
        for period in self._day_ranges(text, today, past_tense(text)):
            if spans.free(period.start, period.end):
                spans.take(period.start, period.end)
                found.append(period)
        return found

    # -- halves and quarters of a year ---------------------------------------------
    def _year_parts(self, text: str, today: date, past: bool) -> list[Period]:
        """ "the first half of 2028", "selle aasta teises pooles", "во втором полугодии",
        "Q3", "III kvartal", "в третьем квартале следующего года": those months of the year
        said next to it (a written year, "next/this/last year"), else of this year."""
        periods = []
        for m in _YEAR_PART.finditer(text):
            number: int | None
            if m.group("q") or m.group("h"):
                number = int(m.group("qn") or m.group("hn"))
                months = 3 if m.group("q") else 6
            else:
                number = _ordinal(m.group("ordinal"))
                months = 6 if m.group("half") else 3
            if number is None or number > 12 // months:
                continue
            if _SMALLER_UNIT_AFTER.match(text, m.end()):
                continue  # "the first half of the day", "первая половина месяца"
            near = self._year_near(text, m.start(), m.end(), today)
            if (
                near is None
                and fold(m.group("half") or "") == "pool"
                and not _AASTA_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
            ):
                continue  # "teisel pool" is the other side; "aasta teine pool" the half
            year = near[0] if near else today.year
            if near is None and past and date(year, (number - 1) * months + 1, 1) > today:
                year -= 1
            first = date(year, (number - 1) * months + 1, 1)
            _, last = month_bounds(year, (number - 1) * months + months)
            start = min(m.start(), near[1]) if near else m.start()
            end = max(m.end(), near[2]) if near else m.end()
            periods.append(Period(first, start, end, last))
        return periods

    # -- months -----------------------------------------------------------------
    def _month_words(self, text: str, written: str) -> list[_MonthWord]:
        words = []
        for m in re.finditer(_WORD, text):
            word = m.group(1)
            month = self._month_of(word)
            if month is None:
                continue
            abbreviation = word in abbreviated_months() and self._month_of(word) is not None
            if abbreviation and len(word) > 3 and word not in _FULL_MONTH_NAMES:
                bare = self._dated_abbreviation(text, m.start(), m.end())  # "jaan" is also a name
            else:
                bare = _bare_month_word(written[m.start() : m.end()], written, m.start(), m.end())
                bare = bare or self._dated_abbreviation(text, m.start(), m.end())
            if not bare:
                continue
            words.append(_MonthWord(month, m.start(), m.end(), word))
        return words

    def _dated_abbreviation(self, text: str, start: int, end: int) -> bool:
        """A short abbreviation ("okt", "dec", "сент.") stands for its month in a range of
        months ("okt-dets 2027", "jan to mar", "с сент. по дек.") or before a year ("dec
        2027"); alone it is too often another word."""
        after = text[end : end + 24]
        before = text[max(0, start - 24) : start]
        if re.match(r"\.?,?\s*(?:of\s+)?(?:19|20|21)\d\d(?!\d)", after):
            return True
        if re.search(r"(?:\bin|\bduring|\bfor|\bв|\bво)\s+$", before, re.I):
            return True  # "in dec", "в дек."
        link = r"\.?\s*(?:-|–|—|\.\.|to|until|till|through|thru|kuni|по|до)\s*"
        following = re.match(rf"{link}([^\W\d_]{{3,}})", after, re.I)
        if following is not None and self._month_of(following.group(1)) is not None:
            return True
        preceding = re.search(rf"([^\W\d_]{{3,}}){link}$", before, re.I)
        return preceding is not None and self._month_of(preceding.group(1)) is not None

    def _year_near(self, text: str, start: int, end: int, today: date) -> tuple[int, int, int] | None:
        """(year, span start, span end) of a year written or named right by a month."""
        window_before = text[max(0, start - 30) : start]
        window_after = text[end : end + 30]
        for m in _WRITTEN_YEAR.finditer(window_after):
            if re.fullmatch(r"[\s,.]*(?:of\s+)?", text[end : end + m.start()]):
                return int(m.group(1)), end + m.start(), end + m.end()
        for m in _WRITTEN_YEAR.finditer(window_before):
            if not window_before[m.end() :].strip(" ,."):
                offset = start - len(window_before)
                return int(m.group(1)), offset + m.start(), offset + m.end()
        for window, offset in ((window_after, end), (window_before, start - len(window_before))):
            for m in _RELATIVE_YEAR.finditer(window):
                gap = window[: m.start()] if offset == end else window[m.end() :]
                if len(gap.strip(" ,.").split()) > 1:
                    continue
                if m.group("next") or m.group("next2"):
                    year = today.year + 1
                elif m.group("last") or m.group("last2"):
                    year = today.year - 1
                else:
                    year = today.year
                return year, offset + m.start(), offset + m.end()
        return None

    def _months(
        self, text: str, written: str, today: date, past: bool, free: Callable[[int, int], bool]
    ) -> list[Period]:
        months = [w for w in self._month_words(text, written) if free(w.start, w.end)]
        periods: list[Period] = []
        used: set[int] = set()
        for i, word in enumerate(months):
            if i in used:
                continue
            pair = months[i + 1] if i + 1 < len(months) else None
            joined = (
                pair is not None and _CONNECT_END.fullmatch(text[word.end : pair.start] + " ") is not None
            )
            estonian_pair = (
                pair is not None
                and self._month_role(word.word) == "start"
                and self._month_role(pair.word) == "end"
                and len(text[word.end : pair.start].split()) <= 1
            )
            if pair is not None and (joined or estonian_pair):
                used.add(i + 1)
                near = self._year_near(text, word.start, pair.end, today) or self._year_near(
                    text, pair.start, pair.end, today
                )
                first_year = near[0] if near else _month_year(word.month, today, past)
                second_year = first_year if pair.month >= word.month else first_year + 1
                first, _ = month_bounds(first_year, word.month)
                _, last = month_bounds(second_year, pair.month)
                span_start = min(word.start, near[1]) if near else word.start
                span_end = max(pair.end, near[2]) if near else pair.end
                before = text[max(0, span_start - 10) : span_start]
                if _CONNECT_START.search(before):
                    span_start -= len(before) - _CONNECT_START.search(before).start()  # type: ignore[union-attr]
                periods.append(Period(first, span_start, span_end, last))
                continue
            near = self._year_near(text, word.start, word.end, today)
            year = near[0] if near else _month_year(word.month, today, past)
            first, last = month_bounds(year, word.month)
            span_start = min(word.start, near[1]) if near else word.start
            span_end = max(word.end, near[2]) if near else word.end
            periods.append(Period(first, span_start, span_end, last, self._month_role(word.word)))
        return periods

    def _day_ranges(self, text: str, today: date, past: bool) -> list[Period]:
        periods = []
        for m in _DAY_RANGE.finditer(text):
            month = self._month_of(m.group("month"))
            if month is None:
                continue
            near = self._year_near(text, m.start("month"), m.end("month"), today)
            days = int(m.group("first")), int(m.group("second"))
            if near is None and not past:
                found = _nearest_days(month, days, today)
                if found is None:
                    continue
                first, last = found
            else:
                year = near[0] if near else _month_year(month, today, past)
                first, last = _safe(year, month, days[0]), _safe(year, month, days[1])  # type: ignore[assignment]
                if first is None or last is None or last < first:
                    continue
            span_end = max(m.end(), near[2]) if near else m.end()
            periods.append(Period(first, m.start(), span_end, last))
        return periods

    # -- weekdays ----------------------------------------------------------------
    def _weekday_ranges(
        self, text: str, today: date, past: bool
    ) -> list[tuple[Period, tuple[int, int] | None]]:
        """ "Monday to Sunday", "thursday to wednesday", "esmaspäevast pühapäevani", "с
        понедельника по воскресенье": the days from the first weekday to the second, in the
        week a word names ("this/next/last week", "sel nädalal", "на этой неделе"); without
        one, from the first such weekday on from today (the last one for the past)."""
        tokens = list(re.finditer(r"[^\W\d_]+|[-–—]", text))
        out: list[tuple[Period, tuple[int, int] | None]] = []
        for i, first in enumerate(tokens):
            one = self._weekday_of(first.group(0)) if len(first.group(0)) >= 3 else None
            if one is None:
                continue
            linked = i + 2 < len(tokens) and _WEEKDAY_LINK.fullmatch(tokens[i + 1].group(0))
            second = tokens[i + 2] if linked else tokens[i + 1] if i + 1 < len(tokens) else None
            if second is None or len(second.group(0)) < 3:
                continue
            two = self._weekday_of(second.group(0))
            estonian = first.group(0).endswith("st") and second.group(0).endswith("ni")
            if two is None or not (linked or estonian) or one[0] == two[0]:
                continue
            span = (two[0] - one[0]) % 7
            anchor = _WEEK_ANCHOR.search(text)
            monday = today - timedelta(days=today.weekday())
            if anchor is not None and not anchor.group("soon"):
                weeks = -1 if anchor.group("last") else 1 if anchor.group("next") else 0
                start = monday + timedelta(days=7 * weeks + one[0])
            elif past:
                start = today - timedelta(days=(today.weekday() - one[0]) % 7)
                if start + timedelta(days=span) > today:
                    start -= timedelta(days=7)
            else:
                start = today + timedelta(days=(one[0] - today.weekday()) % 7)
            begin = first.start()
            before = text[max(0, begin - 8) : begin]
            opening = _CONNECT_START.search(before)
            if opening is not None:
                begin -= len(before) - opening.start()
            period = Period(start, begin, second.end(), start + timedelta(days=span))
            out.append((period, anchor.span() if anchor is not None else None))
        return out

    def _last_weekdays(self, text: str, today: date) -> list[Period]:
        periods = []
        for m in re.finditer(rf"\b{_LAST_WORD}\s+([^\W\d_]{{3,}})", text, re.I):
            weekday = self._weekday_of(m.group(1))
            if weekday is None:
                continue
            back = (today.weekday() - weekday[0]) % 7 or 7
            day = today - timedelta(days=back)
            periods.append(Period(day, m.start(), m.end(), day))
        return periods


_FULL_MONTH_NAMES = full_month_names()
# Ordinals 1–4 in en/et/ru with their case forms (folded), and Roman numerals.
_ORDINALS: tuple[tuple[str, int], ...] = (
    (r"first|1st|esime\w*|перв\w*|i", 1),
    (r"second|2nd|teis\w*|teine|втор\w*|ii", 2),
    (r"third|3rd|kolma\w*|трет\w*|iii", 3),
    (r"fourth|4th|nelja\w*|четв[её]рт\w*|iv", 4),
)
_ORDINAL = "|".join(p for p, _ in _ORDINALS)
_YEAR_PART = re.compile(
    rf"(?<!\w)(?:(?P<q>q(?P<qn>[1-4]))|(?P<h>h(?P<hn>[12]))|"
    rf"(?P<ordinal>{_ORDINAL})\s+(?:(?P<half>half|pool\w*|poolaasta\w*|половин\w*|полугоди\w*)|"
    rf"(?P<quarter>quarter|kvartal\w*|квартал\w*)))(?!\w)",
    re.I,
)


_SMALLER_UNIT_AFTER = re.compile(
    r"\s+(?:of\s+)?(?:the\s+|this\s+|a\s+)?(?:month|week|day|kuu\w*|nadala\w*|paeva\w*|месяц\w*|недел\w*|дня)\b",
    re.I,
)
_AASTA_BEFORE = re.compile(r"\baasta\s+$", re.I)


def _ordinal(word: str) -> int | None:
    return next((n for pattern, n in _ORDINALS if re.fullmatch(pattern, word, re.I)), None)


_YEAR_RANGE = re.compile(
    r"(?<![\d\-./])(?P<first>19\d{2}|20\d{2}|21\d{2})\s*(?:-|–|—|\.\.)\s*(?P<last>19\d{2}|20\d{2}|21\d{2})"
    r"(?![\d\-./])"
)


def _year_ranges(text: str) -> list[Period]:
    """ "2025-2030", "2027–2028": 1 January of the first year to 31 December of the last."""
    out = []
    for m in _YEAR_RANGE.finditer(text):
        first, last = int(m.group("first")), int(m.group("last"))
        if first <= last:
            out.append(Period(date(first, 1, 1), m.start(), m.end(), date(last, 12, 31)))
    return out


_WEEKDAY_LINK = re.compile(r"to|through|thru|till|until|kuni|по|до|[-–—]", re.I)
# The week a range of weekdays is in; "the coming week" is the days from today on.
# (One word per alternative: each is tried once at each place, no nested repetition.)
_WEEK_ANCHOR = re.compile(
    r"\b(?:(?P<soon>(?:the\s+)?(?:coming|upcoming)|ближайш\w*)|(?P<next>next|jargmi\w*|tuleva\w*|следующ\w*)|"
    r"(?P<last>last|previous|eelmi\w*|moodunud\w*|прошл\w*|"
    r"предыдущ\w*)|this|sel|sellel|kaesolev\w*|jooksv\w*|эт\w+|текущ\w*)\s+(?:week|nadal\w*|недел\w*)\b",
    re.I,
)
_DAY_RANGE = re.compile(
    r"(?<![\d.])(?P<first>\d{1,2})\.?\s*(?:-|–|—|to|until|till|through|and|kuni|по|до|и)\s*"
    r"(?P<second>\d{1,2})(?:st|nd|rd|th|\.)?\s+(?:of\s+)?(?P<month>[^\W\d_]{3,})",
    re.I,
)


def _bare_month_word(word: str, text: str, start: int, end: int) -> bool:
    """Whether a month word stands for the month itself: not a day of it ("1 June",
    "June 1st" are read elsewhere), not "may" the verb, not an abbreviation. `text` is
    the message as written (its capitals tell "May" from "may")."""
    lowered = word.lower()
    before = text[max(0, start - 12) : start]
    after = text[end : end + 9]
    day_before = re.search(r"(?<!\d)\d{1,2}(?:st|nd|rd|th)?\.?\s*(?:of\s+)?$", before, re.I)
    if day_before or re.match(r"\s*\d{1,2}(?:st|nd|rd|th)?\b(?![.:]?\d)", after):
        return False
    if len(lowered) <= 3 and lowered not in ("may", "mai", "май", "мая", "мае"):
        return False
    if lowered in ("may", "march"):
        # The verbs are far more common: "in May", "May 2027", "March" with a capital.
        preposition = re.search(r"\b(?:in|of|during|until|till|from|since|by|to|and)\s+$", before, re.I)
        year_after = re.match(r"\s*(?:of\s+)?(?:\d{4}|next|this|last)\b", after, re.I)
        opens_sentence = not text[:start].strip() or text[:start].rstrip()[-1] in ".!?"
        alone = not text[:start].strip() and not text[end:].strip(" .!?")  # a reply: "March"
        return bool(alone or preposition or year_after or (word[0].isupper() and not opens_sentence))
    return True


def _month_year(month: int, today: date, past: bool) -> int:
    """The year of a month named without one: the coming one, or the last for the past."""
    if past:
        return today.year if month <= today.month else today.year - 1
    return today.year if month >= today.month else today.year + 1


def _nearest_days(month: int, days: tuple[int, int], today: date) -> tuple[date, date] | None:
    """A few days of a month without a year ("23–29 nov"): the occurrence nearest to
    today, this year's just gone rather than next year's — as a single day without a
    year is this year's. A day only some years have ("28–29 feb") is looked for in the
    years around, so the range keeps its start."""

    def occurrence(year: int) -> tuple[date, date] | None:
        first, last = _safe(year, month, days[0]), _safe(year, month, days[1])
        return (first, last) if first is not None and last is not None and first <= last else None

    start = _month_year(month, today, past=False)
    # A leap day comes round within eight years, both ways.
    coming = next((o for y in range(start, start + 9) if (o := occurrence(y)) is not None), None)
    if coming is None:
        return None
    if coming[0] <= today:
        return coming
    years_before = range(coming[0].year - 1, start - 9, -1)
    earlier = next((o for y in years_before if (o := occurrence(y)) is not None), None)
    if earlier is not None and (today - earlier[1]) < (coming[0] - today):
        return earlier
    return coming


# -- weekends and whole previous periods -------------------------------------------
_WEEKEND_WORD = r"(?:week-?ends?|nadalavahetus\w*|выходны\w+)"
_WEEKEND = re.compile(
    # "на последних выходных", "the last weekend": the latest one gone ("последний" is
    # "last" of a weekend; of a count, "последние 3", it is no period).
    rf"\b(?:(?P<last>{_LAST_WORD}|последн\w*)\s+|(?P<next>{_NEXT_WORD})\s+|(?:{_THIS_WORD}|on|over|at|during|на|в|во)\s+)?"
    rf"(?:(?:{_THIS_WORD})\s+)?(?P<word>{_WEEKEND_WORD})",
    re.I,
)


# A weekend named in general, never one weekend: "on a weekend", "on weekends",
# "nädalavahetustel" (plural), "langeb nädalavahetusele" (onto), "выпадает на выходные"
# (onto: the accusative; "будет на выходных", the prepositional, is at one weekend).
_ANY_WEEKEND = re.compile(
    r"\ba\s+week-?end\b|\bweek-?ends\b|\bnadalavahetuste\w*|\bnadalavahetusele\b|"
    r"(?:выпада|выпадет|приход|приходит|попада|будет|будут)\w*\s+(?:\w+\s+)?на\s+выходн(?:ые|ой|ую)\b|"
    r"\bвыходн\w+\s+дн\w+",
    re.I,
)
_DATING_WORD = re.compile(
    rf"\b(?:{_LAST_WORD}|{_NEXT_WORD}|this|sel|sellel|see|selle|kaesolev\w*|jooksv\w*|эт\w+|текущ\w*)\b", re.I
)


def _weekends(text: str, today: date) -> list[Period]:
    folded = text
    periods = []
    general = [m.span() for m in _ANY_WEEKEND.finditer(folded)]
    for m in _WEEKEND.finditer(folded):
        if any(s < m.end() and m.start() < e for s, e in general):
            continue  # any weekend: a filter of the rows (loop_svc.shapes), not a period
        if m.group("word").startswith("выходн") and not re.search(
            r"(?:на|в|во|эти|этих|прошл\w*|последн\w*|следующ\w*|ближайш\w*)\s+$",
            folded[max(0, m.start("word") - 15) : m.start("word")],
        ):
            continue  # "выходной" alone is a day off, not the weekend
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:
            saturday = today - timedelta(days=1)
        if m.group("last"):
            saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
            if today.weekday() == 6:
                saturday = today - timedelta(days=8)
        elif m.group("next") and today.weekday() >= 5:
            saturday += timedelta(days=7)
        loose = not _DATING_WORD.search(folded[m.start() : m.start("word")])
        periods.append(Period(saturday, m.start(), m.end(), saturday + timedelta(days=1), loose=loose))
    return periods


_PREVIOUS = re.compile(
    rf"\b{_LAST_WORD}\s+(?P<unit>week|nadal\w*|недел\w*|month|kuu\w*|месяц\w*|year|aasta\w*|год\w*)\b"
    # "mullu": the Estonian adverb for last year, as "tänavu" is this year's.
    r"|\b(?P<unit2>mullu)\b",
    re.I,
)


def _previous_periods(text: str, today: date) -> list[Period]:
    periods = []
    for m in _PREVIOUS.finditer(text):
        unit = (m.group("unit") or "year").lower()
        if unit.startswith(("week", "nadal", "недел")):
            monday = today - timedelta(days=today.weekday() + 7)
            periods.append(Period(monday, m.start(), m.end(), monday + timedelta(days=6)))
        elif unit.startswith(("month", "kuu", "месяц")):
            first_of_this = today.replace(day=1)
            last_month_end = first_of_this - timedelta(days=1)
            first, last = month_bounds(last_month_end.year, last_month_end.month)
            periods.append(Period(first, m.start(), m.end(), last))
        else:
            periods.append(
                Period(date(today.year - 1, 1, 1), m.start(), m.end(), date(today.year - 1, 12, 31))
            )
    return periods


# -- seasons, the school year, now -------------------------------------------------
# The first month of each season, by the stems of its names in en/et/ru (folded).
_SEASONS: list[tuple[int, tuple[str, ...]]] = [
    (12, ("winter", "talv", "зим")),
    (3, ("spring", "kevad", "весн", "весен")),
    (6, ("summer", "suvi", "suve", "лет")),
    (9, ("autumn", "fall", "sugis", "осен")),
]
# Season words and their case forms, not compounds ("talvevaheaeg", "kevadpüha" are
# a school break and a holiday, not the season).
_SEASON = re.compile(
    r"\b(?:winter|spring|summer|autumn|"
    r"talv(?:e|el|est|eni|eks|ine|isel)?|kevad(?:e|el|est|eni|eks|ine|isel)?|suvi|suve(?:l|st|ni|ks)?|suvine|"
    r"sugis(?:e|el|est|eni|eks|ene|esel)?|зим\w*|весн\w*|весен\w*|летом|лето|летн\w*|осен\w*)\b",
    re.I,
)


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


# A season word naming a school break ("winter break", "summer holidays", "зимние
# каникулы", "talvine vaheaeg"): the break's name, whose dates the rows hold, not the season.
_BREAK_AFTER = re.compile(
    r"\s+(?:school\s+)?(?:break|breaks|holidays?|vacations?|каникул\w*|vaheaeg\w*|koolivaheaeg\w*)\b", re.I
)

# A season's adjective standing for its noun ("а зимние?", "ja kevadine?", "только летние"
# after a list of breaks): the name of a kind of row, like a break, unless a period noun
# follows it ("летние месяцы", "suvine aeg").
_SEASON_ADJECTIVE = re.compile(r"(?:зимн|весенн|летн|осенн)\w*|(?:talv|kevad|suv)ine|sugisene", re.I)
_PERIOD_NOUN_AFTER = re.compile(r"\s+(?:month|season|time|месяц\w*|пор\w*|время|kuu\w*|aeg\w*)\b", re.I)


def _seasons(text: str, today: date, past: bool) -> list[Period]:
    """The season containing today, else the coming one (the last one for the past)."""
    periods = []
    for m in _SEASON.finditer(text):
        if _BREAK_AFTER.match(text, m.end()):
            continue
        if _SEASON_ADJECTIVE.fullmatch(m.group(0)) and not _PERIOD_NOUN_AFTER.match(text, m.end()):
            continue
        word = m.group(0).lower()
        first_month = next(start for start, stems in _SEASONS if any(word.startswith(s) for s in stems))
        occurrences = []
        for year in (today.year - 1, today.year, today.year + 1):
            first = date(year, first_month, 1)
            occurrences.append((first, _add_months(first, 3) - timedelta(days=1)))
        current = [o for o in occurrences if o[0] <= today <= o[1]]
        if current:
            first, last = current[0]
        elif past:
            first, last = max(o for o in occurrences if o[1] < today)
        else:
            first, last = min(o for o in occurrences if o[0] > today)
        periods.append(Period(first, m.start(), m.end(), last))
    return periods


_SCHOOL_YEAR = re.compile(
    r"\b(?:(?:this|current|the)\s+)?(?:school|academic)\s+year\b|\boppeaasta\w*|\bучебн\w*\s+год\w*",
    re.I,
)


# Two years of one school year: "2027/2028", "2027/28", "27/28", "2027-2028", "2027–28".
_YEAR_PAIR = re.compile(
    r"(?<![\d\-./])(?P<first>(?:19|20)?\d\d)\s*(?P<link>[/\-–—])\s*(?P<last>(?:19|20)?\d\d)(?![\d\-./])"
)
# The school year's word this close to a pair of years names that pair ("the 2027/28
# school year", "учебном году 2027/2028", "2027-2028 õppeaasta"): words between, no digits.
_PAIR_REACH = 40
_MONTHS_IN_YEAR = 12


_SCHOOL_YEAR_AFTER = re.compile(rf"(?:\s+[^\W\d]+){{0,2}}?\s*(?:{_SCHOOL_YEAR.pattern})", re.I)
_SCHOOL_YEAR_BEFORE = re.compile(rf"(?:{_SCHOOL_YEAR.pattern})(?:\s+[^\W\d]+){{0,2}}\s*$", re.I)


def _school_year_pairs(text: str) -> list[Period]:
    """A school year written as its two years (1 September of the first to 31 August of
    the second). A pair with a slash and the first year in full is one whatever stands
    near it; a hyphenated pair only with the school year's word (alone, "2027-2028" is two
    calendar years); a short pair with a slash also when it can be no day and month
    ("27/28")."""
    periods = []
    for m in _YEAR_PAIR.finditer(text):
        first_text, last_text = m.group("first"), m.group("last")
        first = int(first_text) if len(first_text) == 4 else 2000 + int(first_text)
        last = int(last_text) if len(last_text) == 4 else first // 100 * 100 + int(last_text)
        if len(last_text) == 2 and last < first:
            last += 100  # "1999/00"
        if last != first + 1:
            continue
        after = _SCHOOL_YEAR_AFTER.match(text[m.end() : m.end() + _PAIR_REACH])
        before = _SCHOOL_YEAR_BEFORE.search(text[max(0, m.start() - _PAIR_REACH) : m.start()])
        slash = m.group("link") == "/"
        no_day = min(int(first_text[-2:]), int(last_text[-2:])) > _MONTHS_IN_YEAR
        if not (after or before or (slash and (len(first_text) == 4 or no_day))):
            continue
        start = m.start() - (len(before.group(0)) if before else 0)
        end = m.end() + (after.end() if after else 0)
        # A word dating the school year said beside its years is the period's too ("на
        # следующий учебный год 27/28"): "next" is then no row picked ("the next one").
        if dating := re.search(
            rf"{_NEXT_WORD}\s*$|{_LAST_WORD}\s*$|{_THIS_WORD}\s*$", text[max(0, start - 20) : start], re.I
        ):
            start -= len(text[max(0, start - 20) : start]) - dating.start()
        periods.append(Period(date(first, 9, 1), start, end, date(first + 1, 8, 31)))
    return periods


def _school_years(text: str, today: date) -> list[Period]:
    periods = []
    for m in _SCHOOL_YEAR.finditer(text):
        first_year = today.year if today.month >= 9 else today.year - 1
        before = text[max(0, m.start() - 20) : m.start()]
        start = m.start()
        # The word that dates it is the period's too: "next" is no row picked ("the next one").
        if dating := re.search(rf"{_NEXT_WORD}\s*$", before, re.I):
            first_year += 1
        elif dating := re.search(rf"{_LAST_WORD}\s*$", before, re.I):
            first_year -= 1
        if dating is not None:
            start -= len(before) - dating.start()
        periods.append(Period(date(first_year, 9, 1), start, m.end(), date(first_year + 1, 8, 31)))
    return periods


# Read on folded text (no diacritics), like the words it lists.
_NOW = re.compile(rf"(?<!\w)(?:{NOW_PATTERN})(?!\w)", re.I)


def _from_now(text: str, today: date, hour: int | None) -> list[Period]:
    """ "the next 3 hours", "in an hour", "the past 7 days", "the rest of today": the
    stretch's first and last moments (loop_svc.extraction.from_now)."""
    out = []
    for s in find_stretches(text, today, hour):
        last = s.last_moment
        out.append(
            Period(
                s.start.date(),
                s.span_start,
                s.span_end,
                last.date(),
                opens=s.start.time(),
                closes=last.time(),
            )
        )
    return out


def _now(text: str, today: date, hour: int | None) -> list[Period]:
    if hour is None:
        return []
    return [
        Period(today, m.start(), m.end(), today, opens=time(hour, 0), closes=time(hour, 59, 59))
        for m in _NOW.finditer(text)
    ]
