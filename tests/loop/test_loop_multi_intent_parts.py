"""A message with two requests: each endpoint's values come from its own part.

Generated over the grammar "<request A> <conjunction> <request B>" in en/et/ru, with
requests for four endpoints and several value kinds each (plate, year, address, country,
month, relative day, a day and month). The parts are the classifier's split
(classifier_svc.multi_intent.split_intents), routed as gold. Property: each endpoint's
values equal those its part gives when it is the whole message; a value stated once for
both is shared with a part that states none of its kind, never across kinds."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.multi_intent import split_intents
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.loop import TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.session import Session
from services.language import Lang

TODAY = date(2026, 3, 10)
CATALOGUE = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis" / "catalogue.json"

# Per language: the phrasings of one request per endpoint, with the value kinds they state.
PLATES = ("123ABC", "456XYZ", "789GHI", "512KLM")
YEARS = ("2025", "2027")
ADDRESSES = ("Viru 4 Tallinn", "Suur-Sepa 16 Pärnu", "Narva mnt 7 Tallinn")
COUNTRIES = {
    "en": ("Latvia", "Finland", "Germany", "Estonia"),
    "et": ("Lätis", "Soomes", "Saksamaal", "Eestis"),
    "ru": ("Латвии", "Финляндии", "Германии", "Эстонии"),
}
MONTHS = {
    "en": ("January", "May", "December"),
    "et": ("jaanuaris", "mais", "detsembris"),
    "ru": ("январе", "мае", "декабре"),
}
DAYS = {"en": ("tomorrow", "today"), "et": ("homme", "täna"), "ru": ("завтра", "сегодня")}
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "get_vehicle_tax_info": ("what's the car tax for {plate}", "vehicle tax of {plate} for {year}"),
        "search_address": ("the postcode of {address}", "find the address {address}"),
        "get_national_holidays": (
            "which public holidays are there in {country} in {month}",
            "is 24 dec a public holiday in {country}",
        ),
        "get_electricity_prices": ("the electricity price {day}", "cheapest electricity hour {day}"),
    },
    "et": {
        "get_vehicle_tax_info": ("palju on {plate} automaks", "arvuta {plate} sõidukimaks {year}. aastaks"),
        "search_address": ("mis on {address} postiindeks", "leia aadress {address}"),
        "get_national_holidays": (
            "millised riigipühad on {country} {month}",
            "kas 24. detsember on {country} püha",
        ),
        "get_electricity_prices": ("mis on elektri hind {day}", "millal on elekter {day} kõige odavam"),
    },
    "ru": {
        "get_vehicle_tax_info": (
            "сколько налог на машину {plate}",
            "налог на автомобиль {plate} за {year} год",
        ),
        "search_address": ("почтовый индекс {address}", "найди адрес {address}"),
        "get_national_holidays": ("какие праздники в {country} в {month}", "24 декабря праздник в {country}"),
        "get_electricity_prices": ("цена электричества {day}", "когда электричество {day} дешевле всего"),
    },
}
# "+" and "&" join two requests in every language ("latest vote + price right now").
CONJUNCTIONS = {
    "en": (" and ", ", and also ", " plus ", " + ", " & "),
    "et": (" ja ", " ning ", ", ja ka ", " + ", " & "),
    "ru": (" и ", ", а также ", " + ", " & "),
}


def _catalogue() -> dict[str, EndpointSpec]:
    return {
        e["name"]: EndpointSpec(
            name=e["name"],
            params=[
                ParamSpec(
                    name=p["name"],
                    type=p.get("type") or "string",
                    required=bool(p.get("required")),
                    description=p.get("description", ""),
                )
                for p in e["params"]
            ],
        )
        for e in json.loads(CATALOGUE.read_text())
    }


ENDPOINTS = _catalogue()


@pytest.fixture(scope="module")
def loop() -> TurnLoop:
    return TurnLoop(RuleExtractor(CountryNames(), today=lambda: TODAY, holidays=HolidayNames()))


def _collected(
    loop: TurnLoop, message: str, endpoints: list[str], lang: Lang, parts: list[str] | None
) -> Session:
    session = loop.new_session(
        "chat", [ENDPOINTS[e] for e in endpoints], language=lang, original_query=message
    )
    if parts is not None:
        session.parts = dict(zip(endpoints, parts, strict=True))
    step = loop.advance(session, message)
    found = step.session or step.finished
    assert found is not None, step.result
    return found


@st.composite
def two_requests(draw: st.DrawFn) -> tuple[str, str, str, str, str, str]:
    lang = draw(st.sampled_from(sorted(TEMPLATES)))
    first, second = draw(st.permutations(sorted(TEMPLATES[lang])))[:2]
    values = {
        "plate": draw(st.sampled_from(PLATES)),
        "year": draw(st.sampled_from(YEARS)),
        "address": draw(st.sampled_from(ADDRESSES)),
        "country": draw(st.sampled_from(COUNTRIES[lang])),
        "month": draw(st.sampled_from(MONTHS[lang])),
        "day": draw(st.sampled_from(DAYS[lang])),
    }
    a = draw(st.sampled_from(TEMPLATES[lang][first])).format(**values)
    b = draw(st.sampled_from(TEMPLATES[lang][second])).format(**values)
    joined = a + draw(st.sampled_from(CONJUNCTIONS[lang])) + b + draw(st.sampled_from(("", "?", ".")))
    return lang, joined, first, a, second, b


@settings(max_examples=150, deadline=None)
@given(two_requests())
def test_each_request_gets_the_values_of_its_own_part(loop: TurnLoop, case: tuple[str, ...]) -> None:
    code, message, first, a, second, b = case
    lang = cast(Lang, code)
    parts = split_intents(message, 3)
    assert parts == [a, b]  # the classifier's split is the two requests
    both = _collected(loop, message, [first, second], lang, parts)
    for endpoint, part in ((first, a), (second, b)):
        alone = _collected(loop, part, [endpoint], lang, None)
        assert both.collected.get(endpoint, {}) == alone.collected.get(endpoint, {}), (message, endpoint)


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "which public holidays are there and when are the school holidays in December"),
        ("et", "millised riigipühad on ja millal on koolivaheajad detsembris"),
        ("ru", "какие госпраздники и какие школьные каникулы в декабре"),
    ],
)
def test_a_value_stated_once_at_the_end_serves_both(loop: TurnLoop, lang: Lang, message: str) -> None:
    endpoints = ["get_national_holidays", "get_school_holidays"]
    both = _collected(loop, message, endpoints, lang, split_intents(message, 3))
    december = {"validFrom": "2026-12-01", "validTo": "2026-12-31"}
    for endpoint in endpoints:
        assert december.items() <= both.collected[endpoint].items(), endpoint


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "which school holidays are there in December and which public holidays fall in that time"),
        ("et", "millised koolivaheajad on detsembris ja mis riigipühad sinna jäävad"),
        ("ru", "какие школьные каникулы в декабре и какие праздники приходятся на это время"),
    ],
)
def test_a_period_stated_once_at_the_start_serves_the_part_that_refers_to_it(
    loop: TurnLoop, lang: Lang, message: str
) -> None:
    endpoints = ["get_school_holidays", "get_national_holidays"]
    parts = split_intents(message, 3)
    both = _collected(loop, message, endpoints, lang, parts)
    alone = _collected(loop, parts[0], endpoints[:1], lang, None).collected["get_school_holidays"]
    assert alone  # the month gives dates
    assert both.collected["get_national_holidays"].items() >= alone.items()


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "cheapest electricity hour tomorrow and when do the school holidays start"),
        ("et", "millal on elekter homme kõige odavam ja millal algab koolivaheaeg"),
        ("ru", "когда электричество завтра дешевле всего и когда начинаются школьные каникулы"),
    ],
)
def test_a_value_of_another_kind_is_not_shared(loop: TurnLoop, lang: Lang, message: str) -> None:
    endpoints = ["get_electricity_prices", "get_school_holidays"]
    both = _collected(loop, message, endpoints, lang, split_intents(message, 3))
    assert both.collected["get_electricity_prices"]["start"].startswith("2026-03-11")
    assert "validFrom" not in both.collected.get("get_school_holidays", {})


def test_a_later_turn_reads_the_whole_message_for_every_endpoint(loop: TurnLoop) -> None:
    """The parts are of the first message; an answer to the question asked is for both."""
    message = "the postcode of Viru 4 Tallinn and the public holidays in Latvia"
    endpoints = ["search_address", "get_national_holidays"]
    session = _collected(loop, message, endpoints, "en", split_intents(message, 3))
    step = loop.advance(session, "in May")
    done = step.session or step.finished
    assert done is not None
    assert done.collected["get_national_holidays"]["validFrom"] == "2026-05-01"
    assert done.collected["search_address"] == {"address": "Viru 4, Tallinn"}
