"""Days said relative to the period already asked about (en/et/ru), for a follow-up
that names no date of its own:

- a shift: "the day before", "the previous day", "a day earlier", "2 days later",
  "the next day", "a week before", "päev varem", "eelmisel päeval", "järgmisel päeval",
  "nädal hiljem", "днём раньше", "накануне", "на следующий день", "неделей позже";
- the whole day: "that day", "the whole day", "sel päeval", "terve päeva", "за тот
  день", "весь день" — the asked period's days from 00:00 to 23:59:59.

Matched on folded text; counts are digits or number words (loop_svc.extraction.numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loop_svc.extraction.numbers import NUMBER_WORD, number_value
from loop_svc.extraction.text import fold


@dataclass(frozen=True)
class Shift:
    days: int  # 0: the same days, whole
    whole_day: bool = False
    start: int = 0
    end: int = 0
    # Whole years on (negative: back): "a year later", "через год", "aasta pärast".
    years: int = 0


_N = rf"(\d{{1,2}}|{NUMBER_WORD}|an?)"
_BACK = r"(?:before(?!\s+(?:yesterday|tomorrow|that\s+one))|earlier|prior|varem|enne|раньше|ранее)"
_ON = r"(?:after(?!\s+tomorrow)|later|hiljem|parast|позже|позднее|спустя)"
_UNIT = r"(day|days|week|weeks|paev\w*|nadal\w*|день|дня|дней|дн[её]м|недел\w*)"
_COUNTED = re.compile(rf"(?<!\w)(?:{_N}\s+)?{_UNIT}\s+(?:(?P<back>{_BACK})|(?P<on>{_ON}))(?!\w)")
_BEFORE = re.compile(
    r"(?<!\w)(?:(?:the\s+)?previous\s+day|(?:the\s+)?day\s+prior|eelmi\w*\s+paev\w*|eelneva\w*\s+paev\w*|"
    r"накануне|предыдущ\w*\s+день|за\s+день\s+до)(?!\w)"
)
_AFTER = re.compile(
    r"(?<!\w)(?:(?:the\s+)?(?:next|following)\s+day|jargmi\w*\s+paev\w*|"
    r"(?:на\s+)?следующ\w*\s+(?:день|дня))(?!\w)"
)
_WHOLE = re.compile(
    r"(?<!\w)(?:that\s+(?:whole\s+|entire\s+|same\s+)?day|(?:the\s+)?(?:whole|entire|full)\s+day|"
    r"(?:sel|selle|sama)\s+paeva?\w*|(?:terve|kogu)\s+paeva?\w*|"
    r"(?:за|в|на)?\s*(?:тот|этот)\s+(?:же\s+)?день|весь\s+день|целый\s+день|за\s+весь\s+день)(?!\w)"
)


_YEAR_UNIT = r"(?:years?|aasta\w*|год\w*|года|лет)"
_YEARS_ON = re.compile(
    rf"(?<!\w)(?:(?:{_N}\s+)?{_YEAR_UNIT}\s+(?P<on>later|after|on|hiljem|parast|позже|спустя)"
    rf"|(?:{_N}\s+)?{_YEAR_UNIT}\s+(?P<back>earlier|before|varem|enne|раньше|назад)"
    rf"|(?P<through>через)\s+(?:{_N}\s+)?{_YEAR_UNIT}"
    r"|the\s+(?:year|one)\s+after|the\s+following\s+year)(?!\w)"
)


def _years_shift(folded: str) -> Shift | None:
    m = _YEARS_ON.search(folded)
    if m is None:
        return None
    said = m.group(1) or m.group(3) or m.group(6)
    n = 1 if said is None or said in ("a", "an") else number_value(said)
    if n is None or not 0 < n <= 10:
        return None
    return Shift(0, start=m.start(), end=m.end(), years=-n if m.group("back") else n)


def _size(unit: str) -> int:
    return 7 if re.match(r"week|nadal|недел", unit) else 1


def find_shift(text: str) -> Shift | None:
    folded = fold(text)
    years = _years_shift(folded)
    if years is not None:
        return years
    m = _COUNTED.search(folded)
    if m is not None:
        said = m.group(1)
        n = 1 if said is None or said in ("a", "an") else number_value(said)
        if n is not None and 0 < n <= 31:
            days = n * _size(m.group(2))
            return Shift(-days if m.group("back") else days, start=m.start(), end=m.end())
    for pattern, days in ((_BEFORE, -1), (_AFTER, 1), (_WHOLE, 0)):
        found = pattern.search(folded)
        if found is not None:
            return Shift(days, whole_day=days == 0, start=found.start(), end=found.end())
    return None
