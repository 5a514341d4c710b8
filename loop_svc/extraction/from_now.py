"""Stretches of time counted from now (en/et/ru), on the citizen's wall clock:

- "the next 3 hours", "järgmise kolme tunni jooksul", "в ближайшие три часа": from the
  start of this hour for N hours; "the next hour", "järgmine tund", "следующий час":
  the hour after this one;
- "in an hour", "in 2 hours", "tunni aja pärast", "3 tunni pärast", "через час",
  "через 2 часа", "an hour from now": that one hour;
- "the past 3 hours", "viimase 3 tunni", "за последние 3 часа": the N whole hours
  before this one;
- "the next 7 days", "järgmise 30 päeva", "следующие 7 дней" (weeks alike): from now
  for N days; "the past 3 days", "viimased 10 päeva", "за последние 10 дней": the N
  days up to now;
- "the rest of today", "until midnight", "later today", "ülejäänud päeva", "päeva
  lõpuni", "keskööni", "до конца дня", "до полуночи", "остаток дня": from this hour
  to the day's end (not when a clock hour is said: "from 22 until midnight" is that
  hour's window, read by the window rules).

Matched on folded text (same length as the message: spans stay its own). Counts are
digits or number words (services' own list, en/et/ru case forms). Times are naive
local wall times; `end` is exclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from loop_svc.extraction.numbers import NUMBER_WORD, number_value
from loop_svc.extraction.text import fold


@dataclass(frozen=True)
class Stretch:
    start: datetime
    end: datetime  # exclusive
    span_start: int
    span_end: int
    unit: str  # "hour" or "day"

    @property
    def last_moment(self) -> datetime:
        return self.end - timedelta(seconds=1)


_NEXT = (
    r"(?:next|coming|following|upcoming|jargmi\w*|lahima\w*|lahema\w*|lahemad|lahimad|tuleva\w*|"
    r"eelseisva\w*|следующ\w*|ближайш\w*|грядущ\w*)"
)
_PAST = (
    r"(?:past|last|previous|preceding|eelmi\w*|viima\w*|moodunud\w*|последн\w*|прошл\w*|минувш\w*|"
    r"предыдущ\w*)"
)
_HOUR_UNIT = r"(?:hours?|hrs?|tund\w*|tunni\w*|час\w*)"
_DAY_UNIT = r"(?:days?|paev\w*|ден\w*|дн\w*|сут\w*)"
DAY_UNIT = _DAY_UNIT
_WEEK_UNIT = r"(?:weeks?|nadal\w*|недел\w*)"
_COUNT = rf"(\d{{1,3}}|{NUMBER_WORD})"
_UNIT = rf"({_HOUR_UNIT}|{_DAY_UNIT}|{_WEEK_UNIT})"

# "the next 3 hours", "järgmise 7 päeva", "последние 10 дней", "next couple of days"
_COUNTED = re.compile(rf"(?<!\w)(?:({_NEXT})|({_PAST}))\s+(?:of\s+)?{_COUNT}\s+(?:of\s+)?{_UNIT}(?!\w)")
# "the next hour", "järgmine tund", "следующий час": one hour, the one after this
_NEXT_HOUR = re.compile(rf"(?<!\w){_NEXT}\s+{_HOUR_UNIT}(?!\w)")
# "in an hour", "in 3 hours", "3 hours from now", "tunni aja pärast", "через 2 часа"
_IN_HOURS = re.compile(
    rf"(?<!\w)(?:in\s+(?:an?|{_COUNT})\s+{_HOUR_UNIT}(?:\s+from\s+now)?|(?:an?|{_COUNT})\s+{_HOUR_UNIT}\s+from\s+now|"
    rf"(?:{_COUNT}\s+)?tunni\s+(?:aja\s+)?parast|через\s+(?:{_COUNT}\s+)?час\w*)(?!\w)"
)
_REST_OF_DAY = re.compile(
    r"(?<!\w)(?:(?:the\s+)?rest\s+of\s+(?:the\s+)?(?:day|today)|remainder\s+of\s+(?:the\s+)?day|"
    r"(?:until|till|til|to)\s+(?:the\s+)?end\s+of\s+(?:the\s+)?day|(?:until|till|til)\s+midnight|later\s+today|"
    r"ulejaanud\s+(?:paev\w*|tund\w*|aja\w*)|(?:tanase\s+)?paeva\s+lopu(?:ni|ks)|keskoo(?:ni|ks)|"
    r"до\s+конца\s+(?:сегодняшнего\s+)?(?:дня|суток)|до\s+полуночи|остат\w*\s+дня|оставш\w*\s+(?:час\w*|врем\w*))"
    r"(?!\w)"
)
# A clock hour said with the words ("from 22 until midnight", "kella 22st keskööni",
# "после 10 вечера до полуночи"): the window rules read that hour, not now.
_CLOCK_SAID = re.compile(
    r"(?<!\w)(?:at|after|from|since|kell\w*|alates|parast|с|со|от|после)\s+\d{1,2}(?!\d)|"
    r"(?<![\d.])\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|:\d\d)|(?<![\d.])\d{1,2}\s*-?(?:st|ist|sest)\s"
)

_LIMITS = {"hour": 24 * 14, "day": 366, "week": 52}


def _unit(word: str) -> str:
    if re.fullmatch(_HOUR_UNIT, word):
        return "hour"
    if re.fullmatch(_WEEK_UNIT, word):
        return "week"
    return "day"


def _count(word: str | None) -> int | None:
    if word is None:
        return 1
    return number_value(word)


def find_stretches(text: str, today: date, hour: int | None) -> list[Stretch]:
    """Every stretch counted from now in `text`; none when the hour is unknown."""
    if hour is None:
        return []
    folded = fold(text)
    now = datetime.combine(today, time(hour))
    out: list[Stretch] = []

    def add(start: datetime, end: datetime, m: re.Match[str], unit: str) -> None:
        if any(m.start() < s.span_end and s.span_start < m.end() for s in out):
            return
        out.append(Stretch(start, end, m.start(), m.end(), unit))

    for m in _COUNTED.finditer(folded):
        n, unit = _count(m.group(3)), _unit(m.group(4))
        if n is None or not 0 < n <= _LIMITS[unit]:
            continue
        if unit == "hour":
            step = timedelta(hours=n)
            if m.group(2):
                add(now - step, now, m, "hour")  # the whole hours before this one
            else:
                add(now, now + step, m, "hour")  # this hour and the ones after it
            continue
        days = timedelta(days=n * (7 if unit == "week" else 1))
        if m.group(2):
            add(now + timedelta(hours=1) - days, now + timedelta(hours=1), m, "day")
        else:
            add(now, now + days, m, "day")
    for m in _IN_HOURS.finditer(folded):
        said = next((g for g in m.groups() if g is not None), None)
        n = _count(said)
        if n is None or not 0 < n <= _LIMITS["hour"]:
            continue
        start = now + timedelta(hours=n)
        add(start, start + timedelta(hours=1), m, "hour")
    for m in _NEXT_HOUR.finditer(folded):
        add(now + timedelta(hours=1), now + timedelta(hours=2), m, "hour")
    if not _CLOCK_SAID.search(folded):
        for m in _REST_OF_DAY.finditer(folded):
            add(now, datetime.combine(today + timedelta(days=1), time(0)), m, "hour")
    return sorted(out, key=lambda s: s.span_start)
