"""Holidays and school breaks named the way people say them, generated over values ×
forms × languages: a day of a month without a year is its nearest occurrence; a holiday
named in another of the three languages, or as another country calls it, is dated in the
country asked about; two holidays joined by "and" are both asked; a period said with a
holiday only says which occurrence; a season's adjective ("зимние", "kevadine") names a
break, not the season; a description's listed row kinds pick rows."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.endpoint import EndpointSpec
from caller_svc.endpoint import ParamSpec as CallerParam
from caller_svc.labels import NO_LABELS
from caller_svc.operations import answer
from caller_svc.rows import locate
from caller_svc.servicer import _listed_words, endpoint_words
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import AnswerShape

TALLINN = ZoneInfo("Europe/Tallinn")
TODAY = date(2026, 12, 2)
RANGE = [
    ParamSpec(
        name="countryIsoCode", type="string", required=True, description="The 2-letter ISO country code"
    ),
    ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
    ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
]
EN_MONTHS = list(calendar.month_name)[1:]
ET_GENITIVE = (
    "jaanuari veebruari märtsi aprilli mai juuni juuli augusti septembri oktoobri novembri detsembri"
)
RU_GENITIVE = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря"


def _extractor(countries: CountryNames, names: HolidayNames, today: date = TODAY) -> RuleExtractor:
    return RuleExtractor(countries, today=lambda: today, zone=TALLINN, holidays=names)


def _day_forms(day: date) -> list[tuple[str, str]]:
    # ("may" in lower case is the verb more often than the month: not this test's class.)
    short = EN_MONTHS[day.month - 1][:3] if day.month == 5 else EN_MONTHS[day.month - 1].lower()[:3]
    return [
        (f"is {EN_MONTHS[day.month - 1]} {day.day} a holiday", "en"),
        (f"is {day.day} {short} off work", "en"),
        (f"kas {day.day}. {ET_GENITIVE.split()[day.month - 1]}l on puhkepäev", "et"),
        (f"{day.day} {RU_GENITIVE.split()[day.month - 1]} выходной?", "ru"),
    ]


@settings(max_examples=40, deadline=None)
@given(today=st.dates(date(2025, 1, 1), date(2028, 12, 31)), offset=st.integers(-150, 150))
def test_a_day_of_a_month_without_a_year_is_its_nearest_occurrence(
    countries: CountryNames, holiday_names: HolidayNames, today: date, offset: int
) -> None:
    day = today + timedelta(days=offset)
    if (day.month, day.day) == (2, 29):
        return
    extractor = _extractor(countries, holiday_names, today)
    for text, lang in _day_forms(day):
        values = extractor.extract(text, RANGE, language=lang)  # type: ignore[arg-type]
        assert values.get("validFrom") == day.isoformat() == values.get("validTo"), text


@settings(max_examples=40, deadline=None)
@given(today=st.dates(date(2025, 1, 1), date(2028, 12, 31)), back=st.integers(151, 182))
def test_a_day_of_a_month_gone_five_months_ago_is_the_coming_one(
    countries: CountryNames, holiday_names: HolidayNames, today: date, back: int
) -> None:
    # "is 24 December a holiday in Germany?" asked on 21 June: the coming December.
    gone = today - timedelta(days=back)
    if (gone.month, gone.day) == (2, 29):
        return
    coming = gone.replace(year=gone.year + 1)
    extractor = _extractor(countries, holiday_names, today)
    for text, lang in _day_forms(gone):
        values = extractor.extract(text, RANGE, language=lang)  # type: ignore[arg-type]
        assert values.get("validFrom") == coming.isoformat() == values.get("validTo"), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("was 6 january a holiday", "en"),
        ("kas 6. jaanuaril oli puhkepäev", "et"),
        ("6 января был праздник?", "ru"),
    ],
)
def test_a_day_said_in_the_past_is_the_last_one(
    countries: CountryNames, holiday_names: HolidayNames, text: str, lang: str
) -> None:
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert values["validFrom"] == "2026-01-06"


# (country, a name people use in each language, the day in the coming year)
OTHER_LANGUAGE_NAMES = [
    ("EE", {"en": "jaanipäev", "ru": "jaanipäev"}, date(2027, 6, 24)),
    ("EE", {"et": "midsummer day", "ru": "midsummer day"}, date(2027, 6, 24)),
    ("EE", {"en": "võidupüha", "ru": "võidupüha"}, date(2027, 6, 23)),
    ("DE", {"et": "taevaminemispüha", "en": "ascension day", "ru": "вознесение"}, date(2027, 5, 6)),
]


@pytest.mark.parametrize(
    ("country", "lang", "name", "day"),
    [(c, lang, name, d) for c, by_lang, d in OTHER_LANGUAGE_NAMES for lang, name in by_lang.items()],
)
def test_a_holiday_named_in_another_of_the_three_languages(
    countries: CountryNames, holiday_names: HolidayNames, country: str, lang: str, name: str, day: date
) -> None:
    where = {
        "EE": {"en": "in estonia", "et": "eestis", "ru": "в эстонии"},
        "DE": {"en": "in germany", "et": "saksamaal", "ru": "в германии"},
    }
    text = f"{name} {where[country][lang]}"
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert values.get("validFrom") == day.isoformat() == values.get("validTo"), text


INDEPENDENCE = {"en": "independence day", "ru": "день независимости"}
WHERE = {
    "FI": ({"en": "in finland", "ru": "в финляндии"}, date(2026, 12, 6)),
    "LT": ({"en": "in lithuania", "ru": "в литве"}, date(2027, 3, 11)),
    "EE": ({"en": "in estonia", "ru": "в эстонии"}, date(2027, 2, 24)),
}


@pytest.mark.parametrize(("country", "lang"), [(c, lang) for c in WHERE for lang in INDEPENDENCE])
def test_a_holiday_as_another_country_calls_it_is_the_countrys_own(
    countries: CountryNames, holiday_names: HolidayNames, country: str, lang: str
) -> None:
    where, day = WHERE[country]
    text = f"{INDEPENDENCE[lang]} {where[lang]}"
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert values.get("validFrom") == day.isoformat() == values.get("validTo"), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [("do germans get christmas eve off", "en"), ("is easter monday a holiday in estonia", "en")],
)
def test_a_day_of_a_feast_is_never_swapped_for_another(
    countries: CountryNames, holiday_names: HolidayNames, text: str, lang: str
) -> None:
    """Christmas Eve is no German holiday and Easter Monday no Estonian one: the day asked
    stays (the answer then says no), never the feast's other day."""
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert values["validFrom"] == values["validTo"]
    assert values["validFrom"] in ("2026-12-24", "2027-03-29")


JOINED = [
    ("когда в латвии лиго и янов день", "ru", "2027-06-23", "2027-06-24"),
    ("праздники в эстонии на рождество и новый год", "ru", "2026-12-24", "2027-01-01"),
    ("jaanipäev ja võidupüha eestis", "et", "2027-06-23", "2027-06-24"),
    ("jõulud ja uusaasta eestis", "et", "2026-12-24", "2027-01-01"),
    ("christmas and new year in estonia", "en", "2026-12-24", "2027-01-01"),
    ("victory day and midsummer day in estonia", "en", "2027-06-23", "2027-06-24"),
]


@pytest.mark.parametrize(("text", "lang", "first", "last"), JOINED)
def test_two_holidays_joined_by_and_are_both_asked(
    countries: CountryNames, holiday_names: HolidayNames, text: str, lang: str, first: str, last: str
) -> None:
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert (values.get("validFrom"), values.get("validTo")) == (first, last), text


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("when is midsummer day next summer in estonia", "en"),
        ("millal on jaanipäev järgmisel suvel", "et"),
        ("когда иванов день следующим летом в латвии", "ru"),
    ],
)
def test_a_period_said_with_a_holiday_only_says_which_one(
    countries: CountryNames, holiday_names: HolidayNames, text: str, lang: str
) -> None:
    values = _extractor(countries, holiday_names).extract(text, RANGE, language=lang)  # type: ignore[arg-type]
    assert values.get("validFrom") == "2027-06-24" == values.get("validTo"), text


SEASON_ADJECTIVES = {
    "ru": ["зимние", "весенние", "летние", "осенние", "зимних", "летних"],
    "et": ["talvine", "kevadine", "suvine", "sügisene", "sugisene"],
}


@pytest.mark.parametrize(("lang", "word"), [(lang, w) for lang, ws in SEASON_ADJECTIVES.items() for w in ws])
def test_a_seasons_adjective_names_a_break_not_the_season(
    countries: CountryNames, holiday_names: HolidayNames, lang: str, word: str
) -> None:
    extractor = _extractor(countries, holiday_names)
    for text in (f"а {word} когда" if lang == "ru" else f"ja {word}?", word):
        values = extractor.extract(text, RANGE, language=lang)  # type: ignore[arg-type]
        assert "validFrom" not in values, text
    adverb = {"ru": "весной", "et": "kevadel"}[lang]
    assert _extractor(countries, holiday_names).extract(adverb, RANGE, language=lang).get("validFrom")  # type: ignore[arg-type]


SCHOOL = EndpointSpec(
    name="get_school_holidays",
    method="GET",
    url="http://example/SchoolHolidays",
    params=(CallerParam("countryIsoCode", "string", True, "The 2-letter ISO country code"),),
    description="Get school holidays (autumn, Christmas, winter, spring and summer breaks) for a country.",
)
BREAKS = {
    "autumn": {"EN": "Autumn holidays", "ET": "Sügisvaheaeg", "RU": "Осенние каникулы"},
    "christmas": {"EN": "Christmas holidays", "ET": "Jõuluvaheaeg", "RU": "Рождественские каникулы"},
    "winter": {"EN": "Winter holidays", "ET": "Talvevaheaeg", "RU": "Зимние каникулы"},
    "spring": {"EN": "Spring holidays", "ET": "Kevadvaheaeg", "RU": "Весенние каникулы"},
    "summer": {"EN": "Summer holidays", "ET": "Suvevaheaeg", "RU": "Летние каникулы"},
}
ASKED = {
    "en": ["when is the {} break", "and {} break?", "{} holidays dates"],
    "ru": ["когда {}", "а {}?", "{} каникулы когда"],
    "et": ["millal on {}", "ja {}?"],
}
SAID = {
    "en": {k: k for k in BREAKS},
    "ru": {
        "autumn": "осенние",
        "christmas": "рождественские",
        "winter": "зимние",
        "spring": "весенние",
        "summer": "летние",
    },
    "et": {
        "autumn": "sügisvaheaeg",
        "christmas": "jõuluvaheaeg",
        "winter": "talvevaheaeg",
        "spring": "kevadvaheaeg",
        "summer": "suvevaheaeg",
    },
}


def _school_rows(lang: str) -> list[dict[str, object]]:
    start = date(2026, 10, 19)
    rows = []
    for i, (key, names) in enumerate(BREAKS.items()):
        first = start + timedelta(days=60 * i)
        rows.append(
            {
                "id": key,
                "startDate": first.isoformat(),
                "endDate": (first + timedelta(days=6)).isoformat(),
                "name": [{"language": lang.upper(), "text": names[lang.upper()]}],
            }
        )
    return rows


@pytest.mark.parametrize(
    ("lang", "key", "form"), [(lang, key, form) for lang in ASKED for key in BREAKS for form in ASKED[lang]]
)
def test_a_break_named_picks_its_row_though_the_description_lists_it(lang: str, key: str, form: str) -> None:
    table = locate(_school_rows(lang), NO_LABELS, TALLINN)
    assert table is not None
    question = form.format(SAID[lang][key])
    shape: AnswerShape = RuleShapeReader(lambda: TODAY).read(question, lang)  # type: ignore[arg-type]
    from datetime import datetime

    out = answer(table, shape, NO_LABELS, datetime(2026, 12, 2, 10), known_words=endpoint_words(SCHOOL))
    assert [r.data["id"] for r in out.rows] == [key], question


def test_listed_words_are_the_descriptions_lists_only() -> None:
    assert _listed_words(SCHOOL.description) == {"autumn", "christmas", "winter", "spring", "summer"}
    assert (
        _listed_words("Fetch national holidays for a specific country to see when they have days off.")
        == set()
    )
    assert {"school", "holidays"} <= endpoint_words(SCHOOL)


def test_listed_words_read_a_100k_character_description() -> None:
    assert "x" * 10 not in _listed_words("a, b and " * 2000 + "x" * 100_000)
