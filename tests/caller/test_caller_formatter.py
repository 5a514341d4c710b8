"""Deterministic formatter and summary on real demo-API data."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from caller_svc.formatter import DeterministicFormatter, ResultToFormat, format_when
from caller_svc.json_view import humanize_key, humanize_name
from caller_svc.summary import summarize
from services.demo_apis.app import create_app


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


async def test_holidays_in_english(demo) -> None:
    text = DeterministicFormatter().format(
        [ResultToFormat("get_national_holidays", True, await _holidays(demo))], "en"
    )
    lines = text.splitlines()
    assert lines[0] == "I found 12 results:"
    assert lines[1] == "• New Year's Day — 1 Jan 2026"
    assert "• Good Friday — 3 Apr 2026" in lines
    assert "• Pentecost — 24 May 2026" in lines
    assert lines[-1] == "• Boxing Day — 26 Dec 2026"
    assert len([line for line in lines if line.startswith("• ")]) == 12


async def test_holidays_in_estonian_use_estonian_names(demo) -> None:
    text = DeterministicFormatter().format(
        [ResultToFormat("get_national_holidays", True, await _holidays(demo))], "et"
    )
    lines = text.splitlines()
    assert lines[0] == "Leidsin 12 tulemust:"
    assert lines[1] == "• uusaasta — 1. jaanuar 2026"
    assert "• jaanipäev — 24. juuni 2026" in lines
    assert "• võidupüha — 23. juuni 2026" in lines
    assert "New Year" not in text


async def test_holidays_in_russian(demo) -> None:
    text = DeterministicFormatter().format(
        [ResultToFormat("get_national_holidays", True, await _holidays(demo))], "ru"
    )
    assert text.splitlines()[0] == "Найдено результатов: 12."
    assert "• Новый год — 1 января 2026" in text
    assert "• Иванов день — 24 июня 2026" in text


async def test_language_falls_back_to_english_names(demo) -> None:
    german = await _get(
        demo, "/PublicHolidays", countryIsoCode="DE", validFrom="2026-10-01", validTo="2026-10-31"
    )
    text = DeterministicFormatter().format([ResultToFormat("get_national_holidays", True, german)], "et")
    assert "• German Unity Day — 3. oktoober 2026" in text


async def test_school_holiday_spans(demo) -> None:
    school = await _get(
        demo, "/SchoolHolidays", countryIsoCode="EE", validFrom="2026-02-01", validTo="2026-02-28"
    )
    text = DeterministicFormatter().format([ResultToFormat("get_school_holidays", True, school)], "en")
    assert "• Winter holidays — 23 Feb 2026 – 1 Mar 2026" in text


async def test_single_object_as_labelled_lines(demo) -> None:
    tax = await _get(demo, "/vehicle-tax", regNr="123ABC", calculationYear="2026")
    text = DeterministicFormatter().format([ResultToFormat("get_vehicle_tax_info", True, tax)], "et")
    lines = text.splitlines()
    assert lines[0] == "Leidsin järgmise teabe:"
    assert "Reg nr: 123ABC" in lines
    assert "Tax:" in lines
    annual = str(tax["tax"]["annualTax"]).replace(".", ",")
    assert f"  Annual tax: {annual}" in lines
    assert "  Currency: EUR" in lines


async def test_votings_pick_the_users_language(demo) -> None:
    votings = await _get(demo, "/votings", limit="2")
    english = DeterministicFormatter().format([ResultToFormat("get_parliament_votings", True, votings)], "en")
    estonian = DeterministicFormatter().format(
        [ResultToFormat("get_parliament_votings", True, votings)], "et"
    )
    assert votings[0]["titleEn"] in english and votings[0]["title"] in estonian
    assert f"for {votings[0]['result']['for']}" in english
    assert "18 Feb 2026" in english


async def test_long_lists_are_capped(demo) -> None:
    prices = await _get(demo, "/electricity-prices", start="2026-01-01T00:00:00Z", end="2026-01-01T23:00:00Z")
    text = DeterministicFormatter(max_items=20).format(
        [ResultToFormat("get_electricity_prices", True, prices)], "en"
    )
    bullets = [line for line in text.splitlines() if line.strip().startswith("• ")]
    assert len(bullets) == 20
    assert bullets[0].strip().startswith("• 1 Jan 2026, 00:00 UTC — price ")
    assert text.splitlines()[-1].strip() == "…and 4 more."
    assert "Unit: EUR/MWh" in text


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
    assert sections[0] == "Siin on teie 2 päringu tulemused:"
    assert sections[1].startswith("1. Search address:\n")
    assert "• Viru tn 4, Tallinn" in sections[1]
    assert sections[2] == "2. Vehicle tax info:\nTeenus ei ole praegu kättesaadav."


def test_empty_and_failed_single_results() -> None:
    formatter = DeterministicFormatter()
    assert formatter.format([ResultToFormat("x", True, [])], "en") == "No results were found."
    assert formatter.format([ResultToFormat("x", True, [])], "ru") == "Ничего не найдено."
    assert formatter.format([ResultToFormat("x", False, {"errors": {}}, "Viga.")], "et") == "Viga."


def test_dates_and_names() -> None:
    assert format_when("2026-01-01", "en") == "1 Jan 2026"
    assert format_when("2026-12-24", "et") == "24. detsember 2026"
    assert format_when("2026-03-08", "ru") == "8 марта 2026"
    assert format_when("2026-01-01T18:30:00Z", "en") == "1 Jan 2026, 18:30 UTC"
    assert humanize_key("fullMassKg") == "Full mass kg"
    assert humanize_key("postal_code") == "Postal code"
    assert humanize_name("get_national_holidays") == "National holidays"


async def test_summaries(demo) -> None:
    holidays = summarize(await _holidays(demo))
    assert holidays.startswith("12 items. First: New Year's Day (2026-01-01)")
    assert holidays.count(".") <= 4
    tax = await _get(demo, "/vehicle-tax", regNr="123ABC", calculationYear="2026")
    assert f"annualTax {tax['tax']['annualTax']}" in summarize(tax)
    address = summarize(await _get(demo, "/address-search", address="Viru tn 4, Tallinn"))
    assert "1 item in addresses" in address and "Viru tn 4" in address
    assert summarize([]) == "The API returned an empty response."
    assert summarize("hello") == "The API returned text: hello"
