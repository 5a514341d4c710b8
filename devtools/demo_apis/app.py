"""The demo APIs as one Starlette app. Errors follow the RFC 9457 problem shape
that OpenHolidays (ASP.NET) answers with: {type, title, status, errors|detail}."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from devtools.demo_apis.addresses import search_addresses
from devtools.demo_apis.application_status import (
    InvalidApplicationNumber,
    application_status,
    parse_service_call,
)
from devtools.demo_apis.electricity import MAX_SPAN, parse_instant, price_report
from devtools.demo_apis.holidays import PUBLIC_HOLIDAY_RULES, Holiday, public_holidays
from devtools.demo_apis.school_holidays import SCHOOL_HOLIDAY_COUNTRIES, school_holidays
from devtools.demo_apis.vehicle_tax import UnknownPlate, normalise_plate, vehicle_tax
from devtools.demo_apis.votings import DEFAULT_LIMIT, MAX_LIMIT, recent_votings

MAX_HOLIDAY_SPAN_DAYS = 3 * 366
FIRST_TAX_YEAR = 2025
LAST_TAX_YEAR = 2100
_PROBLEM_TYPES = {
    400: "https://tools.ietf.org/html/rfc9110#section-15.5.1",
    404: "https://tools.ietf.org/html/rfc9110#section-15.5.5",
}


class ProblemError(Exception):
    def __init__(
        self, status: int, title: str, errors: dict[str, list[str]] | None = None, detail: str | None = None
    ) -> None:
        super().__init__(title)
        self.status, self.title, self.errors, self.detail = status, title, errors, detail


def _validation(field: str, message: str) -> ProblemError:
    return ProblemError(400, "One or more validation errors occurred.", errors={field: [message]})


async def _problem(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProblemError)
    body: dict[str, Any] = {
        "type": _PROBLEM_TYPES.get(exc.status, "about:blank"),
        "title": exc.title,
        "status": exc.status,
    }
    if exc.errors:
        body["errors"] = exc.errors
    if exc.detail:
        body["detail"] = exc.detail
    return JSONResponse(body, status_code=exc.status, media_type="application/problem+json")


def _required(request: Request, name: str) -> str:
    value = request.query_params.get(name, "").strip()
    if not value:
        raise _validation(name, f"The {name} field is required.")
    return value


def _date_param(request: Request, name: str) -> date:
    raw = _required(request, name)
    try:
        return date.fromisoformat(raw[:10])
    except ValueError:
        raise _validation(name, f"The value '{raw}' is not valid for {name}.") from None


def _date_range(request: Request) -> tuple[date, date]:
    valid_from, valid_to = _date_param(request, "validFrom"), _date_param(request, "validTo")
    if valid_to < valid_from:
        raise _validation("validTo", "validTo must not be earlier than validFrom.")
    if (valid_to - valid_from).days > MAX_HOLIDAY_SPAN_DAYS:
        raise _validation("validTo", "The date range must not exceed three years.")
    return valid_from, valid_to


def _country(request: Request, supported: frozenset[str] | set[str]) -> str:
    country = _required(request, "countryIsoCode").upper()
    if country not in supported:
        listed = ", ".join(sorted(supported))
        raise _validation(
            "countryIsoCode", f"The country '{country}' is not supported. Supported countries: {listed}."
        )
    return country


def _holiday_json(holiday: Holiday, language: str | None) -> dict[str, Any]:
    names = holiday.names
    if language:
        chosen = {lang: text for lang, text in names.items() if lang == language}
        names = chosen or {"EN": names["EN"]}
    return {
        "id": holiday.id,
        "startDate": holiday.start.isoformat(),
        "endDate": holiday.end.isoformat(),
        "type": holiday.kind,
        "name": [{"language": lang, "text": text} for lang, text in names.items()],
        "regionalScope": "National",
        "temporalScope": "FullDay",
        "nationwide": True,
    }


def _language(request: Request) -> str | None:
    value = request.query_params.get("languageIsoCode", "").strip().upper()
    return value or None


async def public_holidays_endpoint(request: Request) -> JSONResponse:
    country = _country(request, set(PUBLIC_HOLIDAY_RULES))
    valid_from, valid_to = _date_range(request)
    language = _language(request)
    return JSONResponse([_holiday_json(h, language) for h in public_holidays(country, valid_from, valid_to)])


async def school_holidays_endpoint(request: Request) -> JSONResponse:
    country = _country(request, SCHOOL_HOLIDAY_COUNTRIES)
    valid_from, valid_to = _date_range(request)
    language = _language(request)
    return JSONResponse([_holiday_json(h, language) for h in school_holidays(country, valid_from, valid_to)])


def _tax_year(request: Request) -> int:
    raw = (request.query_params.get("calculationYear") or request.query_params.get("year") or "").strip()
    if not raw:
        return date.today().year
    try:
        year = int(raw)
    except ValueError:
        raise _validation("calculationYear", f"The value '{raw}' is not a valid year.") from None
    if not FIRST_TAX_YEAR <= year <= LAST_TAX_YEAR:
        raise _validation("calculationYear", f"The motor vehicle tax applies from {FIRST_TAX_YEAR}.")
    return year


async def vehicle_tax_endpoint(request: Request) -> JSONResponse:
    reg_nr = _required(request, "regNr")
    year = _tax_year(request)
    try:
        return JSONResponse(vehicle_tax(reg_nr, year))
    except UnknownPlate:
        raise ProblemError(
            404,
            "Vehicle not found",
            detail=f"No vehicle is registered with the number '{normalise_plate(reg_nr)}'.",
        ) from None


async def address_search_endpoint(request: Request) -> JSONResponse:
    if request.method == "POST":
        body = await request.json()
        query = str(body.get("address", "")).strip() if isinstance(body, dict) else ""
        if not query:
            raise _validation("address", "The address field is required.")
    else:
        query = _required(request, "address")
    found = [address.as_json() for address in search_addresses(query)]
    return JSONResponse({"query": query, "count": len(found), "addresses": found})


def _instant(request: Request, name: str) -> datetime:
    raw = _required(request, name)
    try:
        return parse_instant(raw)
    except ValueError:
        raise _validation(name, f"The value '{raw}' is not a valid ISO 8601 date-time.") from None


async def electricity_prices_endpoint(request: Request) -> JSONResponse:
    start, end = _instant(request, "start"), _instant(request, "end")
    if end <= start:
        raise _validation("end", "end must be later than start.")
    if end - start > MAX_SPAN:
        raise _validation("end", "The period must not exceed 7 days.")
    return JSONResponse(price_report(start, end))


async def votings_endpoint(request: Request) -> JSONResponse:
    raw = request.query_params.get("limit", "").strip()
    limit = DEFAULT_LIMIT
    if raw:
        try:
            limit = int(raw)
        except ValueError:
            raise _validation("limit", f"The value '{raw}' is not a valid integer.") from None
        if not 1 <= limit <= MAX_LIMIT:
            raise _validation("limit", f"limit must be between 1 and {MAX_LIMIT}.")
    return JSONResponse(recent_votings(limit))


async def application_status_service(request: Request) -> JSONResponse:
    try:
        body = await request.json()
    except ValueError:
        raise _validation("body", "The body must be JSON.") from None
    try:
        call = parse_service_call(body)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise _validation(field, message or str(exc)) from None
    if not call.inputs or not call.inputs[0].strip():
        raise _validation("input", "The application number is required.")
    try:
        return JSONResponse(application_status(call.inputs[0]))
    except InvalidApplicationNumber as exc:
        raise _validation("input", str(exc)) from None


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def create_app() -> Starlette:
    return Starlette(
        routes=[
            Route("/PublicHolidays", public_holidays_endpoint),
            Route("/SchoolHolidays", school_holidays_endpoint),
            Route("/vehicle-tax", vehicle_tax_endpoint),
            Route("/address-search", address_search_endpoint, methods=["GET", "POST"]),
            Route("/electricity-prices", electricity_prices_endpoint),
            Route("/votings", votings_endpoint),
            Route("/services/document-application-status", application_status_service, methods=["POST"]),
            Route("/healthz", healthz),
        ],
        exception_handlers={ProblemError: _problem},
    )
