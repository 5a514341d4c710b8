"""The previous row and the ordinary day, over generated calendars: "the last/previous
holiday", "eelmine sügisvaheaeg", "предыдущий праздник" is the latest row begun by today
(never one still to come), searched in the year up to today when no period is said; "is
24 June a working day", "kas 30. aprillil on kool", "25 декабря рабочий день?" is
answered no when a row (a holiday, a break) covers the day, yes when none does; a day
asked about in Russian without a question word is a yes/no question."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.formatter import DeterministicFormatter
from caller_svc.labels import NO_LABELS
from caller_svc.operations import answer
from caller_svc.rows import locate
from devtools.demo_apis.app import create_app
from loop_svc.defaults import Defaults
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import AnswerShape, DateRange, Kind, Order, RowFilter
from tests.caller.test_caller_formatter import demo_result

ZONE = ZoneInfo("Europe/Tallinn")
PREVIOUS = [
    ("en", "when was the last public holiday"),
    ("en", "previous holiday in latvia"),
    ("et", "millal eelmine püha oli"),
    ("et", "millal oli möödunud vaheaeg"),
    ("ru", "когда был предыдущий праздник"),
    ("ru", "прошлый праздник в латвии"),
]
ORDINARY = [
    ("en", "is {d} a working day?"),
    ("en", "is there school on {d}?"),
    ("et", "kas {d} on tööpäev?"),
    ("et", "kas {d} on lastel kool?"),
    ("ru", "{d} рабочий день?"),
    ("ru", "{d} дети идут в школу?"),
]
ROW_ASKED = [
    ("en", "is {d} a public holiday?"),
    ("et", "kas {d} on püha?"),
    ("ru", "{d} выходной?"),
]
EN_MONTHS = "January February March April May June July August September October November December".split()
ET_MONTHS = (
    "jaanuaril veebruaril märtsil aprillil mail juunil juulil augustil "
    "septembril oktoobril novembril detsembril"
)
RU_MONTHS = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split()


def _said(day: date, lang: str) -> str:
    if lang == "en":
        return f"{day.day} {EN_MONTHS[day.month - 1]} {day.year}"
    if lang == "et":
        return f"{day.day}. {ET_MONTHS.split()[day.month - 1]} {day.year}"
    return f"{day.day} {RU_MONTHS[day.month - 1]} {day.year}"


@st.composite
def calendar(draw: Any) -> list[dict[str, str]]:
    """Dated rows a few days to months apart, some of them spans."""
    day = draw(st.dates(date(2025, 1, 1), date(2028, 6, 30)))
    out = []
    for i in range(draw(st.integers(1, 8))):
        length = draw(st.integers(0, 10))
        end = day + timedelta(days=length)
        out.append({"name": f"Day {i}", "startDate": day.isoformat(), "endDate": end.isoformat()})
        day = end + timedelta(days=draw(st.integers(1, 90)))
    return out


@pytest.mark.parametrize(("lang", "text"), PREVIOUS)
def test_the_previous_one_is_read_as_the_latest(lang: str, text: str) -> None:
    shape = RuleShapeReader(lambda: date(2027, 4, 14)).read(text, lang)  # type: ignore[arg-type]
    assert shape.selection is not None and shape.selection.order is Order.LATEST, text


@settings(max_examples=80, deadline=None)
@given(rows=calendar(), offset=st.integers(0, 400))
def test_the_latest_in_the_year_up_to_today_is_the_last_row_begun(
    rows: list[dict[str, str]], offset: int
) -> None:
    """With no period said, a question about the past searches the year up to today (the
    loop's default); the latest row of that window is the last one begun by today."""
    today = date.fromisoformat(rows[0]["startDate"]) + timedelta(days=offset)
    window = DateRange(today - timedelta(days=365), today)
    table = locate(rows, NO_LABELS, ZONE)
    assert table is not None
    shape = RuleShapeReader(lambda: today).read("when was the last one", "en")
    outcome = answer(table, shape, NO_LABELS, datetime.combine(today, time(10)), window=window)
    inside = [
        r
        for r in rows
        if window.overlaps(date.fromisoformat(r["startDate"]), date.fromisoformat(r["endDate"]))
    ]
    expected = [max(inside, key=lambda r: r["startDate"])["name"]] if inside else []
    assert [r.data["name"] for r in outcome.rows] == expected


DATES = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start date for the holiday search"),
    ParamSpec(name="validTo", type="date", required=True, description="End date for the holiday search"),
]


@settings(max_examples=40, deadline=None)
@given(today=st.dates(date(2024, 1, 1), date(2032, 12, 31)))
def test_no_period_said_is_the_year_before_today_for_the_past(today: date) -> None:
    defaults = Defaults(lambda: today)
    ahead = defaults.fill(DATES, {})
    back = defaults.fill(DATES, {}, past=True)
    assert ahead["validFrom"] == today.isoformat() == back["validTo"]
    assert date.fromisoformat(ahead["validTo"]) > today > date.fromisoformat(back["validFrom"])
    assert 365 <= (today - date.fromisoformat(back["validFrom"])).days <= 366


@settings(max_examples=120, deadline=None)
@given(rows=calendar(), pick=st.integers(0, 40), case=st.sampled_from(ORDINARY + ROW_ASKED))
def test_an_ordinary_day_is_no_when_a_row_covers_it(rows: list[dict[str, str]], pick: int, case: Any) -> None:
    """Every day, weekends too: an ordinary day (a working day, a school day) is a weekday
    no row covers, in each language the same; a row asked about is one that covers the day."""
    lang, form = case
    first = date.fromisoformat(rows[0]["startDate"])
    day = first + timedelta(days=pick)
    table = locate(rows, NO_LABELS, ZONE)
    assert table is not None
    text = form.format(d=_said(day, lang))
    shape = RuleShapeReader(lambda: first).read(text, lang)
    assert shape.kind is Kind.YES_NO, text
    assert any(isinstance(f.condition, DateRange) for f in shape.filters), text
    outcome = answer(table, shape, NO_LABELS, datetime.combine(first, time(10)))
    covered = any(date.fromisoformat(r["startDate"]) <= day <= date.fromisoformat(r["endDate"]) for r in rows)
    if (lang, form) in ORDINARY:
        assert outcome.verdict is (not covered and day.isoweekday() <= 5), text
        assert outcome.off_week == ([day] if day.isoweekday() > 5 else []), text
    else:
        assert outcome.verdict is covered, text


def test_a_row_asked_about_by_its_own_name_keeps_its_verdict() -> None:
    rows = [{"name": "Midsummer Day", "startDate": "2027-06-24", "endDate": "2027-06-24"}]
    table = locate(rows, NO_LABELS, ZONE)
    assert table is not None
    on_day = RowFilter(DateRange(date(2027, 6, 24), date(2027, 6, 24)))
    for question in (
        "is 24 june a school holiday",
        "kas 24. juunil on koolis vaheaeg?",
        "24 июня в школе каникулы?",
    ):
        shape = AnswerShape(Kind.YES_NO, filters=(on_day,), question=question)
        assert answer(table, shape, NO_LABELS, datetime(2027, 4, 14, 10)).verdict is True, question


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("en", "is 5 December 2026 a working day?", "Saturday, 5 Dec 2026 is at the weekend."),
        ("et", "kas 5. detsembril 2026 on tööpäev?", "laupäev, 5. detsember 2026 on nädalavahetusel."),
        ("ru", "5 декабря 2026 рабочий день?", "суббота, 5 декабря 2026 приходится на выходные."),
        ("en", "is there school on 6 December 2026?", "Sunday, 6 Dec 2026 is at the weekend."),
    ],
)
async def test_a_weekend_asked_as_a_working_day_is_no_and_says_why(lang: str, text: str, said: str) -> None:
    """The same in every language: no first, then that the day is at the weekend (the
    holiday calendar has nothing on it, and that is no reason for yes)."""
    params = {"countryIsoCode": "EE", "validFrom": "2026-12-05", "validTo": "2026-12-06"}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as c:
        data = (await c.get("/PublicHolidays", params=params)).json()
    result = dataclasses.replace(
        demo_result("get_national_holidays", data, params),
        shape=RuleShapeReader(lambda: date(2026, 12, 1)).read(text, lang),  # type: ignore[arg-type]
    )
    clock = lambda: datetime(2026, 12, 1, 8, 0, tzinfo=ZONE)  # noqa: E731
    reply = DeterministicFormatter(time_zone="Europe/Tallinn", clock=clock).format([result], lang)  # type: ignore[arg-type]
    lines = reply.splitlines()
    assert lines[0].startswith(("No.", "Ei.", "Нет.")), reply
    assert said in lines, reply


@settings(max_examples=40, deadline=None)
@given(day=st.dates(date(2026, 1, 1), date(2028, 12, 31)), case=st.sampled_from(ORDINARY[::2]))
async def test_a_working_day_asked_of_the_day_alone_is_yes_on_weekdays_without_a_holiday(
    day: date, case: Any
) -> None:
    """The call asks for the day alone, so a day with no holiday gives no row at all: yes on
    a weekday, no at the weekend or on a holiday, the same in each language."""
    lang, form = case
    text = form.format(d=_said(day, lang))
    params = {"countryIsoCode": "EE", "validFrom": day.isoformat(), "validTo": day.isoformat()}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as c:
        data = (await c.get("/PublicHolidays", params=params)).json()
    result = dataclasses.replace(
        demo_result("get_national_holidays", data, params),
        shape=RuleShapeReader(lambda: date(2026, 1, 1)).read(text, lang),  # type: ignore[arg-type]
    )
    clock = lambda: datetime(2026, 1, 1, 8, 0, tzinfo=ZONE)  # noqa: E731
    reply = DeterministicFormatter(time_zone="Europe/Tallinn", clock=clock).format([result], lang)  # type: ignore[arg-type]
    working = day.isoweekday() <= 5 and not data
    assert reply.startswith(("Yes.", "Jah.", "Да.") if working else ("No.", "Ei.", "Нет.")), (text, reply)


# Of two alternatives in one yes/no question, the first is the one answered: "is there
# school on 3 March or is that during a break?" asks about school (no: a break is on it).
@pytest.mark.parametrize(
    "question",
    [
        "is there school on 3 march or is that during a break",
        "do the kids have classes on 3 march, or is it a holiday?",
        "kas 3. märtsil on koolis tunnid või on vaheaeg?",
        "3 марта есть уроки или каникулы?",
    ],
)
def test_the_first_of_two_alternatives_is_the_one_asked(question: str) -> None:
    from caller_svc.operations import asks_ordinary_day

    assert asks_ordinary_day(question)


@pytest.mark.parametrize(
    "question",
    [
        "is 3 march a school holiday or is there school",
        "kas 5. märtsil on koolis vaheaeg?",
        "3 марта каникулы или уроки?",
    ],
)
def test_a_row_asked_first_stays_the_question(question: str) -> None:
    from caller_svc.operations import asks_ordinary_day

    assert not asks_ordinary_day(question)
