"""Wiring of indexer_svc: the only place that builds its parts."""

from __future__ import annotations

import logging

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from indexer_svc.catalogue import Catalogue, CollectionNames
from indexer_svc.catalogue_file import read_catalogue_file
from indexer_svc.embedding_scheduler import EmbeddingScheduler
from indexer_svc.embeddings import Embedder, open_embedder
from indexer_svc.enrichment import EndpointEnricher
from indexer_svc.example_phrasings import ExamplePhrasingWriter
from indexer_svc.knowledge_loader import load_startup_content
from indexer_svc.servicer import IndexerServicer
from indexer_svc.settings import IndexerSettings
from indexer_svc.sparse import SparseEncoder
from indexer_svc.vector_index import VectorIndex, open_vector_index
from services.llm import build_lm
from services.runtime.server import GrpcServer, ServiceMount, service_server
from services.runtime.telemetry import Telemetry

log = logging.getLogger(__name__)

SERVICE_NAME = indexer_pb2.DESCRIPTOR.services_by_name["IndexerService"].full_name


async def build_catalogue(
    settings: IndexerSettings, *, embedder: Embedder | None = None, telemetry: Telemetry | None = None
) -> tuple[Catalogue, VectorIndex]:
    """The catalogue with its collections open and the catalogue file (if any) indexed."""
    if embedder is None:
        embedder = await open_embedder(
            settings.embedding_backend,
            model=settings.embedding_model,
            api_base=settings.embedding_api_base or None,
            api_key=settings.embedding_api_key or None,
            dimension=settings.embedding_dimensions,
        )
    index = open_vector_index(
        settings.backend,
        data_dir=settings.data_dir,
        qdrant_url=settings.qdrant_url,
        qdrant_api_key=settings.qdrant_api_key or None,
    )
    lm = build_lm(settings.llm_config(), cache_dir=settings.dspy_cache_dir, telemetry=telemetry)
    scheduler = EmbeddingScheduler(
        embedder,
        max_batch=settings.embedding_max_batch,
        background_chunk=settings.embedding_background_chunk,
        gather_seconds=settings.embedding_gather_seconds,
        background_yield=settings.embedding_background_yield,
        busy_window_seconds=settings.embedding_busy_window_seconds,
        telemetry=telemetry,
    )
    search_embedder, indexing_embedder = (
        (scheduler.foreground, scheduler.background)
        if settings.embedding_scheduler_enabled
        else (embedder, embedder)
    )
    try:
        catalogue = Catalogue(
            index,
            search_embedder,
            SparseEncoder(settings.sparse_vocab_size),
            EndpointEnricher(lm),
            phrasings=ExamplePhrasingWriter(lm),
            collections=CollectionNames(
                endpoints=settings.endpoints_collection,
                services=settings.services_collection,
                knowledge=settings.knowledge_collection,
            ),
            default_search_limit=settings.search_default_limit,
            indexing_embedder=indexing_embedder,
            indexing_slots=settings.indexing_slots,
            telemetry=telemetry,
        )
        await catalogue.open()
        if settings.catalogue_file:
            bodies = read_catalogue_file(settings.catalogue_file, settings.catalogue_base_url)
            changed = await catalogue.load_endpoints(bodies)
            log.info(
                "catalogue %s: %d endpoints, %d (re)indexed", settings.catalogue_file, len(bodies), changed
            )
        await load_startup_content(catalogue, settings)
    except BaseException:
        await index.close()
        raise
    return catalogue, index


async def build_server(settings: IndexerSettings, *, embedder: Embedder | None = None) -> GrpcServer:
    """A server ready to start; its catalogue file is already indexed, so it reports
    SERVING only with the catalogue in. The index is closed after the server stops."""
    telemetry = Telemetry.from_settings("indexer", settings)
    catalogue, index = await build_catalogue(settings, embedder=embedder, telemetry=telemetry)
    # Warm-up: the first search pays for the model's and the index's first use (seconds
    # on a cold machine); pay it here, before the service reports SERVING.
    await catalogue.search("endpoint", query="warm-up", limit=1)
    servicer = IndexerServicer(catalogue)
    return service_server(
        settings,
        ServiceMount.of(
            indexer_pb2, "IndexerService", indexer_pb2_grpc.add_IndexerServiceServicer_to_server, servicer
        ),
        telemetry=telemetry,
        on_shutdown=[index.close],
    )
