"""A question's day filters against the request window read from the same words: filters
that together keep no day of the window were its ends misread (a span "from Monday to
today", a reply's days after a month asked first) and are dropped, so the window's rows are
the answer's; filters that keep some day stay as they are. Property-tested over windows and
filters, and over en/et/ru spans from a weekday to today."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader, _day_holds, fitted_to_window
from services.answer_shape import AnswerShape, DateRange, Hours, Months, RowFilter, Weekdays

ZONE = ZoneInfo("Europe/Tallinn")
NOW = datetime(2027, 11, 4, 10, 0, tzinfo=ZONE)  # a Thursday
TODAY = NOW.date()
WINDOW = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period (ISO 8601)"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period (ISO 8601)"),
]
DAYS = [
    ParamSpec(name="from", type="date", required=True, description="First day (YYYY-MM-DD)"),
    ParamSpec(name="to", type="date", required=True, description="Last day (YYYY-MM-DD)"),
]
EXTRACTOR = RuleExtractor(CountryNames(), today=lambda: TODAY, zone=ZONE, now=lambda: NOW.astimezone(UTC))
SHAPES = RuleShapeReader(lambda: TODAY, lambda: NOW.replace(tzinfo=None))

day_filters = st.one_of(
    st.builds(
        lambda a, n: DateRange(
            date(2027, 10, 1) + timedelta(days=a), date(2027, 10, 1) + timedelta(days=a + n)
        ),
        st.integers(0, 60),
        st.integers(0, 10),
    ),
    st.builds(
        lambda ms: Months(tuple(sorted(set(ms)))), st.lists(st.integers(1, 12), min_size=1, max_size=3)
    ),
    st.builds(
        lambda ds: Weekdays(tuple(sorted(set(ds)))), st.lists(st.integers(1, 7), min_size=1, max_size=3)
    ),
)


@settings(deadline=None)  # a loaded machine: timing is no property of the rule
@given(
    st.integers(0, 60),
    st.integers(0, 9),
    st.lists(st.tuples(day_filters, st.booleans()), min_size=1, max_size=3),
)
def test_what_is_left_keeps_a_day_of_the_window_or_nothing_is_left(
    first: int, length: int, conditions: list[tuple[object, bool]]
) -> None:
    opens = date(2027, 10, 1) + timedelta(days=first)
    closes = opens + timedelta(days=length)
    params = {"from": opens.isoformat(), "to": closes.isoformat()}
    filters = tuple(RowFilter(c, negate) for c, negate in conditions)  # type: ignore[arg-type]
    shape = AnswerShape(filters=(*filters, RowFilter(Hours(8, 12))))
    fitted = fitted_to_window(shape, DAYS, params, ZONE)
    assert RowFilter(Hours(8, 12)) in fitted.filters  # hours are no days
    kept = [f for f in fitted.filters if f in filters]
    window = [opens + timedelta(days=k) for k in range(length + 1)]
    held = any(all(_day_holds(f, d) for f in filters) for d in window)
    if held:
        assert fitted == shape
    else:
        assert not kept or any(all(_day_holds(f, d) for f in kept) for d in window)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "average electricity price from monday until today"),
        ("et", "keskmine elektri hind esmaspäevast tänaseni"),
        ("et", "keskmine hind teisipäevast tänaseni"),
        ("ru", "средняя цена с понедельника по сегодня"),
    ],
)
def test_a_span_from_a_weekday_to_today_is_the_window_not_a_filter(language: str, message: str) -> None:
    params = EXTRACTOR.extract(message, WINDOW, language=language)  # type: ignore[arg-type]
    assert params.get("end") == "2027-11-04T21:59:59Z", params
    shape = fitted_to_window(SHAPES.read(message, language), WINDOW, params, ZONE)  # type: ignore[arg-type]
    window = [date(2027, 11, d) for d in range(1, 5)]
    day = [f for f in shape.filters if isinstance(f.condition, DateRange | Months | Weekdays)]
    assert any(all(_day_holds(f, d) for f in day) for d in window), shape


def test_a_window_of_unbounded_length_is_left_alone() -> None:
    shape = AnswerShape(filters=(RowFilter(Months((2,))),))
    assert fitted_to_window(shape, DAYS, {"from": "0001-01-01", "to": "9999-12-31"}, ZONE) == shape


@pytest.mark.parametrize("weekday", range(7))
@pytest.mark.parametrize(
    ("language", "frame"),
    [
        ("en", "average price from {w} until today"),
        ("en", "prices from {w} to now"),
        ("et", "keskmine hind {w}st tänaseni"),
        ("ru", "средняя цена с {w} по сегодня"),
    ],
)
def test_a_span_from_a_bare_weekday_up_to_today_opens_on_the_last_one(
    weekday: int, language: str, frame: str
) -> None:
    names = {
        "en": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
        "et": ["esmaspäeva", "teisipäeva", "kolmapäeva", "neljapäeva", "reede", "laupäeva", "pühapäeva"],
        "ru": ["понедельника", "вторника", "среды", "четверга", "пятницы", "субботы", "воскресенья"],
    }
    message = frame.format(w=names[language][weekday])
    params = EXTRACTOR.extract(message, WINDOW, language=language)  # type: ignore[arg-type]
    opens = (TODAY - timedelta(days=(TODAY.weekday() - weekday) % 7)).isoformat()
    local = datetime.fromisoformat(params["start"].replace("Z", "+00:00")).astimezone(ZONE)
    assert local.date().isoformat() == opens, (message, params)
    assert params["end"][:10] == "2027-11-04", (message, params)


def test_the_up_to_now_pattern_costs_linear_work() -> None:
    import time

    from loop_svc.extraction.relative import _UP_TO_NOW

    for text in ("to " * 30_000, "до " * 30_000, "a" * 100_000, "kuni " * 20_000):
        started = time.perf_counter()
        for k in range(0, 2_000):
            _UP_TO_NOW.match(text[k * 40 : k * 40 + 40])
        assert time.perf_counter() - started < 2
