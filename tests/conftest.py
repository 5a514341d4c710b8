"""Shared fixtures: real parts only (an embedded Redis server, real ports)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from services.redis_server import EmbeddedRedis

# litellm otherwise fetches a price map at first use; DSPy caches under our folder.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest.fixture()
async def redis_client(redis_server: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    """A client on a clean database (flushed before each test)."""
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()
