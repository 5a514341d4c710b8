"""Dates, date ranges and years written in a message (en/et/ru).

Understood: ISO dates (2026-01-01, with an optional time), day-first dotted
dates (1.01.2026), slashed dates (01/02/2026 is day/month, as in Estonia; a
first number above 12 cannot be a month either way, a second one above 12
means month/day), "1 January 2026" / "1. jaanuar 2026" / "1 января 2026",
"January 1, 2026", a month with a year ("May 2026" → the whole month),
today/tomorrow/yesterday, "this year", and bare years (1900–2199). Words just
before a date mark it as a range start (from, since, alates, с, от) or end (to,
until, kuni, по, до). Other relative phrases ("in 3 days", "через 3 дня") go to
dateparser, always with an explicit language and only when such a phrase is
present (its language auto-detection costs seconds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo

from loop_svc.extraction.calendar_words import abbreviated_months, typo_month
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.extraction.periods import PeriodFinder, past_tense
from loop_svc.extraction.relative import find_spoken, names_day_of_month, weekday_of
from loop_svc.extraction.text import ESTONIAN_CASE_ENDINGS, TakenSpans, fold
from loop_svc.schema import Role
from services.language import Lang

_EN_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_EXACT_MONTHS: dict[str, int] = {
    # babel's abbreviations: "okt", "dets", "jaan", "veebr", "сент", "нояб", "дек".
    **abbreviated_months(),
    **{name: i for i, name in enumerate(_EN_MONTHS, start=1)},
    **{name[:3]: i for i, name in enumerate(_EN_MONTHS, start=1)},
    "sept": 9,
    # Estonian "mai" and Russian "май" are too short to match by prefix: every case form.
    **{"mai" + ending: 5 for ending in ("", *ESTONIAN_CASE_ENDINGS)},
    **dict.fromkeys(("май", "мая", "мае", "маю", "маем"), 5),
}
# Estonian and Russian months are inflected: matched by stem prefix.
_MONTH_PREFIXES: list[tuple[str, int]] = [
    (p, m)
    for m, prefixes in enumerate(
        [
            ("jaanuar", "январ"),
            ("veebruar", "феврал"),
            ("marts", "март"),
            ("aprill", "апрел"),
            (),
            ("juuni", "июн"),
            ("juuli", "июл"),
            ("august", "август"),
            ("septemb", "сентябр"),
            ("oktoob", "октябр"),
            ("novemb", "ноябр"),
            ("detsemb", "декабр"),
        ],
        start=1,
    )
    for p in prefixes
]

_WORD = r"([^\W\d_]{3,})"
_TIME = r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?"
_ISO = re.compile(rf"(?<![\d.])(\d{{4}})-(\d{{1,2}})-(\d{{1,2}}){_TIME}(?![\d])")
_DOTTED = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)")
_SLASHED = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?!\d)")
_DAY_MONTH_YEAR = re.compile(rf"(?<!\d)(\d{{1,2}})\.?\s+{_WORD}\s+(\d{{4}})(?!\d)")
# The month word starts a word: tried from inside one, a long run of letters was read
# once per letter (quadratic in the run).
_MONTH_DAY_YEAR = re.compile(rf"(?<![^\W\d_]){_WORD}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)")
_YEAR = re.compile(r"(?<![\d\-./])(19\d{2}|20\d{2}|21\d{2})(?!\d)(?![-./]\d)")
_THIS_YEAR = re.compile(
    r"\bthis year\b|\b(sel|käesoleval|jooksval) aastal\b|\btänavu\b|\btanavu\b|\bsee aasta\b|\bselle aasta\b"
    r"|в\s+этом\s+году|\bэтот\s+год\b|\bэтого\s+года\b|\bтекущ\w*\s+год\w*",
    re.I,
)
# Only these send a message to dateparser.
_RELATIVE_HINT = re.compile(
    r"\b(next|last|ago|in \d+ (day|week|month)s?|järgmi\w*|eelmi\w*|\d+ (päeva|nädala|kuu)\w*"
    r"|через|назад|следующ\w*|прошл\w*)\b",
    re.I,
)
# "after" right before a period, with at most two words that only point at it between
# ("after the summer one", "after this year's midsummer", "peale seda suve"); the
# Estonian postposition "järel" right after it ("jõulude järel").
# ("after work tomorrow" is tomorrow: only words that point at the period stand between).
_POINTING = (
    r"(?:the|this|that|these|those|next|coming|upcoming|year's|seda|selle|neid|tanavust|tänavust|"
    r"jargmist|järgmist|этого|этой|этих|нынешн\w*|ближайш\w*|следующ\w*)"
)
_AFTER_BEFORE = re.compile(
    rf"(?:\bafter|\bpärast|\bparast|\bpeale|\bпосле)\s+(?:{_POINTING}\s+){{0,2}}$", re.I
)
_AFTER_BEHIND = re.compile(r"\s+(?:järel|jarel)\b", re.I)
_START_CONNECTORS = re.compile(r"(?:\bfrom|\bsince|\bstarting|\bbeginning|\balates|\bс|\bсо|\bот)\s*$", re.I)
_END_CONNECTORS = re.compile(
    r"(?:\bto|\buntil|\btill|\bthrough|\bthru|\bbefore|\benne|\bkuni|\bпо|\bдо|\bперед|-|–|—|\.\.)\s*$", re.I
)


@dataclass(frozen=True)
class DateMention:
    value: date
    start: int
    end: int
    connector: Role = None
    at: time | None = None
    # A month or year written without a day stands for all of its days.
    last: date | None = None
    # A window inside the day(s), local time ("now" → this hour).
    opens: time | None = None
    closes: time | None = None
    # An undated weekend (periods.Period.loose): dropped when another period is named.
    loose: bool = False


@dataclass
class DateFindings:
    dates: list[DateMention] = field(default_factory=list)
    years: list[DateMention] = field(default_factory=list)

    @property
    def spans(self) -> list[tuple[int, int]]:
        return [(m.start, m.end) for m in (*self.dates, *self.years)]


def whole_year(mention: DateMention) -> bool:
    """A mention that stands for one calendar year ("next year", "järgmisel aastal")."""
    last = mention.last
    return (
        last is not None
        and (mention.value.month, mention.value.day) == (1, 1)
        and (last.month, last.day) == (12, 31)
        and last.year == mention.value.year
    )


def month_of(word: str) -> int | None:
    """The month a word names in en/et/ru, in any case form, diacritics or not
    ("detsembris", "martsini", "в декабре", "Dec"), typos too ("janaury", "фефрале")."""
    lowered = fold(word)
    if lowered in _EXACT_MONTHS:
        return _EXACT_MONTHS[lowered]
    for prefix, month in _MONTH_PREFIXES:
        if lowered.startswith(prefix):
            return month
    return typo_month(lowered)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _moment(
    day: date | None, hour: str | None, minute: str | None, second: str | None, zone: str | None
) -> tuple[date | None, time | None]:
    """The date and UTC time of an ISO timestamp; an offset can move the date."""
    if day is None or hour is None or minute is None:
        return day, None
    try:
        moment = time(int(hour), int(minute), int(second or 0))
    except ValueError:
        return day, None
    if not zone or zone == "Z":
        return day, moment
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:])) * sign
    utc = datetime.combine(day, moment, tzinfo=timezone(offset)).astimezone(UTC)
    return utc.date(), utc.time()


def _connector(text: str, start: int) -> Role:
    before = text[max(0, start - 12) : start]
    if _START_CONNECTORS.search(before):
        return "start"
    if _END_CONNECTORS.search(before):
        return "end"
    return None


def find_dates(
    text: str,
    lang: Lang,
    today: date,
    hour: int | None = None,
    *,
    holidays: HolidayNames | None = None,
    country: str | None = None,
    skip: Sequence[tuple[int, int]] = (),
    reserved: Sequence[tuple[int, int]] = (),
) -> DateFindings:
    """Dates, periods and years in `text`; `hour` is the current local hour, for "now";
    holidays named are dated in `country` (the one the message names), whose name's
    words (`skip`) are not read as a holiday's; `reserved` spans (identifiers) hold none."""
    found: list[DateMention] = []
    taken: list[tuple[int, int]] = list(reserved)
    spans = TakenSpans(taken)

    def add(
        value: date | None, start: int, end: int, at: time | None = None, last: date | None = None
    ) -> None:
        if value is None or not spans.free(start, end):
            return
        taken.append((start, end))
        found.append(DateMention(value, start, end, _connector(text, start), at, last))

    for period in _PERIODS.find_day_ranges(text, today, taken):
        found.append(DateMention(period.value, period.start, period.end, None, None, period.last))
    for m in _ISO.finditer(text):
        moment_day, at = _moment(_safe_date(int(m[1]), int(m[2]), int(m[3])), m[4], m[5], m[6], m[7])
        add(moment_day, m.start(), m.end(), at)
    for m in _DOTTED.finditer(text):
        add(_safe_date(int(m[3]), int(m[2]), int(m[1])), m.start(), m.end())
    for m in _SLASHED.finditer(text):
        first, second = int(m[1]), int(m[2])
        day_number, month_number = (second, first) if second > 12 >= first else (first, second)
        add(_safe_date(int(m[3]), month_number, day_number), m.start(), m.end())
    for m in _DAY_MONTH_YEAR.finditer(text):
        named = month_of(m[2])
        if named:
            add(_safe_date(int(m[3]), named, int(m[1])), m.start(), m.end())
    for m in _MONTH_DAY_YEAR.finditer(text):
        named = month_of(m[1])
        if named:
            add(_safe_date(int(m[3]), named, int(m[2])), m.start(), m.end())
    for period in _PERIODS.find(text, today, taken, hour):
        role = period.role or _connector(text, period.start)
        found.append(
            DateMention(
                period.value,
                period.start,
                period.end,
                role,
                None,
                period.last,
                period.opens,
                period.closes,
                period.loose,
            )
        )
    holiday_found = _holidays(text, lang, today, taken, found, holidays, country, skip, families=False)
    written_years = [int(m[1]) for m in _YEAR.finditer(text) if spans.free(m.start(), m.end())]
    spoken_dates = []
    for spoken in find_spoken(text, today, month_of, taken, written_years[0] if written_years else None):
        role = spoken.role or _connector(text, spoken.start)
        spoken_dates.append(DateMention(spoken.value, spoken.start, spoken.end, role, None, spoken.last))
    found.extend(_dated_by_year_said(text, found, spoken_dates, bool(written_years)))
    if not holiday_found:
        # A word that only starts holiday names ("Christmas") after the weekdays ("Friday"
        # is a day, not Good Friday).
        _holidays(text, lang, today, taken, found, holidays, country, skip, families=True)
    if not found and _RELATIVE_HINT.search(text):
        parsed = _dateparser(text, lang, today)
        if parsed is not None:
            add(parsed, 0, len(text))

    years: list[DateMention] = []
    for m in _THIS_YEAR.finditer(fold(text)):  # "tanavu" typed without its diacritic
        if spans.free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            years.append(
                DateMention(date(today.year, 1, 1), m.start(), m.end(), None, last=date(today.year, 12, 31))
            )
    for m in _YEAR.finditer(text):
        if spans.free(m.start(), m.end()):
            year = int(m[1])
            years.append(
                DateMention(
                    date(year, 1, 1), m.start(), m.end(), _connector(text, m.start()), last=date(year, 12, 31)
                )
            )
    timed = [d for d in found if d.opens is not None and d.last is not None]
    if timed:
        # "täna ülejäänud päeva jooksul", "сегодня до конца дня": the day word names the
        # day the timed stretch is in, no second period.
        found = [
            d
            for d in found
            if d.opens is not None
            or d.last not in (None, d.value)
            or not any(t.value <= d.value <= (t.last or t.value) for t in timed)
        ]
    if any(d.loose for d in found) and (years or any(not d.loose for d in found)):
        # "holidays on the weekend in 2027": the year is the period, the weekend its days.
        found = [d for d in found if not d.loose]
    found = [_after_it(text, d) for d in found]
    found.sort(key=lambda d: d.start)
    years.sort(key=lambda d: d.start)
    return DateFindings(found, years)


def _after_it(text: str, mention: DateMention) -> DateMention:
    """A period said after "after" ("after this year's midsummer", "peale seda suve",
    "после Рождества", "jõulude järel") opens the rows on the day after it ends: the
    asked rows are the ones that follow it, not its own."""
    before = text[max(0, mention.start - 24) : mention.start]
    if not (_AFTER_BEFORE.search(before) or _AFTER_BEHIND.match(text, mention.end)):
        return mention
    following = (mention.last or mention.value) + timedelta(days=1)
    return replace(mention, value=following, last=None, connector="start", at=None, opens=None, closes=None)


_PERIODS = PeriodFinder(month_of, weekday_of)


def _dated_by_year_said(
    text: str, found: list[DateMention], spoken: list[DateMention], year_written: bool
) -> list[DateMention]:
    """The spoken dates, a day of a month named without its year ("3 October next year",
    "24th feb next yr") put in the one year said in words; that year then names no period
    of its own (the day and the whole year made a range). The year said is removed from
    `found` when it is there."""
    said = [d for d in (*found, *spoken) if whole_year(d) and not _YEAR.search(text[d.start : d.end])]
    days = [d for d in spoken if d.last is None and names_day_of_month(text[d.start : d.end], month_of)]
    if year_written or len(said) != 1 or not days:
        return spoken
    year = said[0].value.year
    if said[0] in found:
        found.remove(said[0])
    return [
        replace(d, value=_safe_date(year, d.value.month, d.value.day) or d.value) if d in days else d
        for d in spoken
        if d is not said[0]
    ]


def _holidays(
    text: str,
    lang: Lang,
    today: date,
    taken: list[tuple[int, int]],
    found: list[DateMention],
    holidays: HolidayNames | None,
    country: str | None,
    skip: Sequence[tuple[int, int]],
    *,
    families: bool,
) -> bool:
    """Holidays named in the message, added to `found`; whether any was."""
    if holidays is None:
        return False
    year, year_span = _year_hint(text, taken, today)
    spans = TakenSpans(taken)
    named = holidays.find(
        text,
        lang,
        today,
        country=country,
        year=year,
        past=past_tense(text),
        skip=[*taken, *skip],
        families=families,
    )
    added = False
    for holiday in named:
        if spans.free(holiday.start, holiday.end):
            taken.append((holiday.start, holiday.end))
            last = holiday.dates[-1] if len(holiday.dates) > 1 else None
            role = _connector(text, holiday.start)
            # A period said with the holiday that holds it ("jaanipäev next summer", "Easter
            # in spring 2027") only says which occurrence: the holiday's days are asked.
            first_day, last_day = holiday.dates[0], holiday.dates[-1]
            found[:] = [
                d
                for d in found
                if d.last is None or not (d.value <= first_day and last_day <= d.last) or d.loose
            ]
            found.append(DateMention(holiday.dates[0], holiday.start, holiday.end, role, None, last))
            added = True
            if year_span is not None:
                taken.append(year_span)  # "Easter 2027": the year is the holiday's, not a period
    return added


_NEXT_YEAR_PHRASE = re.compile(
    r"\b(?:next\s+(?:year|yr)|järgmis\w*\s+aasta\w*|jargmis\w*\s+aasta\w*|следующ\w*\s+год\w*|в\s+следующем\s+году)\b",
    re.I,
)


def _year_hint(
    text: str, taken: list[tuple[int, int]], today: date
) -> tuple[int | None, tuple[int, int] | None]:
    """The year a holiday named in the message is meant in: a written year, "next year"
    or "this year" (with the span it takes), or none."""
    spans = TakenSpans(taken)
    for m in _YEAR.finditer(text):
        if spans.free(m.start(), m.end()):
            return int(m[1]), (m.start(), m.end())
    for m in _NEXT_YEAR_PHRASE.finditer(text):
        if spans.free(m.start(), m.end()):
            return today.year + 1, (m.start(), m.end())
    for m in _THIS_YEAR.finditer(fold(text)):
        if spans.free(m.start(), m.end()):
            return today.year, (m.start(), m.end())
    return None, None


def _dateparser(text: str, lang: Lang, today: date) -> date | None:
    import dateparser  # imported on first use: most turns never need it

    base = datetime.combine(today, time(12, 0))
    parsed = dateparser.parse(
        text, languages=[lang], settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    )
    return parsed.date() if parsed is not None else None


def iso_date(value: date) -> str:
    return value.isoformat()


def iso_datetime(value: date, at: time | None, role: Role, zone: tzinfo | None = None) -> str:
    """YYYY-MM-DDTHH:MM:SSZ. A date alone is a day of the citizen's calendar in `zone`:
    it opens at its 00:00:00 and closes at its 23:59:59 local time, sent in UTC (a
    Tallinn day in winter is 22:00Z–21:59:59Z; the DST days have 23 and 25 hours).
    A time read from an ISO timestamp is already UTC."""
    if at is not None:
        return f"{value.isoformat()}T{at.strftime('%H:%M:%S')}Z"
    wall = time(23, 59, 59) if role == "end" else time(0, 0, 0)
    if zone is None:
        return f"{value.isoformat()}T{wall.strftime('%H:%M:%S')}Z"
    moment = datetime.combine(value, wall, tzinfo=zone).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
