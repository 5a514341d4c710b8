from __future__ import annotations

import uuid

import httpx
import pytest

YEAR_2026 = {"validFrom": "2026-01-01", "validTo": "2026-12-31"}


def _name(holiday: dict, language: str) -> str:
    return next(n["text"] for n in holiday["name"] if n["language"] == language)


async def test_estonian_public_holidays_2026(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/PublicHolidays", params={"countryIsoCode": "EE", **YEAR_2026})
    assert response.status_code == 200
    holidays = response.json()
    by_date = {h["startDate"]: _name(h, "EN") for h in holidays}
    assert by_date == {
        "2026-01-01": "New Year's Day",
        "2026-02-24": "Independence Day",
        "2026-04-03": "Good Friday",
        "2026-04-05": "Easter Sunday",
        "2026-05-01": "Spring Day",
        "2026-05-24": "Pentecost",
        "2026-06-23": "Victory Day",
        "2026-06-24": "Midsummer Day",
        "2026-08-20": "Day of Restoration of Independence",
        "2026-12-24": "Christmas Eve",
        "2026-12-25": "Christmas Day",
        "2026-12-26": "Boxing Day",
    }
    first = holidays[0]
    assert uuid.UUID(first["id"])
    assert first["type"] == "Public" and first["nationwide"] is True
    assert first["endDate"] == first["startDate"]
    assert [n["language"] for n in first["name"]] == ["EN", "ET", "RU"]
    assert _name(first, "ET") == "uusaasta"
    assert _name(holidays[7], "ET") == "jaanipäev"
    assert _name(holidays[3], "RU") == "Пасха"


async def test_easter_based_holidays_move_with_the_year(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/PublicHolidays", params={"countryIsoCode": "ee", "validFrom": "2025-01-01", "validTo": "2025-12-31"}
    )
    dates = {_name(h, "EN"): h["startDate"] for h in response.json()}
    assert dates["Good Friday"] == "2025-04-18"
    assert dates["Easter Sunday"] == "2025-04-20"
    assert dates["Pentecost"] == "2025-06-08"


async def test_ids_are_stable(demo_client: httpx.AsyncClient) -> None:
    params = {"countryIsoCode": "EE", **YEAR_2026}
    first = (await demo_client.get("/PublicHolidays", params=params)).json()
    second = (await demo_client.get("/PublicHolidays", params=params)).json()
    assert [h["id"] for h in first] == [h["id"] for h in second]
    assert len({h["id"] for h in first}) == 12


async def test_date_range_filters(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/PublicHolidays", params={"countryIsoCode": "EE", "validFrom": "2026-06-01", "validTo": "2026-06-30"}
    )
    assert [h["startDate"] for h in response.json()] == ["2026-06-23", "2026-06-24"]


async def test_range_across_years(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/PublicHolidays", params={"countryIsoCode": "EE", "validFrom": "2025-12-20", "validTo": "2026-01-05"}
    )
    assert [h["startDate"] for h in response.json()] == [
        "2025-12-24",
        "2025-12-25",
        "2025-12-26",
        "2026-01-01",
    ]


async def test_language_filter(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/PublicHolidays", params={"countryIsoCode": "EE", "languageIsoCode": "et", **YEAR_2026}
    )
    holidays = response.json()
    assert all(len(h["name"]) == 1 and h["name"][0]["language"] == "ET" for h in holidays)
    assert holidays[-1]["name"][0]["text"] == "teine jõulupüha"


@pytest.mark.parametrize(
    ("country", "expected"),
    [
        ("LV", {"2026-06-23": "Līgo diena", "2026-11-18": "Latvijas Republikas proklamēšanas diena"}),
        ("LT", {"2026-02-16": "Lietuvos valstybės atkūrimo diena", "2026-07-06": "Valstybės diena"}),
        (
            "FI",
            {"2026-06-20": "Juhannuspäivä", "2026-12-06": "Itsenäisyyspäivä", "2026-05-14": "Helatorstai"},
        ),
        ("DE", {"2026-10-03": "Tag der Deutschen Einheit", "2026-05-25": "Pfingstmontag"}),
    ],
)
async def test_other_countries(
    demo_client: httpx.AsyncClient, country: str, expected: dict[str, str]
) -> None:
    response = await demo_client.get("/PublicHolidays", params={"countryIsoCode": country, **YEAR_2026})
    assert response.status_code == 200
    native = {h["startDate"]: h["name"][1]["text"] for h in response.json()}
    for day, name in expected.items():
        assert native[day] == name


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"countryIsoCode": "EE", "validTo": "2026-12-31"}, "validFrom"),
        ({"countryIsoCode": "EE", "validFrom": "2026-01-01"}, "validTo"),
        ({"countryIsoCode": "EE", "validFrom": "2026-13-01", "validTo": "2026-12-31"}, "validFrom"),
        ({"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2030-01-01"}, "validTo"),
        ({"countryIsoCode": "EE", "validFrom": "2026-02-01", "validTo": "2026-01-01"}, "validTo"),
        ({"countryIsoCode": "XX", **YEAR_2026}, "countryIsoCode"),
        (YEAR_2026, "countryIsoCode"),
    ],
)
async def test_bad_requests(demo_client: httpx.AsyncClient, params: dict, field: str) -> None:
    response = await demo_client.get("/PublicHolidays", params=params)
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400
    assert field in body["errors"]


async def test_school_holidays(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/SchoolHolidays", params={"countryIsoCode": "EE", "validFrom": "2025-09-01", "validTo": "2026-08-31"}
    )
    assert response.status_code == 200
    spans = {h["name"][0]["text"]: (h["startDate"], h["endDate"]) for h in response.json()}
    assert spans == {
        "Autumn holidays": ("2025-10-20", "2025-10-26"),
        "Christmas holidays": ("2025-12-22", "2026-01-11"),
        "Winter holidays": ("2026-02-23", "2026-03-01"),
        "Spring holidays": ("2026-04-20", "2026-04-26"),
        "Summer holidays": ("2026-06-15", "2026-08-31"),
    }
    assert all(h["type"] == "School" for h in response.json())


async def test_school_holidays_overlapping_the_range(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get(
        "/SchoolHolidays",
        params={
            "countryIsoCode": "EE",
            "validFrom": "2026-01-05",
            "validTo": "2026-01-06",
            "languageIsoCode": "ET",
        },
    )
    assert [h["name"][0]["text"] for h in response.json()] == ["Jõuluvaheaeg"]


async def test_school_holidays_unknown_country(demo_client: httpx.AsyncClient) -> None:
    response = await demo_client.get("/SchoolHolidays", params={"countryIsoCode": "DE", **YEAR_2026})
    assert response.status_code == 400
