"""Several values of one parameter in one message ("holidays in Finland and Latvia in May",
"vehicle tax for 456ABC and 789XYZ", "праздники в Литве или Латвии"): one call per value,
in the message's order, each with the values the message shares (the month, the year).
Generated over languages x value kinds (plates, countries in their case forms) x joiners x
two or three values; a value replaced or negated ("Latvia instead of Finland") is no list."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.loop import Complete, TurnLoop
from services.language import Lang
from tests.loop.test_loop_multi_intent_parts import ENDPOINTS

TODAY = date(2026, 12, 3)
PLATES = ("123ABC", "456XYZ", "789GHI", "512KLM", "900EEE")
# Country names in the case form each template takes, with their codes.
COUNTRIES: dict[Lang, list[tuple[str, str]]] = {
    "en": [("Finland", "FI"), ("Latvia", "LV"), ("Lithuania", "LT"), ("Germany", "DE"), ("Estonia", "EE")],
    "et": [("Soomes", "FI"), ("Lätis", "LV"), ("Leedus", "LT"), ("Saksamaal", "DE"), ("Eestis", "EE")],
    "ru": [("Финляндии", "FI"), ("Латвии", "LV"), ("Литве", "LT"), ("Германии", "DE"), ("Эстонии", "EE")],
}
JOINERS: dict[Lang, tuple[str, ...]] = {
    "en": (" and ", " or ", ", ", " vs ", " & "),
    "et": (" ja ", " või ", ", ", " ning "),
    "ru": (" и ", " или ", ", ", " либо "),
}
TAX: dict[Lang, tuple[str, ...]] = {
    "en": ("vehicle tax for {values} in 2026", "which one costs more to tax in 2026, {values}?"),
    "et": ("{values} sõidukimaks 2026. aastaks", "palju on 2026. aasta automaks {values}"),
    "ru": ("налог на машину {values} за 2026 год", "у какой машины налог больше за 2026 год — {values}?"),
}
HOLIDAYS: dict[Lang, tuple[str, ...]] = {
    "en": ("public holidays in {values} in May 2027", "holidays in May 2027 in {values}"),
    "et": ("riigipühad {values} 2027. aasta mais",),
    "ru": ("праздники в {values} в мае 2027",),
}


@pytest.fixture(scope="module")
def loop() -> TurnLoop:
    return TurnLoop(RuleExtractor(CountryNames(), today=lambda: TODAY, holidays=HolidayNames()))


def _listing(values: list[str], lang: Lang, joiner: str, last: str) -> str:
    return joiner.join(values[:-1]) + last + values[-1]


def _calls(loop: TurnLoop, endpoint: str, message: str, lang: Lang) -> list[dict[str, str]]:
    session = loop.new_session("chat", [ENDPOINTS[endpoint]], language=lang, original_query=message)
    step = loop.advance(session, message)
    assert isinstance(step.result, Complete), step.result
    return [c.params for c in step.result.calls]


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@given(data=st.data())
@settings(max_examples=25, deadline=None)
def test_listed_plates_each_get_a_call(loop: TurnLoop, lang: Lang, data: st.DataObject) -> None:
    plates = data.draw(st.lists(st.sampled_from(PLATES), min_size=2, max_size=3, unique=True))
    joiner = data.draw(st.sampled_from(JOINERS[lang]))
    last = data.draw(st.sampled_from([joiner, JOINERS[lang][0]]))
    template = data.draw(st.sampled_from(TAX[lang]))
    calls = _calls(
        loop, "get_vehicle_tax_info", template.format(values=_listing(plates, lang, joiner, last)), lang
    )
    assert [c["regNr"] for c in calls] == plates
    assert {c["calculationYear"] for c in calls} == {"2026"}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@given(data=st.data())
@settings(max_examples=25, deadline=None)
def test_listed_countries_each_get_a_call_with_the_shared_period(
    loop: TurnLoop, lang: Lang, data: st.DataObject
) -> None:
    countries = data.draw(st.lists(st.sampled_from(COUNTRIES[lang]), min_size=2, max_size=3, unique=True))
    joiner = data.draw(st.sampled_from(JOINERS[lang]))
    template = data.draw(st.sampled_from(HOLIDAYS[lang]))
    names = [name for name, _ in countries]
    calls = _calls(
        loop, "get_national_holidays", template.format(values=_listing(names, lang, joiner, joiner)), lang
    )
    assert [c["countryIsoCode"] for c in calls] == [code for _, code in countries]
    periods = {tuple(v for k, v in c.items() if k != "countryIsoCode") for c in calls}
    assert len(periods) == 1  # May 2027 for each


@pytest.mark.parametrize(
    ("lang", "message", "code"),
    [
        ("en", "public holidays in Latvia instead of Finland in May 2027", "LV"),
        ("en", "public holidays in Finland, not Latvia, in May 2027", "FI"),
        ("ru", "праздники в Латвии вместо Финляндии в мае 2027", "LV"),
        ("en", "public holidays in Finland in May 2027", "FI"),
    ],
)
def test_one_value_is_one_call(loop: TurnLoop, lang: Lang, message: str, code: str) -> None:
    calls = _calls(loop, "get_national_holidays", message, lang)
    assert [c["countryIsoCode"] for c in calls] == [code]


def test_at_most_three_calls_for_a_long_list(loop: TurnLoop) -> None:
    calls = _calls(loop, "get_vehicle_tax_info", "tax in 2026 for " + ", ".join(PLATES), "en")
    assert [c["regNr"] for c in calls] == list(PLATES[:3])


DAY_WORDS: dict[Lang, list[tuple[str, int]]] = {
    "en": [("today", 0), ("tomorrow", 1), ("yesterday", -1)],
    "et": [("täna", 0), ("homme", 1), ("eile", -1)],
    "ru": [("сегодня", 0), ("завтра", 1), ("вчера", -1)],
}
PRICES: dict[Lang, tuple[str, ...]] = {
    "en": ("compare electricity {values}", "average electricity price {values}"),
    "et": ("võrdle elektri hinda {values}", "elektri keskmine hind {values}"),
    "ru": ("сравни среднюю цену электричества {values}", "цена на электричество {values}"),
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@given(data=st.data())
@settings(max_examples=20, deadline=None)
def test_listed_days_each_get_their_own_day(loop: TurnLoop, lang: Lang, data: st.DataObject) -> None:
    days = data.draw(st.lists(st.sampled_from(DAY_WORDS[lang]), min_size=2, max_size=2, unique=True))
    joiner = data.draw(st.sampled_from(JOINERS[lang][:2]))
    template = data.draw(st.sampled_from(PRICES[lang]))
    message = template.format(values=joiner.join(word for word, _ in days))
    calls = _calls(loop, "get_electricity_prices", message, lang)
    starts = [date.fromisoformat(next(v for k, v in c.items() if "start" in k.lower())[:10]) for c in calls]
    ends = [date.fromisoformat(next(v for k, v in c.items() if "end" in k.lower())[:10]) for c in calls]
    expected = [date.fromordinal(TODAY.toordinal() + shift) for _, shift in days]
    assert starts == expected and ends == expected, message


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "electricity prices from today to tomorrow"),
        ("en", "electricity prices between today and tomorrow"),
        ("ru", "цены на электричество с сегодня до завтра"),
        ("et", "elektri hinnad täna ja homme vahel"),
    ],
)
def test_the_ends_of_a_range_are_one_call(loop: TurnLoop, lang: Lang, message: str) -> None:
    assert len(_calls(loop, "get_electricity_prices", message, lang)) == 1
