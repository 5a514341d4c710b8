"""Redis clients for the services: bounded connect and socket timeouts, so a hung or
unreachable Redis costs a turn a clear error within seconds instead of its whole deadline,
and a restarted Redis is reconnected to on the next command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CONNECT_TIMEOUT_SECONDS = 1.0
SOCKET_TIMEOUT_SECONDS = 2.0
# Idle pooled connections are PINGed before use after this long: a Redis that
# restarted meanwhile is noticed before a command is lost on a dead socket.
HEALTH_CHECK_INTERVAL_SECONDS = 10


def connect_redis(
    url: str,
    *,
    decode_responses: bool = True,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
    socket_timeout: float = SOCKET_TIMEOUT_SECONDS,
    retries: int = 1,
) -> aioredis.Redis:
    """A client for `url`. One quick retry (the default) covers a connection the server
    closed (a restart) while a Redis that stays down fails fast; `retries=0` fails at
    once, for a caller with a fallback of its own that must not stall a turn."""
    return aioredis.Redis.from_url(
        url,
        decode_responses=decode_responses,
        socket_connect_timeout=connect_timeout,
        socket_timeout=socket_timeout,
        health_check_interval=HEALTH_CHECK_INTERVAL_SECONDS,
        retry=Retry(ExponentialBackoff(cap=0.2, base=0.05), retries=retries),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )


def redis_answers(client: aioredis.Redis) -> Callable[[], Awaitable[bool]]:
    """A readiness probe: the server answers PING."""

    async def probe() -> bool:
        return bool(await client.ping())

    return probe
