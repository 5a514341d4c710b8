"""Hours of a day said explicitly, in en/et/ru: ranges ("17-20", "5pm to 8pm", "kella 17st
20ni", "с 17 до 20", "22st keskööni", "between midnight and 6"), single hours ("at 18", "kell
18", "в 18 часов", "8pm"), "inclusive", and a follow-up naming only an hour, which keeps the
day already asked. Generated over languages x forms x hours; the request window (what is
fetched) and the answer shape's hours (what is shown) read the same hours."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.windows import find_window
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Hours

ZONE = ZoneInfo("Europe/Tallinn")
TODAY = date(2026, 12, 4)
NOW = datetime(2026, 12, 4, 10, 0, tzinfo=ZONE)
PERIOD = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period in ISO 8601"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
]
EXTRACTOR = RuleExtractor(CountryNames(), zone=ZONE, now=lambda: NOW.astimezone(UTC))
SHAPES = RuleShapeReader(lambda: TODAY, lambda: NOW.replace(tzinfo=None))

# 24-hour ranges as people write them; {a} opens, {b} is the last hour in it (hourly rows are
# named by the hour they start: "18-22" lists the 22:00 price too).
RANGES = {
    "en": [
        "electricity prices tomorrow from {a} to {b}",
        "prices {a}-{b} tomorrow",
        "tomorrow between {a}:00 and {b}:00, what does power cost",
        "price tomorrow {a}.00-{b}.00",
    ],
    "et": [
        "homme kella {a}st {b}ni elektri hind",
        "elektri hind homme kella {a}-st {b}-ni",
        "homme kella {a}-{b} hinnad",
        "homme {a} kuni {b} mis elekter maksab",
    ],
    "ru": [
        "цены завтра с {a} до {b}",
        "сколько стоит свет завтра с {a}:00 до {b}:00",
        "завтра от {a} до {b} часов цена",
    ],
}
# Afternoon hours with am/pm: {a} and {b} are 1-11.
MERIDIEM_RANGES = [
    "electricity tomorrow from {a}pm to {b}pm",
    "tomorrow {a} to {b}pm prices",
    "tomorrow between {a} and {b} pm, cheapest hour?",
    "tomorrow {a}-{b}pm",
    "prices tomorrow {a} p.m. until {b} p.m.",
]
SINGLE_HOURS = {
    "en": ["price tomorrow at {h}", "electricity at {h}:00 tomorrow", "tomorrow at {h} o'clock"],
    "et": ["homme kell {h} elektri hind", "mis maksab elekter homme kell {h}:00"],
    "ru": ["цена завтра в {h} часов", "сколько стоит свет завтра в {h}:00"],
}
FOLLOW_UPS = {"en": "and at {h}?", "et": "aga kell {h}?", "ru": "а в {h} часов?"}

ranges = st.integers(0, 22).flatmap(lambda a: st.tuples(st.just(a), st.integers(a + 1, 23)))


def local(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(ZONE).replace(tzinfo=None)


def window_of(text: str, lang: str, known: dict[str, str] | None = None) -> tuple[datetime, datetime]:
    values = EXTRACTOR.extract(text, PERIOD, language=lang, known=known or {})  # type: ignore[arg-type]
    return local(values["start"]), local(values["end"])


def shown_hours(text: str, lang: str) -> Hours | None:
    return next(
        (f.condition for f in SHAPES.read(text, lang).filters if isinstance(f.condition, Hours)),  # type: ignore[arg-type]
        None,
    )


@pytest.mark.parametrize(("lang", "form"), [(lang, form) for lang, forms in RANGES.items() for form in forms])
@given(hours=ranges)
@settings(max_examples=25, deadline=None)
def test_an_hour_range_is_fetched_and_shown(lang: str, form: str, hours: tuple[int, int]) -> None:
    a, b = hours
    text = form.format(a=a, b=b)
    start, end = window_of(text, lang)
    assert start == datetime(2026, 12, 5, a, 0)
    assert end == datetime(2026, 12, 5, b, 59, 59)
    assert shown_hours(text, lang) == Hours(a, b + 1)


@pytest.mark.parametrize("form", MERIDIEM_RANGES)
@given(hours=st.integers(1, 10).flatmap(lambda a: st.tuples(st.just(a), st.integers(a + 1, 11))))
@settings(max_examples=20, deadline=None)
def test_pm_hours_are_the_afternoon(form: str, hours: tuple[int, int]) -> None:
    a, b = hours
    text = form.format(a=a, b=b)
    start, end = window_of(text, "en")
    assert (start.time(), end.time()) == (time(a + 12), time(b + 12, 59, 59))
    assert shown_hours(text, "en") == Hours(a + 12, b + 13)


@pytest.mark.parametrize(
    ("lang", "text", "opens", "closes"),
    [
        ("en", "tomorrow from 10am to 2pm", time(10), time(14, 59, 59)),
        ("en", "tomorrow 11 to 2pm", time(11), time(14, 59, 59)),
        ("en", "tomorrow from 8pm to 11", time(20), time(23, 59, 59)),
        # An end said as a moment (its minutes, noon, midnight) is not in the window.
        ("en", "tomorrow from 18:00 to 21:30", time(18), time(21, 29, 59)),
        ("en", "tomorrow from 9 to noon", time(9), time(11, 59, 59)),
        ("et", "homme kella 19st südaööni", time(19), time(23, 59, 59)),
        ("en", "tomorrow from 22 until midnight", time(22), time(23, 59, 59)),
        ("et", "homme kella 22st keskööni", time(22), time(23, 59, 59)),
        ("ru", "завтра с 22 до полуночи", time(22), time(23, 59, 59)),
        ("en", "tomorrow between midnight and 6 in the morning", time(0), time(6, 59, 59)),
        ("ru", "завтра с полуночи до 6", time(0), time(6, 59, 59)),
        ("en", "tomorrow from noon to 3pm", time(12), time(15, 59, 59)),
        ("en", "tomorrow evening from 6 to 9", time(18), time(21, 59, 59)),
        ("en", "tomorrow 18:00 to 21:00 inclusive", time(18), time(21, 59, 59)),
        ("ru", "завтра с 18:00 до 21:00 включительно", time(18), time(21, 59, 59)),
        ("et", "homme kella 18-21 kaasa arvatud", time(18), time(21, 59, 59)),
        ("en", "tomorrow after 6pm", time(18), time(23, 59, 59)),
        ("et", "homme alates kella 18", time(18), time(23, 59, 59)),
        ("et", "homme kella 18st", time(18), time(23, 59, 59)),
        # "at 9 in the evening" is 21:00; two hours named cover both.
        ("et", "homme kell 9 õhtul", time(21), time(21, 59, 59)),
        ("en", "is it cheaper tomorrow at 3am or at 3pm", time(3), time(15, 59, 59)),
        ("en", "tomorrow, pricier at 8pm than in the morning at 8?", time(8), time(20, 59, 59)),
    ],
)
def test_hours_said_other_ways(lang: str, text: str, opens: time, closes: time) -> None:
    start, end = window_of(text, lang)
    assert start.date() == date(2026, 12, 5)
    assert (start.time(), end.time()) == (opens, closes)


@pytest.mark.parametrize(
    ("lang", "form"), [(lang, form) for lang, forms in SINGLE_HOURS.items() for form in forms]
)
@given(hour=st.integers(0, 23))
@settings(max_examples=15, deadline=None)
def test_a_single_hour_is_that_hour(lang: str, form: str, hour: int) -> None:
    start, end = window_of(form.format(h=hour), lang)
    assert (start, end) == (datetime(2026, 12, 5, hour), datetime(2026, 12, 5, hour, 59, 59))


@pytest.mark.parametrize("lang", sorted(FOLLOW_UPS))
@given(day=st.dates(date(2026, 11, 1), date(2026, 12, 10)), hour=st.integers(0, 23))
@settings(max_examples=20, deadline=None)
def test_a_follow_up_with_only_an_hour_keeps_the_day(lang: str, day: date, hour: int) -> None:
    asked = EXTRACTOR.extract(day.strftime("%Y-%m-%d"), PERIOD, language=lang)  # type: ignore[arg-type]
    start, end = window_of(FOLLOW_UPS[lang].format(h=hour), lang, known=asked)
    assert (start, end) == (datetime.combine(day, time(hour)), datetime.combine(day, time(hour, 59, 59)))


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "what did electricity cost this morning from 6 to 9"),
        ("ru", "сколько стоил свет утром с 6 до 9"),
    ],
)
def test_a_past_morning_is_this_morning(lang: str, text: str) -> None:
    start, _ = window_of(text, lang)
    assert start == datetime(2026, 12, 4, 6, 0)


@pytest.mark.parametrize(
    "text",
    [
        "cheapest 3 hours tomorrow",
        "цена завтра в ближайшие 3 часа",
        "the next 5 hours",
        "prices on 24.12",
        "top 10",
    ],
)
def test_numbers_that_are_no_clock_hours(text: str) -> None:
    window = find_window(text, [])
    assert window is None or window.opens != time(3)


@pytest.mark.parametrize(
    ("text", "day"), [("prices on the 21st", 21), ("prices on the 22nd", 22), ("the 6th", 6)]
)
def test_english_ordinals_stay_days_while_estonian_endings_are_hours(text: str, day: int) -> None:
    start, _ = window_of(text, "en")
    assert start.day == day
    start, end = window_of("homme hommikul 6st 9ni mis hinnad on", "et")
    assert (start, end) == (datetime(2026, 12, 5, 6), datetime(2026, 12, 5, 9, 59, 59))


# From an hour to the day's end, as each language says it: what is fetched is what is shown.
TO_MIDNIGHT = {
    "en": ["average price tomorrow from {h} until midnight", "prices tomorrow after {h}:00"],
    "et": [
        "keskmine hind homme kella {h}st südaööni",
        "homme kella {h}st keskööni hinnad",
        "homme alates kella {h}",
    ],
    "ru": ["средняя цена завтра с {h} до полуночи", "цены завтра после {h} часов"],
}


@pytest.mark.parametrize(
    ("lang", "form"), [(lang, form) for lang, forms in TO_MIDNIGHT.items() for form in forms]
)
@given(hour=st.integers(1, 22))
@settings(max_examples=15, deadline=None)
def test_from_an_hour_to_midnight_is_fetched_and_shown_alike(lang: str, form: str, hour: int) -> None:
    text = form.format(h=hour)
    start, end = window_of(text, lang)
    assert (start, end) == (datetime(2026, 12, 5, hour), datetime(2026, 12, 5, 23, 59, 59))
    assert shown_hours(text, lang) == Hours(hour, 24)
