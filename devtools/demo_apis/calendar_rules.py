"""Date arithmetic the holiday rules share: Easter and weekday anchors."""

from __future__ import annotations

from datetime import date, timedelta


def easter_sunday(year: int) -> date:
    """Gregorian Easter Sunday (anonymous Gregorian algorithm, a.k.a. Meeus/Jones/Butcher)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    leap = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * leap) // 451
    month, day = divmod(h + leap - 7 * m + 114, 31)
    return date(year, month, day + 1)


def weekday_on_or_after(start: date, weekday: int) -> date:
    """First day on or after `start` that falls on `weekday` (Monday=0)."""
    return start + timedelta(days=(weekday - start.weekday()) % 7)


def monday_of_iso_week(year: int, week: int) -> date:
    return date.fromisocalendar(year, week, 1)
