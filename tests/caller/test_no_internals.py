"""No internals reach an Estonian or Russian reader, checked over every answer the
formatter produces for the demo catalogue: each endpoint's real responses (several
values each, refusals included) × every answer shape × et/ru. An answer must hold no
response field name, no machine code ("ready_for_pickup"), no English label of the
catalogue and no English error text; holiday names come in the reader's language or
the country's own, never in English."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from google.protobuf import json_format

from atc.common.v1 import catalogue_pb2
from caller_svc.endpoint import ParamSpec
from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from caller_svc.names import HolidayNames
from caller_svc.rows import is_code
from caller_svc.servicer import label_book
from devtools.demo_apis.app import create_app
from devtools.demo_apis.catalogue import load_catalogue
from services.answer_shape import (
    PLAIN,
    Aggregation,
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Months,
    Op,
    Order,
    RowFilter,
    Selection,
    Weekdays,
)

SHAPES = [
    PLAIN,
    AnswerShape(Kind.YES_NO),
    AnswerShape(Kind.YES_NO, filters=(RowFilter(Comparison(Op.GT, 100)),)),
    AnswerShape(Kind.COUNT, selection=Selection(Order.LATEST, 3)),
    AnswerShape(Kind.COUNT, selection=Selection(Order.FIRST, 2)),
    AnswerShape(Kind.EXTREME, selection=Selection(Order.LOWEST)),
    AnswerShape(Kind.EXTREME, selection=Selection(Order.HIGHEST)),
    AnswerShape(Kind.EXTREME, selection=Selection(Order.NEXT)),
    AnswerShape(Kind.EXTREME, selection=Selection(Order.LONGEST)),
    AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.COUNT)),
    AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.AVERAGE)),
    AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.RANGE)),
    AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.DURATION)),
    AnswerShape(filters=(RowFilter(Hours(18, 22)),)),
    AnswerShape(filters=(RowFilter(Weekdays((6, 7))),)),
    AnswerShape(filters=(RowFilter(Months((12,))),)),
    AnswerShape(filters=(RowFilter(DateRange(date(2026, 12, 20), date(2027, 1, 10))),)),
    AnswerShape(Kind.FULL_LIST),
    AnswerShape(Kind.FIELDS, terms=("status", "county", "price", "against", "postal", "code")),
]
CALLS: dict[str, list[dict[str, str]]] = {
    "get_national_holidays": [
        {"countryIsoCode": c, "validFrom": "2026-12-01", "validTo": "2027-12-31"}
        for c in ("EE", "LV", "LT", "FI", "DE")
    ]
    + [{"countryIsoCode": "SE", "validFrom": "2026-12-01", "validTo": "2026-12-31"}],
    "get_school_holidays": [
        {"countryIsoCode": "EE", "validFrom": "2026-09-01", "validTo": "2027-08-31"},
        {"countryIsoCode": "FI", "validFrom": "2026-09-01", "validTo": "2027-08-31"},
    ],
    "get_vehicle_tax_info": [
        {"regNr": "123ABC", "calculationYear": "2026"},
        {"regNr": "12AB", "calculationYear": "2026"},
        {"regNr": "123ABC", "calculationYear": "2020"},
    ],
    "search_address": [{"address": "Tartu"}, {"address": "Viru 4 Tallinn"}, {"address": "Nowhere 99"}],
    "get_electricity_prices": [
        {"start": "2026-12-01T22:00:00Z", "end": "2026-12-02T21:59:59Z"},
        {"start": "2026-03-28T22:00:00Z", "end": "2026-03-29T20:59:59Z"},
        {"start": "2026-11-01T00:00:00Z", "end": "2026-12-01T00:00:00Z"},
    ],
    "get_parliament_votings": [{"limit": "20"}, {"limit": "500"}],
}
# Every status: ready for pickup (with its office), received, in processing; and a bad number.
SERVICE_NUMBERS = ["A1234567", "P7654321", "B0000042", "P1111111", "AB12"]
# Words of English error texts and of the catalogue's English labels that are not
# Estonian or Russian words too.
ENGLISH = re.compile(
    r"\b(?:the|is|not|found|results?|service|request|value|valid|period|must|exceed|supported|"
    r"application|status|ready|pickup|processing|received|registration|annual|vehicle|price|"
    r"holiday|holidays|christmas|eve|day|days|lowest|highest|average|hourly|more)\b",
    re.I,
)
CODE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")


def _endpoints() -> dict[str, dict[str, Any]]:
    return {b["name"]: b for b in load_catalogue("http://demo")}


def _keys(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _keys(value)
    elif isinstance(data, list):
        for item in data:
            yield from _keys(item)


async def _results() -> list[tuple[ResultToFormat, Any]]:
    endpoints = _endpoints()
    out: list[tuple[ResultToFormat, Any]] = []
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app()), base_url="http://demo"
    ) as demo:
        for name, calls in CALLS.items():
            body = endpoints[name]
            endpoint = json_format.ParseDict(body, catalogue_pb2.Endpoint(), ignore_unknown_fields=True)
            path = body["url"].removeprefix("http://demo")
            for params in calls:
                response = await demo.get(path, params=params)
                out.append(
                    (_result(name, endpoint, params, response.status_code, response.json()), response.json())
                )
        for number in SERVICE_NUMBERS:
            response = await demo.post(
                "/services/document-application-status",
                json={"chatId": "c", "authorId": "a", "input": [number]},
            )
            endpoint = catalogue_pb2.Endpoint(
                name="check_document_application_status",
                type="service",
                params=[
                    catalogue_pb2.EndpointParam(
                        name="applicationNumber",
                        type="string",
                        required=True,
                        description="The application number (e.g. A1234567)",
                    )
                ],
            )
            result = _result(
                endpoint.name, endpoint, {"applicationNumber": number}, response.status_code, response.json()
            )
            out.append((result, response.json()))
    return out


def _result(
    name: str, endpoint: catalogue_pb2.Endpoint, params: dict[str, str], status: int, data: Any
) -> ResultToFormat:
    return ResultToFormat(
        name,
        status < 400,
        data,
        "generic failure text" if status >= 400 else None,
        params=params,
        param_types={p.name: p.type for p in endpoint.params},
        labels=label_book(endpoint),
        status_code=status,
        param_specs=tuple(ParamSpec(p.name, p.type, p.required, p.description) for p in endpoint.params),
    )


@pytest.mark.parametrize("lang", ["et", "ru"])
async def test_no_field_names_codes_or_english_in_any_answer(lang: str) -> None:
    formatter = DeterministicFormatter(
        time_zone="Europe/Tallinn", names=HolidayNames(), clock=lambda: datetime(2026, 12, 1, 8, tzinfo=UTC)
    )
    checked = 0
    for base, data in await _results():
        keys = {k for k in _keys(data) if re.search(r"[A-Z_]", k) and len(k) > 3}
        for shape in SHAPES:
            result = ResultToFormat(**{**base.__dict__, "shape": shape})
            text = formatter.format([result], lang)  # type: ignore[arg-type]
            checked += 1
            assert text.strip(), (base.endpoint_name, shape)
            leaked = [k for k in keys if re.search(rf"\b{re.escape(k)}\b", text)]
            assert not leaked, (base.endpoint_name, shape, leaked, text[:400])
            assert not CODE.search(text), (base.endpoint_name, shape, text[:400])
            # Nor a one-word code of a field named as one ("statusCode": "received").
            coded = [v for k, v in _fields(data) if is_code(v, k) and re.search(rf"\b{v}\b", text)]
            assert not coded, (base.endpoint_name, shape, coded, text[:400])
            # Names the APIs give (bill titles, street names) may be in any language; the
            # words of our own labels and texts may not be English.
            english = [w for w in ENGLISH.findall(_without_api_texts(text, data)) if w.lower() != "eur"]
            assert not english, (base.endpoint_name, shape, english, text[:400])
    assert checked == len(SHAPES) * (sum(len(c) for c in CALLS.values()) + len(SERVICE_NUMBERS))


def _fields(data: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield key, value
            yield from _fields(value)
    elif isinstance(data, list):
        for item in data:
            yield from _fields(item)


def _api_texts(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _api_texts(value)
    elif isinstance(data, list):
        for value in data:
            yield from _api_texts(value)


def _without_api_texts(text: str, data: Any) -> str:
    """The answer less the free texts the API itself returned in its other-language
    fields (an office "(PPA service office)", a bill's English title) — those are data."""
    for piece in sorted(set(_api_texts(data)), key=len, reverse=True):
        if len(piece) > 3 and not _is_english_name(piece, data):
            text = text.replace(piece, " ")
    return text


def _is_english_name(piece: str, data: Any) -> bool:
    """An English entry of a multilingual name: the answer must not use it (a local one exists)."""

    def entries(value: Any) -> Iterator[dict[str, Any]]:
        if isinstance(value, dict):
            if "language" in value and "text" in value:
                yield value
            for inner in value.values():
                yield from entries(inner)
        elif isinstance(value, list):
            for inner in value:
                yield from entries(inner)

    return any(e.get("text") == piece and str(e.get("language")).upper() == "EN" for e in entries(data))
