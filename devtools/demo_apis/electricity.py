"""Nord Pool day-ahead-like hourly prices for the Estonian bidding zone.

Prices are pseudo-random but deterministic (SHA-256 of the hour) around a
realistic daily shape: cheap nights, a morning ramp, a midday dip and an
evening peak; windy/calm days scale the whole day, weekends are cheaper.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

MAX_SPAN = timedelta(days=7)

# EUR/MWh by hour of day in Estonian local time (UTC+2 / +3 ignored: a demo).
# fmt: off
_DAILY_SHAPE = [
    42, 38, 35, 34, 36, 45, 68, 98, 112, 104, 92, 84,
    78, 76, 80, 90, 108, 134, 152, 146, 124, 98, 74, 55,
]
# fmt: on


def _unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def hourly_price(hour_start: datetime) -> float:
    day = hour_start.date()
    day_factor = 0.55 + 1.05 * _unit("day", day.isoformat())
    if day.weekday() >= 5:
        day_factor *= 0.82
    noise = 0.85 + 0.3 * _unit("hour", hour_start.isoformat())
    return round(_DAILY_SHAPE[hour_start.hour] * day_factor * noise, 2)


def parse_instant(raw: str) -> datetime:
    """ISO 8601 with 'Z' or an offset; a naive value is taken as UTC."""
    # An unencoded '+' in a query string arrives as a space: '...T00:00:00 02:00'.
    text = re.sub(r" (\d{2}:?\d{2})$", r"+\1", raw.strip())
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def price_series(start: datetime, end: datetime) -> list[dict[str, object]]:
    """One entry per hour whose start lies in [start, end]."""
    hour = start.replace(minute=0, second=0, microsecond=0)
    if hour < start:
        hour += timedelta(hours=1)
    series: list[dict[str, object]] = []
    while hour <= end:
        series.append(
            {
                "timestamp": int(hour.timestamp()),
                "time": hour.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "price": hourly_price(hour),
            }
        )
        hour += timedelta(hours=1)
    return series


def price_report(start: datetime, end: datetime) -> dict[str, object]:
    """Elering's `{success, data: {ee: [...]}}` shape plus the day's key figures."""
    series = price_series(start, end)
    prices = [float(p["price"]) for p in series]  # type: ignore[arg-type]
    report: dict[str, object] = {"success": True, "region": "EE", "unit": "EUR/MWh"}
    if series:
        cheapest = min(series, key=lambda p: float(p["price"]))  # type: ignore[arg-type]
        dearest = max(series, key=lambda p: float(p["price"]))  # type: ignore[arg-type]
        report.update(
            {
                "averagePrice": round(sum(prices) / len(prices), 2),
                "minPrice": cheapest["price"],
                "minPriceTime": cheapest["time"],
                "maxPrice": dearest["price"],
                "maxPriceTime": dearest["time"],
            }
        )
    report["data"] = {"ee": series}
    return report
