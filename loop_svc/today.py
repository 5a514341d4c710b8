""" "Today" in the configured time zone: relative dates ("tomorrow", "next month")
resolve against the citizen's calendar day, not the server's UTC date."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo


def _utc_now() -> datetime:
    return datetime.now(UTC)


def local_today(time_zone: str, now: Callable[[], datetime] = _utc_now) -> Callable[[], date]:
    zone = ZoneInfo(time_zone)
    return lambda: now().astimezone(zone).date()


def local_now(time_zone: str, now: Callable[[], datetime] = _utc_now) -> Callable[[], datetime]:
    """The citizen's wall time, naive ("right now" is this local hour)."""
    zone = ZoneInfo(time_zone)
    return lambda: now().astimezone(zone).replace(tzinfo=None)
