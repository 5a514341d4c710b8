"""A follow-up comparing its one period with the last answer's ("so how much cheaper is
today" after yesterday's average; en/et/ru, cheaper or dearer, with or without "how much"):
its shape compares the two periods' means; a comparison with "than", a second period of its
own, the same period or no comparative at all is left to the other readings."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from loop_svc.shapes import RuleShapeReader, compared_with_last
from services.answer_shape import DateRange, Kind, Op

TODAY = date(2027, 11, 4)
SHAPES = RuleShapeReader(lambda: TODAY, lambda: datetime(2027, 11, 4, 10))
YESTERDAY = DateRange(date(2027, 11, 3), date(2027, 11, 3))
LOWER = {
    "en": ["so how much cheaper is today", "is today cheaper?", "and today, is it cheaper"],
    "et": ["kui palju täna odavam on", "kas täna on odavam?"],
    "ru": ["а насколько сегодня дешевле?", "сегодня дешевле?"],
}
HIGHER = {
    "en": ["how much more expensive is today", "is it dearer today?"],
    "et": ["kas täna on kallim?", "palju täna kallim on"],
    "ru": ["а сегодня дороже?", "насколько сегодня дороже"],
}


@pytest.mark.parametrize(
    ("lang", "message", "op"),
    [(lang, m, Op.LT) for lang, ms in LOWER.items() for m in ms]
    + [(lang, m, Op.GT) for lang, ms in HIGHER.items() for m in ms],
)
def test_its_period_is_compared_with_the_last_answers(lang: str, message: str, op: Op) -> None:
    shape = compared_with_last(SHAPES.read(message, lang), YESTERDAY)  # type: ignore[arg-type]
    assert shape is not None, message
    assert shape.kind is Kind.YES_NO and shape.period_comparison is not None
    assert shape.period_comparison.subject == DateRange(TODAY, TODAY)
    assert shape.period_comparison.reference == YESTERDAY and shape.period_comparison.op is op


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "is tomorrow cheaper than today"),
        ("en", "prices yesterday"),
        ("et", "kas eile oli odavam?"),
        ("ru", "сколько стоит сегодня"),
        ("en", "cheapest hour today"),
    ],
)
def test_other_follow_ups_are_left_to_the_other_readings(lang: str, message: str) -> None:
    assert compared_with_last(SHAPES.read(message, lang), YESTERDAY) is None, message  # type: ignore[arg-type]
