"""Deterministic formatter and summary on real demo-API data, with the catalogue's labels."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from google.protobuf import json_format

from atc.common.v1 import catalogue_pb2
from caller_svc.formatter import DeterministicFormatter, ResultToFormat, format_when
from caller_svc.json_view import humanize_key, humanize_name
from caller_svc.locale_format import format_number
from caller_svc.servicer import label_book
from caller_svc.summary import summarize
from devtools.demo_apis.app import create_app
from devtools.demo_apis.catalogue import load_catalogue


@pytest.fixture()
async def demo() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as c:
        yield c


async def _get(client: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await client.get(path, params=params)
    assert response.status_code == 200
    return response.json()


async def _holidays(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    return await _get(
        client, "/PublicHolidays", countryIsoCode="EE", validFrom="2026-01-01", validTo="2026-12-31"
    )


HOLIDAYS_EE = {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"}
# Label words of the demo catalogue that are English and must never reach et/ru readers.
ENGLISH_LABELS = ("Registration", "Annual", "Vehicle", "Fuel", "Price", "Tax", "Make", "Result", "Found")


def demo_result(name: str, data: Any, params: dict[str, str] | None = None) -> ResultToFormat:
    """What the servicer builds: the catalogue endpoint's labels, params and their types."""
    body = next(b for b in load_catalogue("http://demo") if b["name"] == name)
    endpoint = json_format.ParseDict(body, catalogue_pb2.Endpoint(), ignore_unknown_fields=True)
    return ResultToFormat(
        name,
        True,
        data,
        params=params or {},
        param_types={p.name: p.type for p in endpoint.params},
        labels=label_book(endpoint),
    )


def fmt(result: ResultToFormat, lang: str, **kw: Any) -> str:
    return DeterministicFormatter(time_zone="Europe/Tallinn", **kw).format([result], lang)  # type: ignore[arg-type]


async def test_holidays_in_english(demo) -> None:
    text = fmt(demo_result("get_national_holidays", await _holidays(demo), HOLIDAYS_EE), "en")
    lines = text.splitlines()
    assert lines[0] == "Public holidays — Estonia, 2026. 12 results:"
    assert lines[1] == "• New Year's Day — 1 Jan 2026"
    assert "• Good Friday — 3 Apr 2026" in lines
    # 12 is within half again the cap of 10: the whole list, no "…and 2 more".
    assert lines[-1] == "• Boxing Day — 26 Dec 2026"
    assert len([line for line in lines if line.startswith("• ")]) == 12


async def test_holidays_in_estonian_use_estonian_names_and_labels(demo) -> None:
    text = fmt(demo_result("get_national_holidays", await _holidays(demo), HOLIDAYS_EE), "et", max_items=20)
    lines = text.splitlines()
    assert lines[0] == "Riigipühad — Eesti, 2026. 12 tulemust:"
    assert lines[1] == "• uusaasta — 1. jaanuar 2026"
    assert "• jaanipäev — 24. juuni 2026" in lines
    assert "New Year" not in text and "Public" not in text


async def test_corrected_country_is_named_in_russian(demo) -> None:
    params = {"countryIsoCode": "LV", "validFrom": "2026-01-01", "validTo": "2026-03-31"}
    latvia = await _get(demo, "/PublicHolidays", **params)
    text = fmt(demo_result("get_national_holidays", latvia, params), "ru")
    assert (
        text.splitlines()[0]
        == "Государственные праздники — Латвия, 1 января 2026 – 31 марта 2026. Найдено: 1."
    )


async def test_school_holiday_spans(demo) -> None:
    params = {"countryIsoCode": "EE", "validFrom": "2026-02-01", "validTo": "2026-02-28"}
    school = await _get(demo, "/SchoolHolidays", **params)
    assert "• Winter holidays — 23 Feb 2026 – 1 Mar 2026" in fmt(
        demo_result("get_school_holidays", school, params), "en"
    )
    assert "• Talvevaheaeg — 23. veebruar 2026 – 1. märts 2026" in fmt(
        demo_result("get_school_holidays", school, params), "et"
    )


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        ("et", ["Mootorsõidukimaks — Registreerimisnumber 123ABC, Maksuaasta 2026:", "  Kütus: bensiin",
                "  Täismass: {mass} kg", "  Aastamaks: {annual} €"]),
        ("ru", ["Налог на транспортное средство — Регистрационный номер 123ABC, Налоговый год 2026:",
                "  Топливо: бензин", "  Полная масса: {mass} кг", "  Годовой налог: {annual} €"]),
        ("en", ["Motor vehicle tax — Registration number 123ABC, Tax year 2026:", "  Fuel: petrol",
                "  Gross mass: {mass} kg", "  Annual tax: {annual} €"]),
    ],
)  # fmt: skip
async def test_vehicle_tax_with_localized_labels_values_and_units(demo, lang, lines) -> None:
    params = {"regNr": "123ABC", "calculationYear": "2026"}
    tax = await _get(demo, "/vehicle-tax", **params)
    text = fmt(demo_result("get_vehicle_tax_info", tax, params), lang)
    values = {
        "mass": format_number(tax["vehicle"]["fullMassKg"], lang),
        "annual": format_number(tax["tax"]["annualTax"], lang),
    }
    for line in lines:
        assert line.format(**values) in text.splitlines()
    if lang != "en":
        assert not [word for word in ENGLISH_LABELS if word in text], text


@pytest.mark.parametrize("lang", ["et", "ru"])
async def test_no_english_labels_in_any_demo_answer(demo, lang) -> None:
    cases = [
        ("get_electricity_prices", "/electricity-prices", {"start": "2026-01-01T00:00:00Z",
                                                           "end": "2026-01-02T00:00:00Z"}),
        ("search_address", "/address-search", {"address": "Viru tn 4, Tallinn"}),
        ("get_parliament_votings", "/votings", {"limit": "3"}),
        ("get_school_holidays", "/SchoolHolidays", HOLIDAYS_EE),
    ]  # fmt: skip
    for name, path, params in cases:
        text = fmt(demo_result(name, await _get(demo, path, **params), params), lang)
        assert not [word for word in ENGLISH_LABELS if word in text], text
        assert "Unit" not in text and "Price" not in text


async def test_votings_pick_the_users_language(demo) -> None:
    votings = await _get(demo, "/votings", limit="2")
    english = fmt(demo_result("get_parliament_votings", votings, {"limit": "2"}), "en")
    estonian = fmt(demo_result("get_parliament_votings", votings, {"limit": "2"}), "et")
    assert votings[0]["titleEn"] in english and votings[0]["title"] in estonian
    assert f"for {votings[0]['result']['for']}" in english
    assert f"poolt {votings[0]['result']['for']}" in estonian
    assert "18 Feb 2026" in english


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ("for", "against", "abstained", "absent")),
        ("et", ("poolt", "vastu", "erapooletu", "puudus")),
        ("ru", ("за", "против", "воздержались", "отсутствовали")),
    ],
)
async def test_every_vote_line_has_all_four_counts(demo, lang, words) -> None:
    """A voting's number takes no count's place in its line: for, against, abstained and
    absent all show, for every vote of the record."""
    votings = await _get(demo, "/votings", limit="100")
    text = fmt(demo_result("get_parliament_votings", votings, {"limit": "100"}), lang)
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert bullets
    by_number = {str(v["votingNumber"]): v for v in votings}
    for line in bullets:
        voting = next(v for n, v in by_number.items() if f" {n}," in line or f" {n} " in line)
        result = voting["result"]
        for word, key in zip(words, ("for", "against", "abstained", "absent"), strict=True):
            assert f"{word} {result[key]}" in line, line


async def test_long_lists_are_summarised_in_the_configured_time_zone(demo) -> None:
    params = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-01T23:00:00Z"}
    prices = await _get(demo, "/electricity-prices", **params)
    text = fmt(demo_result("get_electricity_prices", prices, params), "et")
    lines = text.splitlines()
    # 00:00 UTC is 02:00 in Tallinn in winter.
    assert lines[0] == "Elektri börsihinnad — 1. jaanuar 2026, 02:00 – 2. jaanuar 2026, 01:00:"
    bullets = [line for line in lines if line.startswith("• ")]
    assert len(bullets) == 10
    # Two local days: each hour with its day, as a local hour slot.
    assert bullets[0].startswith("• neljapäev, 1. jaanuar 2026 kell 02:00–03:00 — ")
    assert any(line.startswith("…ja veel 14") for line in lines)
    series = prices["data"]["ee"]
    low, high = min(p["price"] for p in series), max(p["price"] for p in series)
    average = round(sum(p["price"] for p in series) / len(series), 2)
    assert f"Hind keskmiselt: {format_number(average, 'et')} €/MWh" in lines
    assert lines[-2].startswith(f"Madalaim: {format_number(low, 'et')} €/MWh (")
    assert lines[-1].startswith(f"Kõrgeim: {format_number(high, 'et')} €/MWh (")


def test_multi_result_sections_and_failures() -> None:
    text = DeterministicFormatter().format(
        [
            ResultToFormat(
                "search_address", True, {"count": 1, "addresses": [{"fullAddress": "Viru tn 4, Tallinn"}]}
            ),
            ResultToFormat("get_vehicle_tax_info", False, "", "Teenus ei ole praegu kättesaadav."),
        ],
        "et",
    )
    sections = text.split("\n\n")
    assert sections[0] == "Siin on vastused teie 2 päringule:"
    assert sections[1].startswith("1. Päringu tulemus:\n")
    assert "• Viru tn 4, Tallinn" in sections[1]
    assert sections[2] == "2. Päringu tulemus: Teenus ei ole praegu kättesaadav."


def test_empty_and_failed_single_results() -> None:
    formatter = DeterministicFormatter()
    assert formatter.format([ResultToFormat("get_x", True, [])], "en") == "X: There are none."
    assert formatter.format([ResultToFormat("x", True, [])], "ru") == "Результат запроса: Ничего нет."
    assert (
        formatter.format([ResultToFormat("x", False, {"errors": {}}, "Viga.")], "et")
        == "Päringu tulemus: Viga."
    )


def test_dates_numbers_and_names() -> None:
    assert format_when("2026-01-01", "en") == "1 Jan 2026"
    assert format_when("2026-12-24", "et") == "24. detsember 2026"
    assert format_when("2026-03-08", "ru") == "8 марта 2026"
    assert format_when("2026-01-01T18:30:00Z", "en") == "1 Jan 2026, 18:30 UTC"
    assert format_number(1298.3, "et") == "1298,3" and format_number(12345.5, "ru") == "12\u00a0345,5"
    assert format_number(12345, "en") == "12,345"
    assert humanize_key("fullMassKg") == "Full mass kg"
    assert humanize_key("postal_code") == "Postal code"
    assert humanize_name("get_national_holidays") == "National holidays"


async def test_summaries_follow_fr06(demo) -> None:
    holidays = summarize(await _holidays(demo))
    # The row count and the rows' fields: a model reading only the summary knows when to fetch.
    assert holidays.startswith("The API returned a list. 12 items, each with id, startDate, endDate, ")
    assert "Dates range from 2026-01-01 to 2026-12-26." in holidays
    assert "First: New Year's Day (2026-01-01)" in holidays
    assert 3 <= holidays.count(". ") + 1 <= 6
    votings = summarize(await _get(demo, "/votings", limit="10"))
    assert "Status split accepted:" in votings and "Top type:" in votings and "Totals:" in votings
    tax = await _get(demo, "/vehicle-tax", regNr="123ABC", calculationYear="2026")
    assert f"annualTax {tax['tax']['annualTax']}" in summarize(tax)
    address = summarize(await _get(demo, "/address-search", address="Viru tn 4, Tallinn"))
    assert "1 item in addresses" in address and "Viru tn 4" in address
    assert summarize([]) == "The API returned an empty response."
    assert summarize("hello") == "The API returned text: hello"


_VOTES = [
    {"votingNumber": 401, "title": "Bill on weapons", "for": 67, "against": 9, "accepted": True},
    {"votingNumber": 408, "title": "Motion to reject a bill", "for": 29, "against": 56, "accepted": False},
    {"votingNumber": 411, "title": "Climate bill", "for": 55, "against": 27, "accepted": True},
]
_COUNTED = {"en": "1 in total.", "et": "Kokku 1.", "ru": "Всего: 1."}
_ENDS = {
    "en": ("Lowest:", "Highest:"),
    "et": ("Madalaim:", "Kõrgeim:"),
    "ru": ("Самое низкое", "Самое высокое"),
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_how_many_of_the_rows_is_counted_also_when_the_words_name_their_number(lang: str) -> None:
    from services.answer_shape import Aggregation, AnswerShape, Function, Kind

    # "how many of the votes failed": "votes" names the voting's number, the rows are counted.
    shape = AnswerShape(
        Kind.AGGREGATE, aggregation=Aggregation(Function.COUNT), terms=("voting", "not", "accepted"),
        question="how many votings were not accepted",
    )  # fmt: skip
    text = DeterministicFormatter().format([ResultToFormat("votings", True, _VOTES, shape=shape)], lang)
    assert _COUNTED[lang] in text, text
    assert "Motion to reject" in text and "Climate bill" not in text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_both_extremes_of_rows_name_each_row(lang: str) -> None:
    from services.answer_shape import Aggregation, AnswerShape, Function, Kind

    shape = AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.RANGE, ("against",)))
    text = DeterministicFormatter().format([ResultToFormat("votings", True, _VOTES, shape=shape)], lang)
    low, high = _ENDS[lang]
    low_line = next(line for line in text.splitlines() if line.startswith(low))
    high_line = next(line for line in text.splitlines() if line.startswith(high))
    assert "Bill on weapons" in low_line and "Motion to reject" in high_line, text


_TOGETHER = {"en": "All together: 1656.47", "et": "Kõik kokku: 1656,47", "ru": "Всё вместе: 1656,47"}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_total_asked_of_several_results_adds_their_totals(lang: str) -> None:
    from services.answer_shape import Aggregation, AnswerShape, Function, Kind

    # "total car tax this year for both my cars": each car's total, then both together.
    shape = AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.SUM), terms=("tax",))
    results = [
        ResultToFormat("vehicle_tax", True, {"regNr": plate, "annualTax": tax}, shape=shape)
        for plate, tax in (("123ABC", 1168.47), ("777KLM", 488))
    ]
    text = DeterministicFormatter().format(results, lang)
    assert text.rstrip().endswith(_TOGETHER[lang]), text
    one = DeterministicFormatter().format(results[:1], lang)
    assert _TOGETHER[lang].split(":")[0] not in one
