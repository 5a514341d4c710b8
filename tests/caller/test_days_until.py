"""Days still to wait ("how many days till the spring break", "mitu päeva veel
kevadvaheajani", "сколько дней осталось до праздника"): the shape is read in en/et/ru
(a count of days and a word of waiting; "how many days is the break" is its length), the
operation counts from the injected today to the first row not yet begun, and the answer
says the number in the citizen's language, then the row — over generated rows and days."""

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
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Function, Order
from tests.caller.test_caller_formatter import demo_result

ZONE = ZoneInfo("Europe/Tallinn")

UNTIL = [
    ("en", "how many days till the kids are off school again"),
    ("en", "how many days are left until the summer break?"),
    ("en", "how long until christmas"),
    ("et", "mitu päeva veel kevadvaheajani jäänud"),
    ("et", "mitu päeva on jäänud jõuludeni"),
    ("et", "kui kaua on veel suvevaheajani"),
    ("ru", "скок дней осталось до ближайшего госпраздника в эстонии?"),
    ("ru", "сколько дней до летних каникул"),
    ("ru", "через сколько дней каникулы"),
]
LENGTH = [
    ("en", "how many days is the christmas break"),
    ("et", "mitu päeva on jõuluvaheaeg"),
    ("ru", "скока дней получается"),
]


@pytest.mark.parametrize(("lang", "text"), UNTIL)
def test_days_until_is_read_in_three_languages(lang: str, text: str) -> None:
    shape = RuleShapeReader(lambda: date(2027, 4, 14)).read(text, lang)  # type: ignore[arg-type]
    assert shape.aggregation is not None and shape.aggregation.function is Function.DAYS_UNTIL, text
    assert shape.selection is not None and shape.selection.order is Order.NEXT


@pytest.mark.parametrize(("lang", "text"), LENGTH)
def test_how_many_days_a_row_lasts_is_its_length(lang: str, text: str) -> None:
    shape = RuleShapeReader(lambda: date(2027, 4, 14)).read(text, lang)  # type: ignore[arg-type]
    assert shape.aggregation is not None and shape.aggregation.function is Function.DURATION, text


@st.composite
def breaks(draw: Any) -> list[dict[str, str]]:
    """Non-overlapping spans, each 1–80 days, with gaps of 1–120 days."""
    day = draw(st.dates(date(2025, 1, 1), date(2028, 12, 31)))
    out = []
    for i in range(draw(st.integers(1, 6))):
        length = draw(st.integers(0, 80))
        out.append(
            {
                "name": f"Break {i}",
                "startDate": day.isoformat(),
                "endDate": (day + timedelta(length)).isoformat(),
            }
        )
        day += timedelta(days=length + draw(st.integers(1, 120)))
    return out


@settings(max_examples=80, deadline=None)
@given(rows=breaks(), offset=st.integers(-200, 400), case=st.sampled_from(UNTIL))
def test_days_until_the_first_row_not_yet_begun(rows: list[dict[str, str]], offset: int, case: Any) -> None:
    lang, text = case
    first = date.fromisoformat(rows[0]["startDate"])
    today = first + timedelta(days=offset)
    shape = RuleShapeReader(lambda: today).read(text, lang)
    shape = dataclasses.replace(shape, terms=())  # the rows' names are no part of this property
    table = locate(rows, NO_LABELS, ZONE)
    assert table is not None
    outcome = answer(table, shape, NO_LABELS, datetime.combine(today, time(10)))
    coming = [date.fromisoformat(r["startDate"]) for r in rows if date.fromisoformat(r["startDate"]) >= today]
    assert outcome.aggregate is not None
    if coming:
        assert outcome.aggregate.value == (min(coming) - today).days
    else:
        assert outcome.aggregate.value is None


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("en", "how many days till the kids are off school again", "12 days to go."),
        ("et", "mitu päeva veel kevadvaheajani jäänud", "Jäänud on 12 päeva."),
        ("ru", "сколько дней осталось до каникул", "Осталось 12 дней."),
    ],
)
async def test_the_answer_says_the_days_then_the_row(lang: str, text: str, said: str) -> None:
    today = date(2027, 4, 14)
    params = {"countryIsoCode": "EE", "validFrom": "2027-04-14", "validTo": "2028-04-14"}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as c:
        data = (await c.get("/SchoolHolidays", params=params)).json()
    result = dataclasses.replace(
        demo_result("get_school_holidays", data, params),
        shape=RuleShapeReader(lambda: today).read(text, lang),  # type: ignore[arg-type]
    )
    clock = lambda: datetime(2027, 4, 14, 7, 0, tzinfo=ZONE)  # noqa: E731
    reply = DeterministicFormatter(time_zone="Europe/Tallinn", clock=clock).format([result], lang)  # type: ignore[arg-type]
    lines = reply.splitlines()
    assert lines[1] == said, reply
    assert len([line for line in lines if line.startswith("•")]) == 1, reply
    assert "26" in lines[2], reply
