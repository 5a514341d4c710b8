"""The one place the edge is wired: clients in, Starlette app out."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.routing import Route

from services.clients import ClassifierClient, IndexerClient
from services.edge.routes.admin import AdminRoutes
from services.edge.routes.chat import ChatRoutes
from services.edge.routes.health import HealthRoutes
from services.edge.routes.page import PageRoutes
from services.edge.routes.results import CallerResults, ResultRoutes
from services.edge.settings import EdgeSettings
from services.edge.upstream import Upstream
from services.runtime.channels import open_channel

log = logging.getLogger("atc.edge")


def create_app(
    settings: EdgeSettings,
    classifier: ClassifierClient | None = None,
    indexer: IndexerClient | None = None,
) -> Starlette:
    """The edge app. Clients not handed in are opened (on the settings' targets)
    when the app starts. The app owns its clients: their channels close when it
    shuts down."""
    upstream = Upstream(classifier, indexer)
    chat = ChatRoutes(upstream, turn_timeout=settings.request_timeout_seconds)
    health = HealthRoutes(upstream, timeout=settings.readiness_timeout_seconds)
    page = PageRoutes()
    routes = [
        Route("/", page.index, methods=["GET"]),
        Route("/healthz", health.healthz, methods=["GET"]),
        Route("/readyz", health.readyz, methods=["GET"]),
        Route("/v1/orchestrate/stream", chat.stream, methods=["POST"]),
        Route("/v1/orchestrate", chat.collect, methods=["POST"]),
    ]
    results = CallerResults(settings.caller_target)
    routes.append(
        Route(
            "/v1/results/{result_id}",
            ResultRoutes(results, timeout=settings.results_timeout_seconds).get_result,
            methods=["GET"],
        )
    )
    if settings.admin_enabled:
        admin = AdminRoutes(upstream, timeout=settings.admin_timeout_seconds)
        routes += [
            Route("/v1/admin/endpoints", admin.index_endpoint, methods=["POST"]),
            Route("/v1/admin/endpoints", admin.list_endpoints, methods=["GET"]),
            Route("/v1/admin/endpoints/{endpoint_id}", admin.get_endpoint, methods=["GET"]),
            Route("/v1/admin/endpoints/{endpoint_id}", admin.delete_endpoint, methods=["DELETE"]),
        ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if upstream.classifier_client is None:
            upstream.classifier_client = ClassifierClient(open_channel(settings.classifier_target))
        if upstream.indexer_client is None:
            upstream.indexer_client = IndexerClient(open_channel(settings.indexer_target))
        log.info(
            "edge routes ready: classifier=%s indexer=%s admin=%s",
            settings.classifier_target,
            settings.indexer_target,
            settings.admin_enabled,
        )
        try:
            yield
        finally:
            await upstream.close()
            await results.close()

    return Starlette(routes=routes, lifespan=lifespan)
