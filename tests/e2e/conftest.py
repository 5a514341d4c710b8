"""The whole mesh in-process: every service is a real gRPC server on port 0,
Redis is a real server, the demo APIs and the edge are real uvicorn servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from devtools.launcher.inprocess import InProcessMesh, running_mesh
from devtools.redis_server import EmbeddedRedis

Mesh = InProcessMesh


@pytest.fixture(scope="module")
def mesh_redis() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mesh(mesh_redis: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Mesh]:
    async with running_mesh(mesh_redis.url, tmp_path_factory.mktemp("index")) as running:
        yield running
