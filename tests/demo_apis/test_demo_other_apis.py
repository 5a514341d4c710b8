from __future__ import annotations

import httpx
import pytest

from devtools.demo_apis.catalogue import load_catalogue


async def test_vehicle_tax_is_deterministic(demo_client: httpx.AsyncClient) -> None:
    first = await demo_client.get("/vehicle-tax", params={"regNr": "123ABC", "calculationYear": "2026"})
    second = await demo_client.get("/vehicle-tax", params={"regNr": "123 abc", "year": "2026"})
    assert first.status_code == 200
    assert first.json() == second.json()
    body = first.json()
    assert body["regNr"] == "123ABC" and body["calculationYear"] == 2026
    tax = body["tax"]
    assert tax["currency"] == "EUR"
    gross = tax["baseComponent"] + tax["co2Component"] + tax["massComponent"]
    assert tax["annualTax"] == pytest.approx(gross * (100 - tax["ageReductionPercent"]) / 100, abs=0.01)
    assert tax["baseComponent"] == 50.0
    assert body["vehicle"]["make"]


async def test_vehicle_tax_differs_between_plates(demo_client: httpx.AsyncClient) -> None:
    plates = ["123ABC", "456DEF", "789GHI", "001AAA", "555XYZ"]
    bodies = [
        (await demo_client.get("/vehicle-tax", params={"regNr": p, "year": "2026"})).json() for p in plates
    ]
    assert len({b["tax"]["annualTax"] for b in bodies}) > 1


async def test_vehicle_tax_unknown_plate(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/vehicle-tax", params={"regNr": "NOT-A-PLATE", "year": "2026"})
    assert response.status_code == 404
    assert response.json()["title"] == "Vehicle not found"


async def test_vehicle_tax_bad_year(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/vehicle-tax", params={"regNr": "123ABC", "calculationYear": "1999"})
    assert response.status_code == 400
    assert "calculationYear" in response.json()["errors"]


async def test_address_search(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/address-search", params={"address": "Viru tn 4, Tallinn"})
    body = response.json()
    assert body["count"] == 1
    found = body["addresses"][0]
    assert found["postalCode"] == "10140"
    assert found["county"] == "Harju maakond"
    assert 59 < found["latitude"] < 60 and 24 < found["longitude"] < 25


async def test_address_search_forgiving_spelling_and_post(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.post("/address-search", json={"address": "parnu mnt 10"})
    assert [a["address"] for a in response.json()["addresses"]] == ["Pärnu mnt 10, Tallinn"]
    tartu = await demo_client.get("/address-search", params={"address": "Tartu"})
    assert tartu.json()["count"] >= 4
    missing = await demo_client.get("/address-search")
    assert missing.status_code == 400


async def test_electricity_prices_day_shape(demo_client: httpx.AsyncClient) -> None:
    params = {"start": "2026-01-01T00:00:00Z", "end": "2026-01-01T23:59:59Z"}
    response = await demo_client.get("/electricity-prices", params=params)
    assert response.status_code == 200
    body = response.json()
    series = body["data"]["ee"]
    assert len(series) == 24
    assert series[0]["time"] == "2026-01-01T00:00:00Z"
    prices = [p["price"] for p in series]
    night = sum(prices[1:5]) / 4
    evening = sum(prices[17:20]) / 3
    assert evening > night * 2
    assert body["maxPrice"] == max(prices) and body["minPrice"] == min(prices)
    again = await demo_client.get("/electricity-prices", params=params)
    assert again.json() == body


async def test_electricity_prices_limits(demo_client: httpx.AsyncClient) -> None:
    too_long = await demo_client.get(
        "/electricity-prices", params={"start": "2026-01-01T00:00:00Z", "end": "2026-01-09T00:00:00Z"}
    )
    assert too_long.status_code == 400
    assert "end" in too_long.json()["errors"]
    week = await demo_client.get(
        "/electricity-prices", params={"start": "2026-01-01T00:00:00Z", "end": "2026-01-08T00:00:00Z"}
    )
    assert week.status_code == 200 and len(week.json()["data"]["ee"]) == 7 * 24 + 1
    garbage = await demo_client.get("/electricity-prices", params={"start": "yesterday", "end": "today"})
    assert garbage.status_code == 400
    offset = await demo_client.get(
        "/electricity-prices",
        params={"start": "2026-01-01T02:00:00+02:00", "end": "2026-01-01T03:00:00+02:00"},
    )
    assert [p["time"] for p in offset.json()["data"]["ee"]] == [
        "2026-01-01T00:00:00Z",
        "2026-01-01T01:00:00Z",
    ]


async def test_votings_need_no_params(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/votings")
    assert response.status_code == 200
    votings = response.json()
    assert len(votings) == 10
    first = votings[0]
    assert first["title"] and first["date"]
    result = first["result"]
    assert result["for"] + result["against"] + result["abstained"] + result["absent"] == 101
    assert [v["date"] for v in votings] == sorted((v["date"] for v in votings), reverse=True)


async def test_votings_limit(demo_client: httpx.AsyncClient) -> None:
    assert len((await demo_client.get("/votings", params={"limit": "3"})).json()) == 3
    assert (await demo_client.get("/votings", params={"limit": "0"})).status_code == 400
    assert (await demo_client.get("/votings", params={"limit": "many"})).status_code == 400


async def test_healthz(demo_client: httpx.AsyncClient) -> None:
    assert (await demo_client.get("/healthz")).json() == {"status": "ok"}


async def test_catalogue_points_at_the_demo_routes(demo_client: httpx.AsyncClient) -> None:
    catalogue = load_catalogue("http://demo/")
    names = [body["name"] for body in catalogue]
    assert names == [
        "get_national_holidays",
        "get_school_holidays",
        "get_vehicle_tax_info",
        "search_address",
        "get_electricity_prices",
        "get_parliament_votings",
    ]
    assert len({body["endpointId"] for body in catalogue}) == len(catalogue)
    holidays = catalogue[0]
    assert holidays["url"] == "http://demo/PublicHolidays"
    required = {p["name"] for p in holidays["params"] if p["required"]}
    assert required == {"countryIsoCode", "validFrom", "validTo"}
    votings = catalogue[-1]
    assert not any(p["required"] for p in votings["params"])
    for body in catalogue:
        path = body["url"].removeprefix("http://demo")
        response = await demo_client.get(path)
        assert response.status_code in (200, 400), path
