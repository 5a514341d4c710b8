"""Times of day a citizen names for a window inside a day, in local time (en/et/ru):
"tonight", "this evening", "õhtul", "вечером" (18:00–23:59); "in the morning",
"hommikul", "утром" (06:00–11:59); "afternoon", "pärastlõunal", "днём" (12:00–17:59);
"at night", "öösel", "ночью" (00:00–05:59); and hour ranges "from 18 to 22", "18-22",
"kella 18-22", "с 18 до 22", "18:00–22:00" (the last hour named is where the window
ends: 18–22 is 18:00–21:59:59, the four hours 18, 19, 20 and 21); a range whose end
hour comes before its start ("between 22 and 6") closes on the next day.

The day itself comes from the date rules ("tomorrow morning" = tomorrow, 06:00–11:59);
without one a window is today's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import time

from loop_svc.extraction.text import fold


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
_HOURS = re.compile(
    r"(?:\b(?:from|between|kella|kl\.?|alates|с|со|от)\s*)?(?<![\d.:/-])(?P<a>[01]?\d|2[0-3])(?::(?P<am>[0-5]\d))?"
    r"\s*(?:-|–|—|to|until|till|and|kuni|до|по)\s*(?P<b>[01]?\d|2[0-4])(?::(?P<bm>[0-5]\d))?"
    r"(?![\d.:/-])(?:\s*(?:o'?clock|h\b|tundi|часов|ч\b))?",
    re.I,
)
# A number range is an hour range only when the message speaks of time: a clock word, a
# time of day, or "kella"/"с … до" with small numbers.
_CLOCK_CONTEXT = re.compile(
    r"\b(?:kell\w*|kl|o'?clock|hours?|tund\w*|час\w*|ч|tonight|evening|morning|afternoon|night|"
    r"ohtul|hommikul|oosel|вечер\w*|утр\w*|ночь\w*|today|tomorrow|tana|homme|сегодня|завтра)\b",
    re.I,
)


def find_window(text: str, taken: list[tuple[int, int]]) -> Window | None:
    """The first time-of-day window; an hour range (outside `taken`, the dates already
    read) wins over a part of the day ("tonight from 18 to 22" is 18:00–21:59), which may
    share its words with a date ("tonight" is today too)."""
    folded = fold(text)

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for m in _HOURS.finditer(folded):
        if not free(m.start(), m.end()):
            continue
        first, last = int(m.group("a")), int(m.group("b"))
        if last == first or not (_CLOCK_CONTEXT.search(folded) or m.group("am") or m.group("bm")):
            continue
        # An end hour before the start one is on the next day: "from 22 to 6" is the night.
        overnight = 0 < last < first
        opens = time(first, int(m.group("am") or 0))
        if m.group("bm") and int(m.group("bm")):
            closes = time(last, int(m.group("bm")) - 1, 59)
        elif last in (0, 24):
            closes = time(23, 59, 59)  # "18–24", "22 to 0": until midnight
        else:
            closes = time(last - 1, 59, 59)
        return Window(opens, closes, m.start(), m.end(), overnight)
    for pattern, opens, closes in _PARTS:
        for m in pattern.finditer(folded):
            return Window(opens, closes, m.start(), m.end())
    return None
