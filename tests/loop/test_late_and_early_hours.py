"""A bare number after "after/from" is a clock hour when the message says it is late or
early ("а если уже поздно, после 22?", "or later, after 21", "hiljem, pärast 22"): in a
follow-up that keeps the day already asked, in en/et/ru, for every evening hour."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Hours

ZONE = ZoneInfo("Europe/Tallinn")
NOW = datetime(2027, 3, 9, 10, 0, tzinfo=ZONE)
PERIOD = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period in ISO 8601"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
]
EXTRACTOR = RuleExtractor(CountryNames(), zone=ZONE, now=lambda: NOW.astimezone(UTC))
SHAPES = RuleShapeReader(lambda: date(2027, 3, 9), lambda: NOW.replace(tzinfo=None))
KNOWN = {"start": "2027-03-09T11:00:00Z", "end": "2027-03-09T15:59:59Z"}
FRAMES = {
    "en": ["and later, after {h}?", "what if it is late, after {h}"],
    "et": ["aga hiljem, pärast {h}?", "ja kui hilja, alates {h}"],
    "ru": ["а если уже поздно, после {h}?", "а попозже, после {h}?"],
}


@pytest.mark.parametrize("hour", range(13, 24))
@pytest.mark.parametrize(("lang", "frame"), [(lang, f) for lang, fs in FRAMES.items() for f in fs])
def test_after_an_hour_said_late_is_that_hour_to_midnight(lang: str, frame: str, hour: int) -> None:
    message = frame.format(h=hour)
    values = EXTRACTOR.extract(message, PERIOD, language=lang, known=KNOWN)  # type: ignore[arg-type]
    opens = datetime.fromisoformat(values["start"].replace("Z", "+00:00")).astimezone(ZONE)
    assert (opens.date(), opens.hour) == (date(2027, 3, 9), hour), (message, values)
    assert RowFilter_hours(SHAPES.read(message, lang)) == Hours(hour, 24), message  # type: ignore[arg-type]


def RowFilter_hours(shape: object) -> Hours | None:
    for f in shape.filters:  # type: ignore[attr-defined]
        if isinstance(f.condition, Hours):
            return f.condition
    return None
