"""Spoken dates and ranges in en/et/ru against a fixed "today" (Tuesday 2026-03-10)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from loop_svc.extraction import RuleExtractor
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.settings import LoopSettings
from loop_svc.today import local_today

SINGLE = [ParamSpec(name="date", type="date", required=True, description="Date of the event")]


@pytest.mark.parametrize(
    ("message", "language", "expected"),
    [
        ("today", "en", "2026-03-10"),
        ("tomorrow please", "en", "2026-03-11"),
        ("the day after tomorrow", "en", "2026-03-12"),
        ("next Friday", "en", "2026-03-13"),
        ("on Tuesday next week", "en", "2026-03-17"),
        ("this Saturday", "en", "2026-03-14"),
        ("March 14th", "en", "2026-03-14"),
        ("the 14th of March", "en", "2026-03-14"),
        ("14th of this month", "en", "2026-03-14"),
        ("the 2nd", "en", "2026-04-02"),
        ("in 3 days", "en", "2026-03-13"),
        ("täna", "et", "2026-03-10"),
        ("homme", "et", "2026-03-11"),
        ("järgmisel esmaspäeval", "et", "2026-03-16"),
        ("24. veebruaril", "et", "2026-02-24"),
        ("ülehomme", "et", "2026-03-12"),
        ("сегодня", "ru", "2026-03-10"),
        ("завтра", "ru", "2026-03-11"),
        ("в следующую пятницу", "ru", "2026-03-13"),
        ("1 июня", "ru", "2026-06-01"),
    ],
)
def test_one_spoken_date(extractor: RuleExtractor, message: str, language: str, expected: str) -> None:
    assert extractor.extract(message, SINGLE, language=language) == {"date": expected}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("message", "language", "start", "end"),
    [
        ("from today until the end of the year", "en", "2026-03-10", "2026-12-31"),
        ("next month", "en", "2026-04-01", "2026-04-30"),
        ("Estonian holidays next month", "en", "2026-04-01", "2026-04-30"),
        ("next week", "en", "2026-03-16", "2026-03-22"),
        ("this year", "en", "2026-01-01", "2026-12-31"),
        ("alates tänasest aasta lõpuni", "et", "2026-03-10", "2026-12-31"),
        ("tänasest aasta lõpuni", "et", "2026-03-10", "2026-12-31"),
        ("järgmisel kuul", "et", "2026-04-01", "2026-04-30"),
        ("1. märtsist 30. juunini", "et", "2026-03-01", "2026-06-30"),
        ("в следующем месяце", "ru", "2026-04-01", "2026-04-30"),
        ("с сегодняшнего дня до конца года", "ru", "2026-03-10", "2026-12-31"),
        ("с 1 марта по 30 июня 2026", "ru", "2026-03-01", "2026-06-30"),
        ("When is the next public holiday in Finland?", "en", "2026-03-10", "2027-03-10"),
        ("Mis on järgmine riigipüha?", "et", "2026-03-10", "2027-03-10"),
        ("Когда ближайший праздник?", "ru", "2026-03-10", "2027-03-10"),
    ],
)
def test_spoken_ranges(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str, start: str, end: str
) -> None:
    values = extractor.extract(message, holidays.params, language=language)  # type: ignore[arg-type]
    assert (values.get("validFrom"), values.get("validTo")) == (start, end)


def test_one_side_of_a_range_keeps_the_other(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    values = extractor.extract(
        "until the end of the year", holidays.params, language="en", known={"validFrom": "2026-03-10"}
    )
    assert values == {"validTo": "2026-12-31"}


@pytest.mark.parametrize(
    ("message", "language", "code"),
    [
        ("Estonian holidays next month", "en", "EE"),
        ("eesti riigipühad", "et", "EE"),
        ("эстонские праздники", "ru", "EE"),
        ("Soome pühad", "et", "FI"),
        ("финские праздники", "ru", "FI"),
        ("Finnish public holidays", "en", "FI"),
    ],
)
def test_country_adjectives(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str, code: str
) -> None:
    values = extractor.extract(message, holidays.params, language=language)  # type: ignore[arg-type]
    assert values.get("countryIsoCode") == code


@pytest.mark.parametrize(
    ("message", "address"),
    [
        ("What is the postal code of Ülikooli 18, Tartu?", "Ülikooli 18, Tartu"),
        ("Mis on Viru tn 4 Tallinn sihtnumber?", "Viru tn 4, Tallinn"),
        ("Найди Нарвское шоссе 5, Таллинн", "Narva mnt 5, Tallinn"),
    ],
)
def test_address_anywhere_in_the_first_message(
    extractor: RuleExtractor, address_search: EndpointSpec, message: str, address: str
) -> None:
    values = extractor.extract(message, address_search.params, language="en")
    assert values.get("address") == address


def test_today_is_the_configured_zones_calendar_day() -> None:
    late_evening_utc = datetime(2026, 3, 10, 22, 30, tzinfo=UTC)
    assert local_today("Europe/Tallinn", lambda: late_evening_utc)() == date(2026, 3, 11)
    assert local_today("UTC", lambda: late_evening_utc)() == date(2026, 3, 10)
    with pytest.raises(ValueError, match="unknown time zone"):
        LoopSettings(time_zone="Mars/Olympus")
