"""Limits a parameter's description documents, checked before a call goes out:

- a period at most N days long ("…, at most 7 days after start"): a longer one is not
  sent; the citizen is told the limit and offered the nearest period the API can serve
  (its first N days), which a "yes" accepts;
- a number in a documented range ("(1-100, default 10)"): a value past it is brought to
  the nearest end, and the citizen is told ("at most 100 at a time").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from loop_svc.schema import Concept, ParamSpec, date_pairs

_MAX_DAYS = re.compile(
    r"\bat\s+most\s+(\d+)\s+days?\b|\bmax(?:imum)?\.?\s+(\d+)\s+days?\b|\b(\d+)\s+days?\s+at\s+most\b", re.I
)


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
