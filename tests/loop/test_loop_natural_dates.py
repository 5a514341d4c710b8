"""Spoken dates and ranges in en/et/ru against a fixed "today" (Tuesday 2026-03-10)."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
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


# A day of a month named with its year said in words ("3 October next year"): the day is
# in that year, one day, not a range from the day to the end of the year.
# English month names (calendar is not localized: the process never sets a locale).
_MONTHS_EN = list(calendar.month_name)[1:]
_MONTHS_ET = [
    "jaanuaril",
    "veebruaril",
    "märtsil",
    "aprillil",
    "mail",
    "juunil",
    "juulil",
    "augustil",
    "septembril",
    "oktoobril",
    "novembril",
    "detsembril",
]
_MONTHS_RU = [
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
]
_NEXT_YEAR_SAID = {
    "en": ["next year", "next yr"],
    "et": ["järgmisel aastal", "järgmine aasta"],
    "ru": ["в следующем году"],
}
_DAY_SAID = {
    "en": lambda day, month: [f"{day} {_MONTHS_EN[month - 1]}", f"{_MONTHS_EN[month - 1].lower()} {day}"],
    "et": lambda day, month: [f"{day}. {_MONTHS_ET[month - 1]}"],
    "ru": lambda day, month: [f"{day} {_MONTHS_RU[month - 1]}"],
}
_ASKED = {
    "en": [
        "is {day} {year} a public holiday in Germany?",
        "holidays on {day} {year}",
        "{year}, {day}: a day off?",
    ],
    "et": ["kas {day} {year} on riigipüha?", "{year} {day} puhkepäev?"],
    "ru": ["{day} {year} выходной?", "в германии {day} {year} праздник?"],
}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["en", "et", "ru"]),
    st.integers(1, 28),
    st.integers(1, 12),
    st.data(),
)
def test_a_day_with_its_year_said_in_words_is_one_day_of_that_year(
    countries: CountryNames, language: str, day: int, month: int, data: st.DataObject
) -> None:
    extractor = RuleExtractor(countries, today=lambda: date(2026, 3, 10))
    day_said = data.draw(st.sampled_from(_DAY_SAID[language](day, month)))
    year_said = data.draw(st.sampled_from(_NEXT_YEAR_SAID[language]))
    message = data.draw(st.sampled_from(_ASKED[language])).format(day=day_said, year=year_said)
    values = extractor.extract(message, _HOLIDAY_RANGE, language=language)
    expected = date(2027, month, day).isoformat()
    assert (values.get("validFrom"), values.get("validTo")) == (expected, expected), message


_HOLIDAY_RANGE = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
    ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
]


# A month whose own name ends like an Estonian "from"/"until" case ("juuni", "August")
# names one day, not one side of a range; the case forms still do ("juunist", "augustini").
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 28), st.data())
def test_a_month_name_ending_like_a_case_is_no_range_side(
    countries: CountryNames, day: int, data: st.DataObject
) -> None:
    extractor = RuleExtractor(countries, today=lambda: date(2026, 3, 10))
    language, said, month = data.draw(
        st.sampled_from(
            [
                ("et", f"kas {day}. juuni on vaba päev?", 6),
                ("et", f"{day}. juuni", 6),
                ("en", f"is {day} August a holiday", 8),
                ("en", f"August {day}th", 8),
                ("ru", f"{day} июня выходной?", 6),
                ("ru", f"{day} августа", 8),
            ]
        )
    )
    values = extractor.extract(said, _HOLIDAY_RANGE, language=language)
    expected = date(2026, month, day).isoformat()
    assert (values.get("validFrom"), values.get("validTo")) == (expected, expected), said


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("juunist augustini", ("2026-06-01", "2026-08-31")),
        ("1. juunist 10. augustini", ("2026-06-01", "2026-08-10")),
        ("jaanuarist märtsini", ("2027-01-01", "2027-03-31")),
    ],
)
def test_estonian_case_forms_still_open_and_close_ranges(
    countries: CountryNames, said: str, expected: tuple[str, str]
) -> None:
    extractor = RuleExtractor(countries, today=lambda: date(2026, 3, 10))
    values = extractor.extract(said, _HOLIDAY_RANGE, language="et")
    assert (values.get("validFrom"), values.get("validTo")) == expected, said
