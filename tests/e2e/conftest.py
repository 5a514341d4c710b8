"""The whole mesh in-process: every service is a real gRPC server on port 0,
Redis is a real server, the demo APIs and the edge are real uvicorn servers."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from caller_svc.app import build_server as build_caller
from caller_svc.settings import CallerSettings
from classifier_svc.app import build_server as build_classifier
from classifier_svc.settings import ClassifierSettings
from indexer_svc.app import build_server as build_indexer
from indexer_svc.settings import IndexerSettings
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.demo_apis.app import create_app as create_demo_app
from services.edge.app import create_app as create_edge_app
from services.edge.settings import EdgeSettings
from services.redis_server import EmbeddedRedis
from services.runtime.server import GrpcServer
from tests.support import serve_asgi

CATALOGUE = Path(__file__).resolve().parents[2] / "services" / "demo_apis" / "catalogue.json"


@dataclass
class Mesh:
    redis_url: str
    demo_url: str
    edge_url: str
    servers: dict[str, GrpcServer]

    def address(self, name: str) -> str:
        return self.servers[name].address


@contextlib.asynccontextmanager
async def running_mesh(redis_url: str, data_dir: Path) -> AsyncIterator[Mesh]:
    servers: dict[str, GrpcServer] = {}
    async with contextlib.AsyncExitStack() as stack:
        demo_url = await stack.enter_async_context(serve_asgi(create_demo_app()))

        async def start(name: str, server: GrpcServer) -> str:
            await server.start()
            stack.push_async_callback(server.stop, 0)
            servers[name] = server
            return server.address

        caller = await start("caller", await build_caller(CallerSettings(port=0, redis_url=redis_url)))
        loop = await start(
            "loop", await build_loop(LoopSettings(port=0, redis_url=redis_url, caller_target=caller))
        )
        indexer = await start(
            "indexer",
            await build_indexer(
                IndexerSettings(
                    port=0,
                    data_dir=str(data_dir),
                    catalogue_file=str(CATALOGUE),
                    catalogue_base_url=demo_url,
                )
            ),
        )
        classifier = await start(
            "classifier",
            await build_classifier(ClassifierSettings(port=0, indexer_target=indexer, loop_target=loop)),
        )
        edge_settings = EdgeSettings(port=0, classifier_target=classifier, indexer_target=indexer)
        edge_url = await stack.enter_async_context(serve_asgi(create_edge_app(edge_settings)))
        yield Mesh(redis_url=redis_url, demo_url=demo_url, edge_url=edge_url, servers=servers)


@pytest.fixture(scope="module")
def mesh_redis() -> EmbeddedRedis:
    with EmbeddedRedis() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mesh(mesh_redis: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Mesh]:
    async with running_mesh(mesh_redis.url, tmp_path_factory.mktemp("index")) as running:
        yield running
