"""Answer shapes by class, generated over values × forms × languages: a count that opens
the rows asked for with no cue ("list 4 holidays", "какие две каникулы"); a number that
ends a longer one is no count ("lätis 2027 viimane"); a period said after "after" opens
the rows on the day after it ("after this year's midsummer", "peale seda suve", "после
Рождества"), and the request runs a year from there; Russian questions with no verb of
asking that state something to confirm are yes/no; an amount paid altogether is a sum,
and the years listed for it are one call each."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.defaults import Defaults
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.dates import DateMention, _after_it, find_dates
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.schema import ParamSpec
from loop_svc.shapes import (
    _AMOUNT,
    _LISTED_COUNT,
    _STILL_AHEAD,
    RuleShapeReader,
    _count_near,
    _ru_asks_which,
    _ru_states,
    widened,
)
from services.answer_shape import DateRange, Function, Kind, Order

TODAY = date(2027, 6, 21)
READER = RuleShapeReader(lambda: TODAY, lambda: datetime(2027, 6, 21, 10, 0))
TALLINN = ZoneInfo("Europe/Tallinn")
RANGE = [
    ParamSpec(name="countryIsoCode", type="string", required=True, description="The 2-letter country code"),
    ParamSpec(name="validFrom", type="date", required=True, description="Start date of the holidays"),
    ParamSpec(name="validTo", type="date", required=True, description="End date of the holidays"),
]
TAX = [
    ParamSpec(
        name="regNr", type="string", required=True, description="The registration plate (e.g., 123ABC)"
    ),
    ParamSpec(name="calculationYear", type="integer", required=True, description="The year to calculate for"),
]
COUNT_WORDS = {
    "en": {2: "two", 3: "three", 4: "four", 5: "five"},
    "et": {2: "kaks", 3: "kolm", 4: "neli", 5: "viis"},
    "ru": {2: "две", 3: "три", 4: "четыре", 5: "пять"},
}


# A count opening the rows asked for, with no cue: the first rows of that many ----------------

LISTED = [
    ("en", "list {n} finnish public holidays"),
    ("en", "show me {n} holidays in latvia"),
    ("en", "which {n} school breaks come in autumn"),
    ("et", "näita {n} hääletust"),
    ("et", "millised {n} koolivaheaega on sügisel"),
    ("ru", "какие {n} каникулы будут осенью"),
    ("ru", "назови {n} праздника в латвии"),
]


@pytest.mark.parametrize(("language", "pattern"), LISTED)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("as_word", [True, False])
def test_a_count_opening_the_rows_asked_for_is_the_first_that_many(
    language: str, pattern: str, n: int, as_word: bool
) -> None:
    count = COUNT_WORDS[language][n] if as_word else str(n)
    shape = READER.read(pattern.format(n=count), language)  # type: ignore[arg-type]
    assert shape.selection is not None
    assert (shape.selection.order, shape.selection.count) == (Order.FIRST, n)
    assert shape.kind is Kind.COUNT


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "what 24 december holidays are there"),
        ("en", "show the 2 weeks of prices"),
        ("et", "näita 24. detsembri pühi"),
        ("ru", "покажи 24 декабря праздники"),
    ],
)
def test_a_day_or_a_period_after_the_asking_word_is_no_count(language: str, text: str) -> None:
    assert READER.read(text, language).selection is None  # type: ignore[arg-type]


@pytest.mark.parametrize("year", [2025, 2027, 2028, 2030])
@pytest.mark.parametrize(
    ("language", "pattern", "order"),
    [
        ("et", "mis on lätis {y} viimane riigipüha", Order.LATEST),
        ("et", "soome {y} esimene püha", Order.FIRST),
        ("en", "latvia {y} last public holiday", Order.LATEST),
        ("ru", "латвия {y} последний праздник", Order.LATEST),
    ],
)
def test_a_year_before_a_cue_is_no_count(language: str, pattern: str, order: Order, year: int) -> None:
    shape = READER.read(pattern.format(y=year), language)  # type: ignore[arg-type]
    if shape.selection is not None:
        assert shape.selection.count <= 1
        assert shape.kind is not Kind.COUNT


# A period said after "after" -------------------------------------------------------------------

AFTER_FORMS = [
    ("en", "holidays after {day} {month_en}"),
    ("en", "which holidays come after the {day} {month_en}"),
    ("et", "pühad pärast {day}. {month_et}"),
    ("et", "pühad peale {day}. {month_et}"),
    ("ru", "праздники после {day} {month_ru}"),
]
MONTHS_EN = "january february march april may june july august september october november december"
MONTHS_ET = "jaanuari veebruari märtsi aprilli mai juuni juuli augusti septembri oktoobri novembri detsembri"
MONTHS_RU = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря"


@given(day=st.dates(date(2027, 6, 25), date(2027, 12, 15)), form=st.sampled_from(AFTER_FORMS))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_day_said_after_after_opens_the_rows_on_the_next_day(day: date, form: tuple[str, str]) -> None:
    language, pattern = form
    text = pattern.format(
        day=day.day,
        month_en=MONTHS_EN.split()[day.month - 1],
        month_et=MONTHS_ET.split()[day.month - 1],
        month_ru=MONTHS_RU.split()[day.month - 1],
    )
    found = find_dates(text, language, TODAY).dates  # type: ignore[arg-type]
    assert len(found) == 1, text
    assert (found[0].value, found[0].last, found[0].connector) == (day + timedelta(days=1), None, "start")
    shape = READER.read(text, language)  # type: ignore[arg-type]
    ranges = [f.condition for f in shape.filters if isinstance(f.condition, DateRange)]
    assert ranges == [DateRange(day + timedelta(days=1), None)]


@pytest.mark.parametrize(
    ("language", "text", "opens"),
    [
        ("en", "list 4 finnish public holidays after this year's midsummer", date(2027, 6, 27)),
        ("en", "whats the next school break after the summer one", date(2027, 9, 1)),
        ("et", "kaks järgmist koolivaheaega peale seda suve", date(2027, 9, 1)),
        ("et", "pühad jõulude järel", date(2027, 12, 27)),
        ("ru", "праздники в латвии после рождества", date(2027, 12, 27)),
    ],
)
def test_a_named_period_after_after_opens_a_year_of_rows_after_it(
    countries: CountryNames, holiday_names: HolidayNames, language: str, text: str, opens: date
) -> None:
    extractor = RuleExtractor(countries, today=lambda: TODAY, zone=TALLINN, holidays=holiday_names)
    values = extractor.extract(text, RANGE, language=language)  # type: ignore[arg-type]
    assert values["validFrom"] == opens.isoformat()
    assert "validTo" not in values
    filled = Defaults(lambda: TODAY).fill(RANGE, values)
    assert filled["validTo"] == opens.replace(year=opens.year + 1).isoformat()


def test_a_start_said_alone_of_no_calendar_leaves_the_end_to_be_asked() -> None:
    params = [
        ParamSpec(name="startTime", type="date", required=True, description="Start of the stay"),
        ParamSpec(name="endTime", type="date", required=True, description="End of the stay"),
    ]
    assert Defaults(lambda: TODAY).fill(params, {"startTime": "2027-07-01"}) == {}


# Russian questions that state something to confirm --------------------------------------------

RU_YES_NO = [
    "завтра выходной?",
    "сегодня праздник?",
    "у детей сейчас каникулы?",
    "у финнов 6 декабря праздник?",
    "у латышей завтра выходной?",
    "закон о подоходном налоге приняли?",
    "осенние каникулы в этом году с понедельника начинаются?",
    "голосование прошло?",
    "электричество дешевле вечером?",
    "24 февраля в латвии тоже праздник как у нас?",
]
RU_REQUESTS = [
    "цены на завтра?",
    "праздники в латвии?",
    "а в латвии?",
    "покажешь цены на завтра?",
    "скажете праздники в мае?",
    "24 декабря цены?",
    "завтра цены?",
    "последние голосования?",
    "какие праздники будут в мае?",
    "когда начинаются каникулы?",
]


@pytest.mark.parametrize("text", RU_YES_NO)
def test_a_russian_question_that_states_something_is_yes_no(text: str) -> None:
    assert READER.read(text, "ru").kind is Kind.YES_NO


@pytest.mark.parametrize("text", RU_REQUESTS)
def test_a_russian_request_with_a_question_mark_is_no_yes_no(text: str) -> None:
    assert READER.read(text, "ru").kind is not Kind.YES_NO


# An amount altogether is a sum; its years are one call each -----------------------------------


@pytest.mark.parametrize(
    ("language", "text", "function"),
    [
        ("et", "kui palju ma kokku maksan auto 777XYZ eest 2027 ja 2028 aasta maksu", Function.SUM),
        ("et", "palju 123ABC maks kokku oli 2025 ja 2026 eest", Function.SUM),
        ("ru", "сколько всего налога за 123ABC получается за 2025, 2026 и 2027 вместе?", Function.SUM),
        ("en", "how much tax in total for 123ABC for 2025 and 2026", Function.SUM),
        ("en", "how many public holidays in total in 2027", Function.COUNT),
        ("et", "mitu riigipüha eestis tänavu kokku", Function.COUNT),
        ("ru", "сколько всего праздников в этом году", Function.COUNT),
    ],
)
def test_an_amount_altogether_is_a_sum_and_rows_altogether_a_count(
    language: str, text: str, function: Function
) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is not None and shape.aggregation.function is function


@given(years=st.lists(st.integers(2020, 2030), min_size=2, max_size=4, unique=True))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_years_listed_for_a_year_parameter_are_one_call_each(
    countries: CountryNames, years: list[int]
) -> None:
    written = ", ".join(str(y) for y in years[:-1]) + f" and {years[-1]}"
    text = f"total tax for 123ABC for {written}"
    extractor = RuleExtractor(countries, today=lambda: TODAY, zone=TALLINN)
    values = extractor.extract(text, TAX, language="en")
    assert extractor.alternatives(text, TAX, values=values, language="en") == {
        "calculationYear": [str(y) for y in years]
    }


def test_one_year_is_no_alternatives(countries: CountryNames) -> None:
    extractor = RuleExtractor(countries, today=lambda: TODAY, zone=TALLINN)
    values = extractor.extract("tax for 123ABC in 2026", TAX, language="en")
    assert extractor.alternatives("tax for 123ABC in 2026", TAX, values=values, language="en") == {}


# Rows still ahead: from today on ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "and how many are still to come"),
        ("en", "what holidays are remaining this year"),
        ("en", "which breaks are yet to come"),
        ("et", "mitu riigipüha on tänavu veel ees"),
        ("et", "millised vaheajad on veel tulemas"),
        ("ru", "сколько праздников ещё впереди в этом году"),
        ("ru", "какие предстоящие каникулы"),
        ("ru", "оставшиеся праздники этого года"),
    ],
)
def test_rows_still_ahead_are_the_rows_from_today(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    ranges = [f.condition for f in shape.filters if isinstance(f.condition, DateRange)]
    assert ranges == [DateRange(TODAY, None)]


# Long adversarial input reads promptly --------------------------------------------------------

LONG = [
    "after the " * 10_000,
    "still " * 16_600 + "yet",
    "ещё " * 25_000,
    "list 4 " * 14_300,
    "у " + "детей " * 16_600 + "?",
    "как у " * 16_600 + "?",
    "2027 viimane " * 7_700,
    "kokku maks " * 9_100,
    "завтра " * 14_300 + "выходной?",
    "a" * 100_000,
    "4" * 100_000,
]


@pytest.mark.parametrize("text", LONG)
def test_the_new_readers_take_long_input(text: str) -> None:
    # The pieces this file's classes added, each over the whole text (the reader as a
    # whole is held to shorter input by the edge's message limit).
    assert _LISTED_COUNT.search(text) is None or text.startswith("list")
    assert _AMOUNT.search(text) is None or "maks" in text
    assert _STILL_AHEAD.search(text) is None
    assert isinstance(_ru_states(text), bool)
    assert isinstance(_ru_asks_which(text), bool)
    assert _count_near(text, len(text), len(text)) is None or text.startswith(("list", "4"))
    mention = DateMention(TODAY, len(text) // 2, len(text) // 2 + 1)
    assert _after_it(text, mention).value in (TODAY, TODAY + timedelta(days=1))


# A yes/no about one day of a calendar asks for the week around it ----------------------------

WIDENED_RANGE = [
    ParamSpec(name="countryIsoCode", type="string", required=True, description="The 2-letter country code"),
    ParamSpec(name="validFrom", type="date", required=True, description="Start date of the holidays"),
    ParamSpec(name="validTo", type="date", required=True, description="End date of the holidays"),
]


@given(day=st.dates(date(2027, 6, 22), date(2027, 12, 15)), form=st.sampled_from(range(3)))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_yes_no_about_one_day_asks_for_the_week_around_it(day: date, form: int) -> None:
    language, text = [
        ("en", f"is {day.day} {MONTHS_EN.split()[day.month - 1]} a public holiday in germany"),
        ("et", f"kas {day.day}. {MONTHS_ET.split()[day.month - 1]}l on riigipüha"),
        ("ru", f"{day.day} {MONTHS_RU.split()[day.month - 1]} выходной?"),
    ][form]
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.kind is Kind.YES_NO
    asked = {"countryIsoCode": "DE", "validFrom": day.isoformat(), "validTo": day.isoformat()}
    out = widened(asked, WIDENED_RANGE, shape)
    assert out["validFrom"] == (day - timedelta(days=7)).isoformat()
    assert out["validTo"] == (day + timedelta(days=7)).isoformat()
    # a list of the day's rows asks for that day alone
    listed = READER.read(f"holidays on {day.day} {MONTHS_EN.split()[day.month - 1]}", "en")
    assert widened(asked, WIDENED_RANGE, listed)["validFrom"] == day.isoformat()


@pytest.mark.parametrize(
    ("language", "text", "day"),
    [
        ("en", "prices after work tomorrow", date(2027, 6, 22)),
        ("et", "hinnad pärast tööd homme", date(2027, 6, 22)),
        ("ru", "цены после работы завтра", date(2027, 6, 22)),
    ],
)
def test_after_something_else_leaves_the_day_as_it_is(language: str, text: str, day: date) -> None:
    found = find_dates(text, language, TODAY).dates  # type: ignore[arg-type]
    assert [(m.value, m.connector) for m in found] == [(day, None)]
