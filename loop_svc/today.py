""" "Today" in the configured time zone: relative dates ("tomorrow", "next month")
resolve against the citizen's calendar day, not the server's UTC date."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from zoneinfo import ZoneInfo


def local_today(time_zone: str) -> Callable[[], date]:
    zone = ZoneInfo(time_zone)
    return lambda: datetime.now(zone).date()
