"""The one place the edge is wired: clients in, Starlette apps out.

Two apps on two listeners: the public one (chat routes, page, health) that Envoy
routes, and the admin one (catalogue routes behind the admin token) on its own
port that Envoy never routes.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Match, Route
from starlette.types import Scope

from edge_svc.admin_guard import AdminTokenGuard
from edge_svc.chat_owners import MemoryChatOwners, RedisChatOwners
from edge_svc.csrf import CsrfGuard
from edge_svc.identity import IdentityResolver
from edge_svc.limits import JsonLimits
from edge_svc.models import TurnLimits
from edge_svc.paths import CanonicalPathMiddleware
from edge_svc.routes.admin import AdminRoutes
from edge_svc.routes.chat import ChatRoutes
from edge_svc.routes.health import HealthRoutes
from edge_svc.routes.identity import IdentityRoutes
from edge_svc.routes.page import PageRoutes
from edge_svc.routes.results import CallerResults, ResultRoutes
from edge_svc.settings import EdgeSettings
from edge_svc.upstream import Upstream
from services.clients import ClassifierClient, IndexerClient
from services.message_bounds import MessageBounds
from services.redis_client import connect_redis
from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.channels import open_channel
from services.runtime.http_observability import OTHER_ROUTE, BodyAdmission, ObservedHttpApp
from services.runtime.telemetry import Telemetry

log = logging.getLogger("atc.edge")


@dataclass(frozen=True)
class EdgeApps:
    public: Starlette
    # None when the admin listener is switched off.
    admin: Starlette | None
    # What the metrics listener serves (edge_svc.__main__ starts it on its own port).
    telemetry: Telemetry | None = None


def _open_missing(upstream: Upstream, settings: EdgeSettings) -> None:
    size = settings.grpc_max_message_bytes
    if upstream.classifier_client is None:
        upstream.classifier_client = ClassifierClient(
            open_channel(settings.classifier_target, max_message_bytes=size)
        )
    if upstream.indexer_client is None:
        upstream.indexer_client = IndexerClient(open_channel(settings.indexer_target, max_message_bytes=size))


def route_label(routes: list[Route]) -> Callable[[Scope], str]:
    """The metric label of a request: the template of the route it matches
    (`/v1/results/{result_id}`), or `other` — a bounded set whatever the paths asked."""

    def label(scope: Scope) -> str:
        for route in routes:
            match, _ = route.matches(scope)
            if match is not Match.NONE:
                return route.path
        return OTHER_ROUTE

    return label


def _starlette(routes: list[Route], lifespan, middleware: list[Middleware]) -> Starlette:  # type: ignore[no-untyped-def]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    # A redirect for "/x/" would be built from the Host header: answer 404 instead.
    app.router.redirect_slashes = False
    return app


def create_apps(
    settings: EdgeSettings,
    classifier: ClassifierClient | None = None,
    indexer: IndexerClient | None = None,
    *,
    identity: IdentityResolver | None = None,
) -> EdgeApps:
    """The public and admin apps over one set of clients. Clients not handed in are
    opened (on the settings' targets) when the public app starts; it owns them and
    closes their channels when it shuts down."""
    upstream = Upstream(classifier, indexer)
    health = HealthRoutes(upstream, timeout=settings.readiness_timeout_seconds)
    owners: RedisChatOwners | MemoryChatOwners = (
        RedisChatOwners(connect_redis(settings.redis_url), ttl_seconds=settings.chat_owner_ttl_seconds)
        if settings.redis_url
        else MemoryChatOwners(ttl_seconds=settings.chat_owner_ttl_seconds)
    )
    chat = ChatRoutes(
        upstream,
        turn_timeout=settings.request_timeout_seconds,
        json_limits=JsonLimits(
            max_bytes=settings.max_body_bytes,
            max_depth=settings.max_json_depth,
            max_number_digits=settings.max_number_digits,
        ),
        turn_limits=TurnLimits(
            MessageBounds(
                max_message_chars=settings.max_message_chars,
                max_history_items=settings.max_history_items,
                max_history_chars=settings.max_history_chars,
                max_history_item_chars=settings.max_history_item_chars,
            )
        ),
        owners=owners,
        # uvicorn waits grace_seconds for requests in flight after SIGTERM; streams too.
        shutdown_grace=settings.grace_seconds,
    )
    page = PageRoutes()
    public_routes = [
        Route("/", page.index, methods=["GET"]),
        Route("/healthz", health.healthz, methods=["GET"]),
        Route("/readyz", health.readyz, methods=["GET"]),
        Route("/v1/identity", IdentityRoutes().ensure, methods=["POST"]),
        Route("/v1/orchestrate/stream", chat.stream, methods=["POST"]),
        Route("/v1/orchestrate", chat.collect, methods=["POST"]),
    ]
    results = CallerResults(settings.caller_target)
    public_routes.append(
        Route(
            "/v1/results/{result_id}",
            ResultRoutes(results, timeout=settings.results_timeout_seconds).get_result,
            methods=["GET"],
        )
    )

    @asynccontextmanager
    async def public_lifespan(app: Starlette) -> AsyncIterator[None]:
        _open_missing(upstream, settings)
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
            await owners.close()

    # Outermost first: the canonical-path check before anything else, then the CSRF rules
    # (headers only), then traces, metrics by route template and the chat turn's admission
    # (its whole body read under a deadline, then a concurrency slot: 429 past it).
    telemetry = Telemetry.from_settings("edge", settings)
    observed = Middleware(
        ObservedHttpApp,
        telemetry=telemetry,
        limit=ConcurrencyLimit.from_settings(settings),
        route_of=route_label(public_routes),
        body=BodyAdmission(settings.max_body_bytes, settings.body_read_timeout_seconds),
    )
    public = _starlette(
        public_routes,
        public_lifespan,
        [
            Middleware(CanonicalPathMiddleware),
            Middleware(
                CsrfGuard,
                allowed_origins=settings.allowed_origins,
                paths=[r.path for r in public_routes if r.methods and "POST" in r.methods],
            ),
            observed,
        ],
    )
    public.state.identity = identity or IdentityResolver.from_settings(settings)

    admin_app: Starlette | None = None
    admin_token = settings.admin_token.get_secret_value()
    if settings.admin_enabled and admin_token:
        admin = AdminRoutes(
            upstream,
            timeout=settings.admin_timeout_seconds,
            json_limits=JsonLimits(
                max_bytes=settings.max_admin_body_bytes,
                max_depth=settings.max_json_depth,
                max_number_digits=settings.max_number_digits,
            ),
        )
        admin_routes = [
            Route("/healthz", health.healthz, methods=["GET"]),
            Route("/v1/admin/endpoints", admin.index_endpoint, methods=["POST"]),
            Route("/v1/admin/endpoints", admin.list_endpoints, methods=["GET"]),
            Route("/v1/admin/endpoints/{endpoint_id}", admin.get_endpoint, methods=["GET"]),
            Route("/v1/admin/endpoints/{endpoint_id}", admin.delete_endpoint, methods=["DELETE"]),
        ]

        @asynccontextmanager
        async def admin_lifespan(app: Starlette) -> AsyncIterator[None]:
            # The public app owns (and closes) the clients; whichever starts first opens them.
            _open_missing(upstream, settings)
            yield

        admin_app = _starlette(
            admin_routes,
            admin_lifespan,
            [Middleware(CanonicalPathMiddleware), Middleware(AdminTokenGuard, token=admin_token)],
        )
    return EdgeApps(public=public, admin=admin_app, telemetry=telemetry)


def create_app(
    settings: EdgeSettings,
    classifier: ClassifierClient | None = None,
    indexer: IndexerClient | None = None,
) -> Starlette:
    """The public app alone (no admin listener)."""
    return create_apps(settings, classifier, indexer).public
