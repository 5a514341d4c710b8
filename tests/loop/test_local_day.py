"""A citizen's day is 00:00–23:59:59 in their zone, sent to an API in UTC: the UTC/local
boundary on both sides of both DST changes, month and year ends, and the hours such a
window gets from an API whose end is inclusive (the demo electricity prices): 24, or 23
and 25 on the DST days."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devtools.demo_apis.electricity import parse_instant, price_series
from loop_svc.extraction.dates import iso_datetime

TALLINN = ZoneInfo("Europe/Tallinn")


@pytest.mark.parametrize(
    ("day", "start", "end", "hours"),
    [
        (date(2026, 12, 2), "2026-12-01T22:00:00Z", "2026-12-02T21:59:59Z", 24),  # winter, UTC+2
        (date(2026, 7, 1), "2026-06-30T21:00:00Z", "2026-07-01T20:59:59Z", 24),  # summer, UTC+3
        (date(2026, 3, 29), "2026-03-28T22:00:00Z", "2026-03-29T20:59:59Z", 23),  # clocks go forward
        (date(2026, 10, 25), "2026-10-24T21:00:00Z", "2026-10-25T21:59:59Z", 25),  # clocks go back
        (date(2026, 12, 31), "2026-12-30T22:00:00Z", "2026-12-31T21:59:59Z", 24),
    ],
)
def test_a_local_day_in_utc(day: date, start: str, end: str, hours: int) -> None:
    assert iso_datetime(day, None, "start", TALLINN) == start
    assert iso_datetime(day, None, "end", TALLINN) == end
    assert len(price_series(parse_instant(start), parse_instant(end))) == hours


@given(st.dates(date(2024, 1, 1), date(2030, 12, 31)))
@settings(deadline=None)
def test_every_day_covers_exactly_its_local_hours(day: date) -> None:
    start = parse_instant(iso_datetime(day, None, "start", TALLINN))
    end = parse_instant(iso_datetime(day, None, "end", TALLINN))
    series = price_series(start, end)
    local = [datetime.fromisoformat(p["time"].replace("Z", "+00:00")).astimezone(TALLINN) for p in series]  # type: ignore[union-attr]
    assert {moment.date() for moment in local} == {day}
    assert local[0].hour == 0 and local[-1].hour == 23
    midnight = datetime(day.year, day.month, day.day, tzinfo=TALLINN)
    length = (midnight + timedelta(days=1)).astimezone(UTC) - midnight.astimezone(UTC)
    assert len(series) == round(length.total_seconds() / 3600)


def test_without_a_zone_a_day_stays_utc() -> None:
    assert iso_datetime(date(2026, 12, 2), None, "end", None) == "2026-12-02T23:59:59Z"
