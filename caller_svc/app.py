"""The one place that wires caller_svc: HTTP client, Redis, breaker, store, servicer."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx
import redis.asyncio as aioredis

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.indexer.v1 import indexer_pb2_grpc
from caller_svc.answers import AnswerWriter, DeterministicAnswers
from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.egress import EgressGuard, GuardedTransport, parse_allow_list
from caller_svc.executor import CallExecutor
from caller_svc.formatter import DeterministicFormatter
from caller_svc.http_caller import ApiCaller
from caller_svc.names import HolidayNames
from caller_svc.near_match import NearMatch
from caller_svc.registry import CachingEndpointRegistry, EndpointRegistry, IndexerEndpointRegistry
from caller_svc.result_store import ResultStore
from caller_svc.servicer import CallerServicer, ReplyMargin
from caller_svc.settings import CallerSettings
from services.llm import build_lm
from services.redis_client import connect_redis
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount, service_server
from services.runtime.telemetry import DomainMetrics, Telemetry

if TYPE_CHECKING:
    import dspy


def open_redis(settings: CallerSettings) -> aioredis.Redis:
    # No retries: when Redis is down the result store falls back at once instead of
    # stalling the answer.
    return connect_redis(
        settings.redis_url,
        connect_timeout=settings.redis_timeout_seconds,
        socket_timeout=settings.redis_timeout_seconds,
        retries=0,
    )


def answer_writer(
    settings: CallerSettings,
    store: ResultStore,
    formatter: DeterministicFormatter,
    lm: dspy.LM | None = None,
    telemetry: DomainMetrics | None = None,
) -> AnswerWriter:
    """The DSPy formatters when a model is configured (or handed in), else the deterministic one."""
    if lm is None:
        lm = build_lm(settings.llm_config(), cache_dir=settings.dspy_cache_dir, telemetry=telemetry)
    if lm is None:
        return DeterministicAnswers(formatter)
    from caller_svc.llm_formatter import LlmAnswers  # imports dspy: only with a model

    return LlmAnswers(
        lm,
        store,
        formatter,
        global_instructions=settings.formatter_instructions,
        endpoint_instructions=settings.formatter_endpoint_instructions,
        language_instructions=settings.formatter_language_instructions,
        timeout_seconds=settings.formatter_timeout_seconds,
    )


async def build_server(
    settings: CallerSettings,
    *,
    lm: dspy.LM | None = None,
    clock: Callable[[], float] = time.time,
    registry: EndpointRegistry | None = None,
) -> GrpcServer:
    """The caller server. `clock` is the breaker's wall clock (shared by every replica
    through Redis); tests hand in one they move by hand. `registry`: where calls are
    checked against the catalogue (default: the indexer at `indexer_target`)."""
    telemetry = Telemetry.from_settings("caller", settings)
    guard = EgressGuard(parse_allow_list(settings.egress_allow))
    http = httpx.AsyncClient(
        transport=GuardedTransport(guard),
        follow_redirects=False,
        timeout=settings.http_timeout_seconds,
        headers={"User-Agent": settings.user_agent, "Accept": "application/json"},
    )
    redis = open_redis(settings)
    breaker = CircuitBreaker(
        redis,
        failure_threshold=settings.breaker_failure_threshold,
        cooldown_seconds=settings.breaker_cooldown_seconds,
        telemetry=telemetry,
        clock=clock,
    )
    caller = ApiCaller(
        http,
        breaker,
        timeout_seconds=settings.http_timeout_seconds,
        max_response_bytes=settings.max_response_bytes,
        guard=guard,
        telemetry=telemetry,
    )
    store = ResultStore(redis, ttl_seconds=settings.result_ttl_seconds, telemetry=telemetry)
    formatter = DeterministicFormatter(
        max_items=settings.formatter_max_items, time_zone=settings.time_zone, names=HolidayNames()
    )
    indexer_channel = open_channel(settings.indexer_target) if settings.indexer_target else None
    # Calls are checked against the catalogue, as last seen when the indexer is away.
    catalogue = (
        CachingEndpointRegistry(IndexerEndpointRegistry(indexer_pb2_grpc.IndexerServiceStub(indexer_channel)))
        if indexer_channel is not None and registry is None
        else None
    )
    warming = asyncio.create_task(catalogue.warm()) if catalogue is not None else None
    servicer = CallerServicer(
        CallExecutor(
            caller,
            store,
            batch_timeout_seconds=settings.batch_timeout_seconds,
            near_match=NearMatch(settings.near_match_min_similarity, settings.near_match_min_word_similarity),
            yes_no_lookahead_days=settings.yes_no_lookahead_days,
        ),
        store,
        answer_writer(settings, store, formatter, lm, telemetry),
        batch_timeout_seconds=settings.batch_timeout_seconds,
        registry=registry or catalogue,
        reply_margin=ReplyMargin(
            settings.reply_margin_fraction,
            settings.reply_margin_min_seconds,
            settings.reply_margin_max_seconds,
        ),
        chunk_delay_seconds=settings.stream_chunk_delay_seconds,
    )

    async def close_clients() -> None:
        if warming is not None:
            warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await warming
        await http.aclose()
        await redis.aclose()
        if indexer_channel is not None:
            await indexer_channel.close(None)

    return service_server(
        settings,
        ServiceMount.of(
            caller_pb2, "CallerService", caller_pb2_grpc.add_CallerServiceServicer_to_server, servicer
        ),
        telemetry=telemetry,
        on_shutdown=[close_clients],
    )
