"""The one place that wires caller_svc: HTTP client, Redis, breaker, store, servicer."""

from __future__ import annotations

import httpx
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.executor import CallExecutor
from caller_svc.formatter import DeterministicFormatter
from caller_svc.http_caller import ApiCaller
from caller_svc.result_store import ResultStore
from caller_svc.servicer import CallerServicer
from caller_svc.settings import CallerSettings
from services.runtime.server import GrpcServer, ServiceMount

SERVICE_NAME = caller_pb2.DESCRIPTOR.services_by_name["CallerService"].full_name


def open_redis(settings: CallerSettings) -> aioredis.Redis:
    # No retries: when Redis is down we fall back at once instead of stalling the answer.
    return aioredis.Redis.from_url(
        settings.redis_url,
        decode_responses=True,
        socket_timeout=settings.redis_timeout_seconds,
        socket_connect_timeout=settings.redis_timeout_seconds,
        retry=Retry(NoBackoff(), 0),
    )


async def build_server(settings: CallerSettings) -> GrpcServer:
    http = httpx.AsyncClient(
        follow_redirects=False,
        timeout=settings.http_timeout_seconds,
        headers={"User-Agent": settings.user_agent, "Accept": "application/json"},
    )
    redis = open_redis(settings)
    breaker = CircuitBreaker(
        redis,
        failure_threshold=settings.breaker_failure_threshold,
        cooldown_seconds=settings.breaker_cooldown_seconds,
    )
    caller = ApiCaller(
        http,
        breaker,
        timeout_seconds=settings.http_timeout_seconds,
        max_response_bytes=settings.max_response_bytes,
    )
    store = ResultStore(redis, ttl_seconds=settings.result_ttl_seconds)
    servicer = CallerServicer(
        CallExecutor(caller, store, batch_timeout_seconds=settings.batch_timeout_seconds),
        store,
        DeterministicFormatter(max_items=settings.formatter_max_items),
        batch_timeout_seconds=settings.batch_timeout_seconds,
    )

    async def close_clients() -> None:
        await http.aclose()
        await redis.aclose()

    return GrpcServer(
        [
            ServiceMount(
                SERVICE_NAME,
                lambda server: caller_pb2_grpc.add_CallerServiceServicer_to_server(servicer, server),
            )
        ],
        host=settings.host,
        port=settings.port,
        grace_seconds=settings.grace_seconds,
        runtime=settings,
        on_shutdown=[close_clients],
    )
