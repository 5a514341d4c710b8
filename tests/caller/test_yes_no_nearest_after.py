"""A yes/no question about a period is fetched with the days after it (params.looking_ahead),
so a "no" says the first row after the period and those that run on from it day by day:
"is there a public holiday in Latvia next week?", "kas järgmisel nädalal on koolivaheaeg?",
"на следующей неделе есть праздник?" — over generated weeks of the demo calendars, in
en/et/ru. The period asked still decides."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.endpoint import EndpointSpec, ParamSpec
from caller_svc.formatter import DeterministicFormatter
from caller_svc.locale_format import format_day
from caller_svc.params import date_pair, looking_ahead
from devtools.demo_apis.app import create_app
from services.answer_shape import AnswerShape, DateRange, Kind, RowFilter
from tests.caller.test_caller_formatter import demo_result

ZONE = ZoneInfo("Europe/Tallinn")
QUESTIONS = {
    "en": "is there a public holiday then?",
    "et": "kas siis on mõni riigipüha?",
    "ru": "тогда есть праздник?",
}
HOLIDAYS = EndpointSpec(
    "get_national_holidays",
    "GET",
    "http://demo/PublicHolidays",
    (
        ParamSpec("countryIsoCode"),
        ParamSpec("validFrom", "date", True),
        ParamSpec("validTo", "date", True),
    ),
)


def test_the_end_date_moves_to_the_lookahead_and_never_back() -> None:
    params = {"countryIsoCode": "LV", "validFrom": "2026-12-07", "validTo": "2026-12-13"}
    assert date_pair(HOLIDAYS, params) == ("validFrom", "validTo")
    assert looking_ahead(HOLIDAYS, params, 30)["validTo"] == "2027-01-06"
    long = {**params, "validTo": "2027-12-31"}
    assert looking_ahead(HOLIDAYS, long, 30) == long
    assert looking_ahead(HOLIDAYS, {**params, "validTo": "not a day"}, 30)["validTo"] == "not a day"
    assert looking_ahead(HOLIDAYS, {"countryIsoCode": "LV"}, 30) == {"countryIsoCode": "LV"}


@settings(max_examples=40, deadline=None)
@given(
    monday=st.dates(date(2026, 1, 1), date(2028, 6, 30)).map(lambda d: d - timedelta(days=d.weekday())),
    country=st.sampled_from(["EE", "LV", "LT", "FI", "DE"]),
    lang=st.sampled_from(["en", "et", "ru"]),
)
async def test_no_names_the_first_holiday_after_the_week(monday: date, country: str, lang: Any) -> None:
    sunday = monday + timedelta(days=6)
    asked = {"countryIsoCode": country, "validFrom": monday.isoformat(), "validTo": sunday.isoformat()}
    sent = looking_ahead(HOLIDAYS, asked, 366)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as c:
        data = (await c.get("/PublicHolidays", params=sent)).json()
    week = RowFilter(DateRange(monday, sunday))
    shape = AnswerShape(Kind.YES_NO, filters=(week,), question=QUESTIONS[lang])
    result = dataclasses.replace(demo_result("get_national_holidays", data, asked), shape=shape)
    clock = lambda: datetime.combine(monday, datetime.min.time(), tzinfo=ZONE)  # noqa: E731
    reply = DeterministicFormatter(time_zone="Europe/Tallinn", clock=clock).format([result], lang)
    days = sorted(date.fromisoformat(h["startDate"]) for h in data)
    inside = [d for d in days if monday <= d <= sunday]
    after = [d for d in days if d > sunday]
    if inside:
        assert reply.startswith(("Yes.", "Jah.", "Да.")), reply
    else:
        assert reply.startswith(("No.", "Ei.", "Нет.")), reply
        if after:
            # The first holiday after the week, and those that run on from it day by day
            # (Christmas Day and the Second Day of Christmas are one stretch).
            run = [after[0]]
            for day in after[1:]:
                if (day - run[-1]).days == 1 and len(run) < 8:
                    run.append(day)
                elif day != run[-1]:
                    break
            for day in run:
                assert format_day(day, lang) in reply, (day, reply)
