"""Fixtures for loop_svc tests: the country map is built once per session."""

from __future__ import annotations

from datetime import date

import pytest

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.schema import EndpointSpec, ParamSpec

TODAY = date(2026, 3, 10)


@pytest.fixture(scope="session")
def countries() -> CountryNames:
    return CountryNames()


@pytest.fixture(scope="session")
def holiday_names() -> HolidayNames:
    return HolidayNames()


@pytest.fixture()
def extractor(countries: CountryNames, holiday_names: HolidayNames) -> RuleExtractor:
    return RuleExtractor(countries, today=lambda: TODAY, holidays=holiday_names)


@pytest.fixture()
def holidays() -> EndpointSpec:
    """The openholidaysapi endpoint of the design document, dates required."""
    return EndpointSpec(
        name="get_public_holidays",
        params=[
            ParamSpec(
                name="countryIsoCode",
                type="string",
                required=True,
                description="The 2-letter ISO country code (e.g., EE for Estonia, DE for Germany)",
            ),
            ParamSpec(
                name="languageIsoCode",
                type="string",
                required=False,
                description="The 2-letter ISO language code (e.g., ET, EN)",
            ),
            ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
            ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
        ],
    )


@pytest.fixture()
def vehicle_tax() -> EndpointSpec:
    return EndpointSpec(
        name="get_vehicle_tax_info",
        params=[
            ParamSpec(name="regNr", type="string", required=True, description="Vehicle registration number"),
            ParamSpec(name="calculationYear", type="integer", required=True, description="Tax year"),
        ],
    )


@pytest.fixture()
def address_search() -> EndpointSpec:
    return EndpointSpec(
        name="search_address",
        params=[
            ParamSpec(name="address", type="string", required=True, description="Address to look up"),
            ParamSpec(name="calculationYear", type="integer", required=False, description="Year"),
        ],
    )
