"""Times of day a citizen names for a window inside a day, in local time (en/et/ru):
"tonight", "this evening", "õhtul", "вечером" (18:00–23:59); "in the morning",
"hommikul", "утром" (06:00–11:59); "afternoon", "pärastlõunal", "днём" (12:00–17:59);
"at night", "öösel", "ночью" (00:00–05:59). Hours said explicitly win over those:
- ranges "from 18 to 22", "18-22", "5pm to 8pm", "5 to 8pm", "kella 18-22", "kella 17st
  20ni", "с 18 до 22", "18:00–22:00", "22st keskööni", "between midnight and 6" (the last
  hour named is in the window, as a row of hourly prices is named by the hour it starts:
  18–22 is 18:00–22:59:59, the five hours 18 to 22; an end said as a moment is not: the
  minutes of "until 21:30", noon, midnight); a range whose end hour comes before its start
  ("between 22 and 6") closes on the next day;
- an hour on ("after 6pm", "alates kella 18", "kella 18st"): until the day's end;
- single hours ("at 18", "at 8pm", "kell 18", "в 18 часов"): that hour, or the hours from
  the first to the last named ("cheaper at 3am or at 3pm").

The day itself comes from the date rules ("tomorrow morning" = tomorrow, 06:00–11:59);
without one a window is today's (or the day already asked, for a follow-up). The answer
shape reads its hour ranges here too (`hour_ranges`), so what is fetched is what is shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import time

from loop_svc.extraction.text import TakenSpans, fold


@dataclass(frozen=True)
class Window:
    opens: time
    closes: time
    start: int
    end: int
    # "between 22 and 6", "с 23 до 7": the window closes on the day after it opens.
    overnight: bool = False


_PARTS: list[tuple[re.Pattern[str], time, time]] = [
    (
        re.compile(
            r"\b(?:tonight|this\s+evening|in\s+the\s+evening|evening|ohtul|tana\s+ohtul|ohtu\w*|вечер\w*)\b"
        ),
        time(18, 0),
        time(23, 59, 59),
    ),
    (
        re.compile(r"\b(?:(?:in\s+the\s+|this\s+|tomorrow\s+)?morning|hommikul|hommiku\w*|утр\w*|утром)\b"),
        time(6, 0),
        time(11, 59, 59),
    ),
    (
        re.compile(
            r"\b(?:(?:in\s+the\s+|this\s+)?afternoon|parastlounal|parastlouna\w*|днем|днём|после\s+обеда)\b"
        ),
        time(12, 0),
        time(17, 59, 59),
    ),
    (
        re.compile(r"\b(?:at\s+night|overnight|oosel|ooseks|ночью|на\s+ночь|ночн\w*)\b"),
        time(0, 0),
        time(5, 59, 59),
    ),
]


# One clock reading: "17", "5pm", "17:30", "17.00", "5 p.m.".
def _clock(name: str, separators: str = ":.") -> str:
    return (
        rf"(?P<{name}>[01]?\d|2[0-4])(?:[{separators}](?P<{name}m>[0-5]\d))?"
        rf"(?:\s*(?P<{name}p>[ap])\.?\s?m\b\.?)?"
    )


# Hours said by name: midnight opens or closes a day, noon is 12.
# Estonian has two words for midnight ("kesköö", "südaöö"), folded without diacritics.
MIDNIGHT_WORDS = r"midnight|keskoo\w*|sudaoo\w*|полноч\w*|полуноч\w*"
_MIDNIGHT_WORDS = MIDNIGHT_WORDS
_NOON_WORDS = r"noon|midday|keskpaev\w*|полдень|полудня"
_MIDNIGHT = rf"(?P<mid>{_MIDNIGHT_WORDS})|(?P<bnoon>{_NOON_WORDS})"
_NAMED_START = rf"(?P<amid>{_MIDNIGHT_WORDS})|(?P<anoon>{_NOON_WORDS})"
_HOURS = re.compile(
    r"(?:\b(?P<frame>from|between|kella|kl\.?|alates|с|со|от)\s*)?(?:(?<![\d.:/-])"
    + _clock("a")
    + r"|"
    + _NAMED_START
    + r")"
    # The Estonian elative and terminative on the numbers: "kella 17st 20ni", "17-st 20-ni".
    + r"(?P<ast>-?st\b)?"
    r"(?:\s*(?P<sep>-|–|—|\bto\b|\buntil\b|\btill\b|\band\b|\bja\b|\bkuni\b|\bдо\b|\bпо\b)\s*|\s+)"
    r"(?:(?<![\d.:/])" + _clock("b") + r"(?P<bni>-?ni\b)?(?![\d.:/]|-\d)|" + _MIDNIGHT + r")"
    r"(?:\s*(?:o'?clock|h\b|tundi|часов|часа|ч\b))?",
    re.I,
)
# A single clock hour: "at 18", "at 8pm", "kell 18", "в 18 часов", "8pm", "18:00", "6 o'clock"
# (never a bare "3 часа", which counts hours: "в ближайшие 3 часа").
_AT = re.compile(
    r"(?:\b(?P<at>at|kell|kl\.?|в|во)\s+)?(?<![\d.:/-])" + _clock("h", ":") + r"(?![\d.:/]|-\d|-?st\b|-?ni\b)"
    r"(?P<unit>\s*o'?clock)?",
    re.I,
)
# From an hour on, to the end of the day: "after 6pm", "from 18:00", "alates kella 18", "kella 18st".
_FROM = re.compile(
    r"\b(?P<word>after|from|since|alates|parast|после|с|со|от)\s+(?:kella\s+|kell\s+)?(?<![\d.:/-])"
    + _clock("h")
    + r"(?![\d.:/]|-\d)|\bkella\s+"
    + _clock("e")
    + r"-?st\b",
    re.I,
)
# "18:00 to 21:00 inclusive", "с 18 до 21 включительно", "kella 18-21 kaasa arvatud": the last
# hour named is in the window.
_INCLUSIVE = re.compile(r"\b(?:inclusive\w*|included|включительно|kaasa\s+arvatud|kaasaarvatud)\b", re.I)
# Before noon unless said so: a clock hour below 12 with an evening word is in the afternoon
# ("at 9 in the evening", "kell 9 õhtul").
_LATER_PART = re.compile(
    r"\b(?:evening|tonight|afternoon|ohtu\w*|ohtul|parastlouna\w*|вечер\w*|после\s+обеда)\b"
)
# A number range is an hour range only when the message speaks of time: a clock word, a
# time of day, or "kella"/"с … до" with small numbers.
# Words that say a number is a clock hour; "late"/"early" too ("а если уже поздно, после
# 22?", "or later, after 21", "hiljem, pärast 22").
_CLOCK_CONTEXT = re.compile(
    r"\b(?:kell\w*|kl|o'?clock|hours?|tund\w*|час\w*|ч|tonight|evening|morning|afternoon|night|"
    r"ohtul|hommikul|oosel|вечер\w*|утр\w*|ночь\w*|today|tomorrow|tana|homme|сегодня|завтра|"
    r"late|later|early|earlier|hilja|hiljem|vara|varem|поздн\w*|позже|попозже|рано|пораньше)\b",
    re.I,
)


def _hour(value: str, meridiem: str | None) -> int:
    hour = int(value)
    if meridiem == "p" and hour < 12:
        return hour + 12
    if meridiem == "a" and hour == 12:
        return 0
    return hour


def _closing(hour: int, minutes: int, inclusive: bool, *, moment: bool = False) -> time:
    """The last second of a window ending at `hour`:`minutes`. A whole hour named as the
    end is in the window: hourly rows are named by the hour they start ("18-22" lists the
    22:00 price too). A moment is not: the minutes of "until 21:30", noon, midnight."""
    if inclusive and hour < 24:
        return time(hour, 59, 59)
    if minutes:
        return time(hour, minutes - 1, 59)
    if hour in (0, 24):
        return time(23, 59, 59)  # "18–24", "22 to 0", "keskööni": until midnight
    if moment:
        return time(hour - 1, 59, 59)  # "from 9 to noon"
    return time(hour, 59, 59)


def _range(m: re.Match[str], folded: str, context: bool) -> Window | None:
    """An hour range, or None when the numbers are not clock hours (`context`: the message
    speaks of time, so a bare "17-20" is hours)."""
    framed = bool(
        m.group("frame")
        or m.group("ast")
        or m.group("bni")
        or m.group("mid")
        or m.group("bnoon")
        or m.group("amid")
        or m.group("anoon")
    )
    if not m.group("sep") and not (m.group("ast") and (m.group("bni") or m.group("mid") or m.group("bnoon"))):
        return None  # "17 20" is two numbers; "17st 20ni" is a range
    meridiem_a, meridiem_b = m.group("ap"), m.group("bp")
    named_start = 0 if m.group("amid") else 12 if m.group("anoon") else None
    if named_start is not None:
        if not m.group("sep") or m.group("mid") or m.group("bnoon"):
            return None  # "between midnight and 6 (in the morning)", "from noon to 3pm"
        first = named_start
        last, last_minutes = _hour(m.group("b"), meridiem_b), int(m.group("bm") or 0)
        meridiem_a = None
    elif m.group("mid") or m.group("bnoon"):
        first, last_minutes = _hour(m.group("a"), meridiem_a), 0
        last = 24 if m.group("mid") else 12
    else:
        first, last = _hour(m.group("a"), meridiem_a), _hour(m.group("b"), meridiem_b)
        last_minutes = int(m.group("bm") or 0)
        # "5 to 8pm": the first hour shares the second's afternoon; "11 to 2pm" does not.
        if meridiem_b == "p" and meridiem_a is None and first < 12 and first + 12 <= last:
            first += 12
        elif meridiem_a == "p" and meridiem_b is None and last < 12 and last + 12 > first:
            last += 12
    clocked = bool(meridiem_a or meridiem_b or m.group("am") or m.group("bm") or named_start is not None)
    if first > 23 or last > 24 or last == first:
        return None
    if not (framed or clocked or context):
        return None
    if not (clocked or m.group("bnoon")) and first < last <= 12 and _LATER_PART.search(folded):
        first, last = first + 12, last + 12  # "this evening from 6 to 9": the evening's hours
    # An end hour before the start one is on the next day: "from 22 to 6" is the night.
    overnight = 0 < last < first
    opens = time(first, int(m.group("am") or 0))
    closes = _closing(last, last_minutes, bool(_INCLUSIVE.search(folded)), moment=bool(m.group("bnoon")))
    return Window(opens, closes, m.start(), m.end(), overnight)


def hour_ranges(folded: str, *, clock_context: bool | None = None) -> Iterator[Window]:
    """Every hour range of a folded text ("18-22", "5pm to 8pm", "kella 17st 20ni", "с 17 до
    20", "22st keskööni"), in order. `clock_context` says whether the text speaks of time
    (a bare "17-20" is hours then); by default its clock and day words decide."""
    context = bool(_CLOCK_CONTEXT.search(folded)) if clock_context is None else clock_context
    for m in _HOURS.finditer(folded):
        window = _range(m, folded, context)
        if window is not None:
            yield window


def _hours_at(folded: str, free: Callable[[int, int], bool]) -> Window | None:
    """The clock hours named one by one ("at 8pm", "kell 18", "в 18 часов"): the hours from
    the first to the last of them ("cheaper at 3am or at 3pm" covers both)."""
    hours: list[tuple[int, int, int]] = []
    matches = [m for m in _AT.finditer(folded) if free(m.start(), m.end())]
    # "at 9 in the evening" is 21:00, but "at 8pm than this morning at 8" says which is which.
    later = _LATER_PART.search(folded) is not None and not any(m.group("hp") for m in matches)
    for m in matches:
        if not (m.group("at") or m.group("hp") or m.group("hm") or m.group("unit")):
            continue  # a bare number is no hour
        hour = _hour(m.group("h"), m.group("hp"))
        if hour > 23:
            continue
        if hour < 12 and later:
            hour += 12  # "at 9 in the evening", "kell 9 õhtul", "в 9 вечера"
        hours.append((hour, m.start(), m.end()))
    if not hours:
        return None
    low, high = min(h for h, _, _ in hours), max(h for h, _, _ in hours)
    return Window(time(low, 0), time(high, 59, 59), hours[0][1], hours[-1][2])


def hours_from(folded: str, free: Callable[[int, int], bool] = lambda start, end: True) -> Window | None:
    """From an hour to the end of its day ("after 6pm", "alates kella 18", "kella 18st")."""
    # Whether the text speaks of time is read once: per candidate it made the work quadratic.
    context = bool(_CLOCK_CONTEXT.search(folded))
    for m in _FROM.finditer(folded):
        if not free(m.start(), m.end()):
            continue
        value, meridiem = (m.group("h"), m.group("hp")) if m.group("h") else (m.group("e"), m.group("ep"))
        minutes = m.group("hm") if m.group("h") else m.group("em")
        if not (meridiem or minutes or m.group("e") or context):
            continue
        hour = _hour(value, meridiem)
        if hour > 23:
            continue
        return Window(time(hour, 0), time(23, 59, 59), m.start(), m.end())
    return None


def find_window(text: str, taken: list[tuple[int, int]]) -> Window | None:
    """The first time-of-day window; an hour range (outside `taken`, the dates already
    read) wins over a part of the day ("tonight from 18 to 22" is 18:00–22:59), which may
    share its words with a date ("tonight" is today too)."""
    folded = fold(text)
    free = TakenSpans(taken).free

    for window in hour_ranges(folded):
        if free(window.start, window.end):
            return window
    for reader in (hours_from, _hours_at):
        if (read := reader(folded, free)) is not None:
            return read
    for pattern, opens, closes in _PARTS:
        for m in pattern.finditer(folded):
            return Window(opens, closes, m.start(), m.end())
    return None
