"""Periods people write short: babel's month abbreviations in ranges and with a year
("okt-dets 2027", "jan–mar", "с сент. по дек."), halves and quarters of a year ("the
first half of 2028", "selle aasta teises pooles", "в третьем квартале", "Q3"), year
ranges ("2025-2030"), the Estonian year adverbs ("tänavu", "mullu") and the school year
with the word that dates it ("järgmisel õppeaastal" is a period, not "the next one") —
generated over months, years and "today", in en/et/ru."""

from __future__ import annotations

import calendar
from datetime import date
from zoneinfo import ZoneInfo

import pytest
from babel import Locale
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import DateRange, Kind

TALLINN = ZoneInfo("Europe/Tallinn")
RANGE = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
    ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
]
ET_GENITIVE = (
    "jaanuari veebruari märtsi aprilli mai juuni juuli augusti septembri oktoobri novembri detsembri"
)
TODAYS = st.dates(date(2025, 1, 1), date(2031, 12, 31))


def _abbreviations(lang: str) -> list[str]:
    names = Locale.parse(lang).months["format"]["abbreviated"]
    return [names[m] for m in range(1, 13)]


def _values(countries: CountryNames, today: date, text: str, lang: str) -> tuple[str | None, str | None]:
    values = RuleExtractor(countries, today=lambda: today, zone=TALLINN).extract(
        text,
        RANGE,
        language=lang,  # type: ignore[arg-type]
    )
    return values.get("validFrom"), values.get("validTo")


def _last_day(year: int, month: int) -> str:
    return date(year, month, calendar.monthrange(year, month)[1]).isoformat()


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(["en", "et", "ru"]),
    first=st.integers(1, 12),
    last=st.integers(1, 12),
    year=st.integers(2025, 2032),
    link=st.sampled_from(["-", "–", " - "]),
)
def test_an_abbreviated_month_range_with_a_year(
    countries: CountryNames, lang: str, first: int, last: int, year: int, link: str
) -> None:
    names = _abbreviations(lang)
    text = f"{names[first - 1]}{link}{names[last - 1]} {year}"
    end_year = year if last >= first else year + 1
    assert _values(countries, date(2024, 6, 1), text, lang) == (
        date(year, first, 1).isoformat(),
        _last_day(end_year, last),
    ), text


@settings(max_examples=40, deadline=None)
@given(lang=st.sampled_from(["en", "et", "ru"]), month=st.integers(1, 12), year=st.integers(2025, 2032))
def test_an_abbreviated_month_with_its_year_is_that_month(
    countries: CountryNames, lang: str, month: int, year: int
) -> None:
    text = f"{_abbreviations(lang)[month - 1]} {year}"
    assert _values(countries, date(2024, 6, 1), text, lang) == (
        date(year, month, 1).isoformat(),
        _last_day(year, month),
    ), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Jaan tuli koju", "et"), ("mis pühad on Jaanil", "et")],
)
def test_an_abbreviation_that_is_also_a_name_is_no_month_alone(
    countries: CountryNames, text: str, lang: str
) -> None:
    assert _values(countries, date(2027, 4, 14), text, lang) == (None, None)


HALVES = {
    "en": ["the first half of {y}", "the second half of {y}"],
    "et": ["{y}. aasta esimesel poolel", "{y}. aasta teises pooles"],
    "ru": ["в первой половине {y} года", "во втором полугодии {y} года"],
}
QUARTERS = {
    "en": ["Q{n} {y}", "the {o} quarter of {y}"],
    "et": ["{y}. aasta {o} kvartalis"],
    "ru": ["в {o} квартале {y} года"],
}
ORDINALS = {
    "en": ["first", "second", "third", "fourth"],
    "et": ["esimeses", "teises", "kolmandas", "neljandas"],
    "ru": ["первом", "втором", "третьем", "четвёртом"],
}


@settings(max_examples=60, deadline=None)
@given(lang=st.sampled_from(["en", "et", "ru"]), half=st.integers(1, 2), year=st.integers(2025, 2035))
def test_a_half_of_a_year(countries: CountryNames, lang: str, half: int, year: int) -> None:
    text = "holidays " + HALVES[lang][half - 1].format(y=year)
    first_month = 1 if half == 1 else 7
    assert _values(countries, date(2027, 4, 14), text, lang) == (
        date(year, first_month, 1).isoformat(),
        _last_day(year, first_month + 5),
    ), text


@settings(max_examples=60, deadline=None)
@given(lang=st.sampled_from(["en", "et", "ru"]), quarter=st.integers(1, 4), year=st.integers(2025, 2035))
def test_a_quarter_of_a_year(countries: CountryNames, lang: str, quarter: int, year: int) -> None:
    first_month = 3 * (quarter - 1) + 1
    for form in QUARTERS[lang]:
        text = form.format(n=quarter, o=ORDINALS[lang][quarter - 1], y=year)
        assert _values(countries, date(2027, 4, 14), text, lang) == (
            date(year, first_month, 1).isoformat(),
            _last_day(year, first_month + 2),
        ), text


@settings(max_examples=40, deadline=None)
@given(today=TODAYS)
def test_a_half_of_this_or_next_year_said_in_words(countries: CountryNames, today: date) -> None:
    for text, lang, year in (
        ("eesti pühad selle aasta teises pooles", "et", today.year),
        ("holidays in the second half of next year", "en", today.year + 1),
        ("праздники во втором полугодии следующего года", "ru", today.year + 1),
        ("holidays in the second half of the year", "en", today.year),
    ):
        assert _values(countries, today, text, lang) == (f"{year}-07-01", f"{year}-12-31"), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [("first half of the month", "en"), ("первая половина дня", "ru"), ("teisel pool linna", "et")],
)
def test_a_half_of_something_else_is_no_period(countries: CountryNames, text: str, lang: str) -> None:
    assert _values(countries, date(2027, 4, 14), text, lang) == (None, None)


@settings(max_examples=40, deadline=None)
@given(
    lang=st.sampled_from(["en", "et", "ru"]),
    first=st.integers(2020, 2035),
    span=st.integers(0, 8),
    link=st.sampled_from(["-", "–", " - ", "—"]),
)
def test_a_year_range(countries: CountryNames, lang: str, first: int, span: int, link: str) -> None:
    text = f"holidays {first}{link}{first + span}"
    assert _values(countries, date(2027, 4, 14), text, lang) == (
        f"{first}-01-01",
        f"{first + span}-12-31",
    ), text


@settings(max_examples=40, deadline=None)
@given(today=TODAYS, month=st.integers(1, 12))
def test_estonian_year_adverbs(countries: CountryNames, today: date, month: int) -> None:
    name = ET_GENITIVE.split()[month - 1]
    for text, year in (
        ("pühad tänavu", today.year),
        ("pyhad tanavu", today.year),
        ("mis pühad olid mullu", today.year - 1),
    ):
        assert _values(countries, today, text, "et") == (f"{year}-01-01", f"{year}-12-31"), text
    for text, year in ((f"tänavu {name}s", today.year), (f"mis pühad olid mullu {name}s", today.year - 1)):
        assert _values(countries, today, text, "et") == (
            date(year, month, 1).isoformat(),
            _last_day(year, month),
        ), text


@settings(max_examples=20, deadline=None)
@given(today=TODAYS)
def test_tanavu_is_no_today_in_the_shape(today: date) -> None:
    shape = RuleShapeReader(lambda: today).read("millal jaanipäev tänavu on", "et")
    assert not any(isinstance(f.condition, DateRange) for f in shape.filters)


@settings(max_examples=40, deadline=None)
@given(
    today=TODAYS,
    lang_text=st.sampled_from(
        [
            ("et", "koolivaheajad järgmisel õppeaastal", 1),
            ("ru", "все каникулы на следующий учебный год", 1),
            ("en", "school holidays next school year", 1),
            ("en", "school breaks last school year", -1),
            ("et", "koolivaheajad eelmisel õppeaastal", -1),
        ]
    ),
)
def test_next_school_year_is_a_period_not_a_pick(
    countries: CountryNames, today: date, lang_text: tuple[str, str, int]
) -> None:
    lang, text, shift = lang_text
    first = (today.year if today.month >= 9 else today.year - 1) + shift
    assert _values(countries, today, text, lang) == (f"{first}-09-01", f"{first + 1}-08-31")
    shape = RuleShapeReader(lambda: today).read(text, lang)  # type: ignore[arg-type]
    assert shape.selection is None and shape.kind is not Kind.EXTREME


# A school year written as its two years, in the forms people use, with or without the word.
SCHOOL_YEAR_PAIRS = [
    ("en", "all the school breaks for the {a}/{b} school year"),
    ("en", "school year {a}-{bb} breaks"),
    ("en", "{a}/{bb} school holidays"),
    ("en", "school holidays in {a}/{b}"),
    ("et", "{a}/{b} õppeaasta koolivaheajad"),
    ("et", "koolivaheajad õppeaastal {a}-{b}"),
    ("et", "koolivaheajad {aa}/{bb}"),
    ("ru", "какие каникулы будут в учебном году {a}/{b}"),
    ("ru", "каникулы {a}-{b} учебного года"),
    ("ru", "каникулы на {aa}/{bb} учебный год"),
    ("ru", "все каникулы на следующий учебный год {aa}/{bb} плз"),
    ("en", "breaks in the next school year {a}/{bb}"),
]


@settings(max_examples=60, deadline=None)
@given(today=TODAYS, first=st.integers(2020, 2035), form=st.sampled_from(SCHOOL_YEAR_PAIRS))
def test_a_school_year_written_as_its_two_years_is_september_to_august(
    countries: CountryNames, today: date, first: int, form: tuple[str, str]
) -> None:
    lang, pattern = form
    text = pattern.format(a=first, b=first + 1, aa=f"{first % 100:02d}", bb=f"{(first + 1) % 100:02d}")
    assert _values(countries, today, text, lang) == (f"{first}-09-01", f"{first + 1}-08-31"), text
    shape = RuleShapeReader(lambda: today).read(text, lang)  # type: ignore[arg-type]
    ranges = [f.condition for f in shape.filters if isinstance(f.condition, DateRange)]
    assert ranges == [DateRange(date(first, 9, 1), date(first + 1, 8, 31))], text
    assert shape.selection is None, text  # "next" dates the school year; it picks no row


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Alone, a hyphenated pair is two calendar years; a short pair with a slash may be a day.
        ("holidays 2027-2028", ("2027-01-01", "2028-12-31")),
        ("holidays 11/12", (None, None)),
        # Years that do not follow each other are no school year.
        ("holidays 2027/2029", (None, None)),
    ],
)
def test_pairs_that_are_no_school_year(
    countries: CountryNames, text: str, expected: tuple[str | None, ...]
) -> None:
    values = _values(countries, date(2026, 12, 1), text, "en")
    if expected == (None, None):
        assert values[0] is None or not values[0].endswith("-09-01"), values
    else:
        assert values == expected


def test_a_long_run_of_year_pairs_is_read_promptly(countries: CountryNames) -> None:
    text = "2027/ " * 10_000 + "õppeaasta " * 5_000 + "27/28 " * 3_000 + "x" * 20_000
    assert len(text) > 100_000
    # The word alone is this school year, the pairs the next one: from the first to the last.
    assert _values(countries, date(2026, 12, 1), text, "et") == ("2026-09-01", "2028-08-31")
