"""A day of the month said alone in a follow-up ("what about the 23rd", "do I get the 23rd
off too?", "а 23-го?", "а 23 числа?", "aga 23. kuupäeval?") is that day of the month
already asked when the period asked lies in one month; otherwise it stays the nearest
such day. The follow-up's day filter then lies in the request's own window. Generated
over any month of any year and every day number, in en/et/ru."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.cache_plan import _days_within
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import EndpointSpec, ParamSpec
from services.answer_shape import AnswerShape, DateRange, Kind, RowFilter

TALLINN = ZoneInfo("Europe/Tallinn")
RANGE = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
    ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
]
FORMS = [
    ("en", "what about the {n}{o}"),
    ("en", "do i get the {n}{o} off too?"),
    ("ru", "а {n}-го?"),
    ("ru", "а {n} числа?"),
    ("et", "aga {n}. kuupäeval?"),
]


def _ordinal(n: int) -> str:
    return "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _extract(
    countries: CountryNames, today: date, text: str, lang: str, known: dict[str, str]
) -> dict[str, str]:
    extractor = RuleExtractor(countries, today=lambda: today, zone=TALLINN)
    return dict(extractor.extract(text, RANGE, language=lang, known=known))  # type: ignore[arg-type]


@settings(max_examples=80, deadline=None)
@given(
    today=st.dates(date(2025, 1, 1), date(2030, 12, 31)),
    asked=st.dates(date(2025, 1, 1), date(2031, 12, 31)),
    length=st.integers(0, 10),
    day=st.integers(1, 28),
    form=st.sampled_from(FORMS),
)
def test_a_bare_day_is_in_the_month_already_asked(
    countries: CountryNames, today: date, asked: date, length: int, day: int, form: tuple[str, str]
) -> None:
    lang, pattern = form
    last = min(
        asked + timedelta(days=length), asked.replace(day=calendar.monthrange(asked.year, asked.month)[1])
    )
    known = {"validFrom": asked.isoformat(), "validTo": last.isoformat()}
    text = pattern.format(n=day, o=_ordinal(day))
    expected = asked.replace(day=day).isoformat()
    assert _extract(countries, today, text, lang, known) == {"validFrom": expected, "validTo": expected}, text


@settings(max_examples=40, deadline=None)
@given(today=st.dates(date(2025, 1, 1), date(2030, 12, 31)), day=st.integers(1, 28))
def test_over_several_months_the_day_is_the_nearest_one(
    countries: CountryNames, today: date, day: int
) -> None:
    known = {"validFrom": today.isoformat(), "validTo": (today + timedelta(days=365)).isoformat()}
    alone = _extract(countries, today, f"what about the {day}{_ordinal(day)}", "en", {})
    assert _extract(countries, today, f"what about the {day}{_ordinal(day)}", "en", known) == alone


@settings(max_examples=40, deadline=None)
@given(asked=st.dates(date(2025, 1, 1), date(2031, 12, 31)), shift=st.integers(1, 400))
def test_a_day_filter_outside_the_request_window_gives_way_to_it(asked: date, shift: int) -> None:
    endpoint = EndpointSpec(name="get_public_holidays", params=RANGE)
    elsewhere = asked - timedelta(days=shift)
    shape = AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(elsewhere, elsewhere)),))
    params = {"validFrom": asked.isoformat(), "validTo": asked.isoformat()}
    assert _days_within(shape, endpoint, params).filters == (RowFilter(DateRange(asked, asked)),)
    inside = AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(asked, asked)),))
    assert _days_within(inside, endpoint, params) == inside
