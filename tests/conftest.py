"""Shared fixtures: real parts only (an embedded Redis server, real ports)."""

from __future__ import annotations

import copy
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from devtools.redis_server import EmbeddedRedis
from tests.support import SEED_BODY

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


@pytest.fixture()
def seed_body() -> dict[str, Any]:
    return copy.deepcopy(SEED_BODY)
