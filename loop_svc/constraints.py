"""Limits a parameter's description documents, checked before a call goes out:

- a period at most N days long ("…, at most 7 days after start"): a longer one is not
  sent; the citizen is told the limit and offered the nearest period the API can serve
  (its first N days), which a "yes" accepts;
- a number in a documented range ("(1-100, default 10)"): a value past it is brought to
  the nearest end, and the citizen is told ("at most 100 at a time");
- values that exist only up to a day ("…; published up to tomorrow at the latest"): a
  period wholly after it is not sent — the citizen is told how far the values go and
  offered that last day (which a "yes" accepts); a period that runs past it is cut there,
  and the citizen is told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from loop_svc.schema import Concept, ParamSpec, date_pairs

_MAX_DAYS = re.compile(
    r"\bat\s+most\s+(\d+)\s+days?\b|\bmax(?:imum)?\.?\s+(\d+)\s+days?\b|\b(\d+)\s+days?\s+at\s+most\b", re.I
)


# "up to tomorrow at the latest", "no later than today", "at the latest tomorrow": the
# last day (from today) the values exist for.
_LATEST_DAY = re.compile(
    r"\bup\s+to\s+(today|tomorrow)\s+at\s+the\s+latest\b|\bno\s+later\s+than\s+(today|tomorrow)\b"
    r"|\bat\s+the\s+latest\s+(today|tomorrow)\b",
    re.I,
)


@dataclass(frozen=True)
class Beyond:
    """A period that runs past the last day the values exist for (`last_day`, `ahead`
    days after today). `wholly`: none of it exists yet, `offer` is the last day; otherwise
    `offer` is the period cut at the end of that day."""

    last_day: date
    ahead: int
    wholly: bool
    offer: dict[str, str]
    first: date


@dataclass(frozen=True)
class TooLong:
    """A period longer than the API serves, and the nearest one it does."""

    limit_days: int
    offer: dict[str, str]
    first: date
    last: date


@dataclass(frozen=True)
class Clamped:
    param: ParamSpec
    given: str
    used: str
    low: int
    high: int


def max_days(params: list[ParamSpec]) -> int | None:
    for param in params:
        m = _MAX_DAYS.search(param.description)
        if m:
            return int(next(g for g in m.groups() if g))
    return None


def _parse(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def latest_day(params: list[ParamSpec]) -> int | None:
    """Days after today the values last exist for, as a description documents it."""
    for param in params:
        m = _LATEST_DAY.search(param.description)
        if m:
            return 0 if next(g for g in m.groups() if g).lower() == "today" else 1
    return None


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def beyond_horizon(params: list[ParamSpec], values: dict[str, str], now: datetime) -> Beyond | None:
    """The period in `values` against the last day its values exist for; `now` is the
    citizen's aware local time (days are the citizen's)."""
    zone = now.tzinfo
    assert zone is not None
    today = now.date()
    for start, end in date_pairs(params):
        ahead = latest_day([start, end])
        if ahead is None or start.name not in values or end.name not in values:
            continue
        last_day = today + timedelta(days=ahead)
        if start.concept is Concept.DATETIME:
            opens, closes = _parse(values[start.name]), _parse(values[end.name])
            if opens is None or closes is None:
                continue
            first, last = _local_day(opens, zone), _local_day(closes, zone)
            day_opens = datetime.combine(last_day, time(0), zone)
            day_closes = datetime.combine(last_day, time(23, 59, 59), zone)
            if first > last_day:
                # The same hours of the last day when one day was asked, else all of it.
                if first == last:
                    local_open, local_close = opens.astimezone(zone), closes.astimezone(zone)
                    day_opens = datetime.combine(last_day, local_open.time(), zone)
                    day_closes = datetime.combine(last_day, local_close.time(), zone)
                offer = {start.name: _utc(day_opens), end.name: _utc(day_closes)}
                return Beyond(last_day, ahead, True, offer, first)
            if last > last_day:
                return Beyond(
                    last_day,
                    ahead,
                    False,
                    {start.name: values[start.name], end.name: _utc(day_closes)},
                    first,
                )
            continue
        try:
            first, last = (
                date.fromisoformat(values[start.name][:10]),
                date.fromisoformat(values[end.name][:10]),
            )
        except ValueError:
            continue
        if first > last_day:
            return Beyond(
                last_day,
                ahead,
                True,
                {start.name: last_day.isoformat(), end.name: last_day.isoformat()},
                first,
            )
        if last > last_day:
            return Beyond(
                last_day,
                ahead,
                False,
                {start.name: values[start.name], end.name: last_day.isoformat()},
                first,
            )
    return None


def _local_day(moment: datetime, zone: tzinfo) -> date:
    return moment.astimezone(zone).date()


def too_long(params: list[ParamSpec], values: dict[str, str]) -> TooLong | None:
    for start, end in date_pairs(params):
        limit = max_days([start, end])
        if limit is None or start.name not in values or end.name not in values:
            continue
        opens, closes = _parse(values[start.name]), _parse(values[end.name])
        if opens is None or closes is None or closes - opens <= timedelta(days=limit):
            continue
        if start.concept is Concept.DATETIME:
            last = opens + timedelta(days=limit) - timedelta(seconds=1)
            offer = {start.name: values[start.name], end.name: last.strftime("%Y-%m-%dT%H:%M:%SZ")}
            # Shown as the citizen's days: the window opens at local midnight.
            first_day, last_day = (opens + timedelta(hours=12)).date(), (last - timedelta(hours=12)).date()
        else:
            last = opens + timedelta(days=limit - 1)
            offer = {start.name: values[start.name], end.name: last.date().isoformat()}
            first_day, last_day = opens.date(), last.date()
        return TooLong(limit, offer, first_day, last_day)
    return None


def clamp(params: list[ParamSpec], values: dict[str, str]) -> list[Clamped]:
    found = []
    for param in params:
        bounds = param.bounds
        raw = values.get(param.name)
        if bounds is None or raw is None or param.concept is not Concept.INTEGER:
            continue
        if not raw.lstrip("-").isdigit():
            continue
        low, high = bounds
        number = int(raw)
        if number > high or number < low:
            used = str(min(max(number, low), high))
            found.append(Clamped(param, raw, used, low, high))
    return found


# How far back a bare weekday or month read again as the last one may go (`reads_back`):
# further back, the citizen more likely misnamed a day ahead, which is explained instead.
READ_BACK_DAYS = 183


def period_days(params: list[ParamSpec], values: dict[str, str], zone: tzinfo) -> tuple[date, date] | None:
    """The first and last local day of the period in `values`."""
    for start, end in date_pairs(params):
        if start.name not in values or end.name not in values:
            continue
        opens, closes = _parse(values[start.name]), _parse(values[end.name])
        if opens is None or closes is None:
            continue
        if opens.tzinfo is not None:
            return opens.astimezone(zone).date(), closes.astimezone(zone).date()
        return opens.date(), closes.date()
    return None


def reads_back(params: list[ParamSpec], values: dict[str, str], now: datetime) -> bool:
    """Whether values read again as about the past are served: within the last day values
    exist for, and no further back than READ_BACK_DAYS."""
    assert now.tzinfo is not None
    days = period_days(params, values, now.tzinfo)
    if days is None or beyond_horizon(params, values, now) is not None:
        return False
    return (now.date() - days[0]).days <= READ_BACK_DAYS
