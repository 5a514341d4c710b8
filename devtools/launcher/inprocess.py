"""The whole mesh in one process, for tests and benchmarks.

Every service is still a real gRPC server (on a free port) and the demo APIs
and the edge are real uvicorn servers: only the process boundary is gone.
`atc up` (devtools/launcher/mesh.py) runs the same parts as separate processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import uvicorn
from pydantic import SecretStr
from starlette.types import ASGIApp

from caller_svc.app import build_server as build_caller
from caller_svc.settings import CallerSettings
from classifier_svc.app import build_server as build_classifier
from classifier_svc.settings import ClassifierSettings
from devtools.demo_apis.app import create_app as create_demo_app
from devtools.launcher.mesh import CATALOGUE_FILE, KNOWLEDGE_DIR, SERVICES_FILE
from edge_svc.app import create_apps as create_edge_apps
from edge_svc.settings import EdgeSettings
from indexer_svc.app import build_server as build_indexer
from indexer_svc.settings import IndexerSettings
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.runtime.server import GrpcServer

Lifespan = Literal["on", "off", "auto"]


def uvicorn_server(app: ASGIApp, host: str = "127.0.0.1", lifespan: Lifespan = "on") -> uvicorn.Server:
    """A quiet uvicorn server for `app` on a free port of `host`."""
    config = uvicorn.Config(
        app,
        host=host,
        port=0,
        log_level="warning",
        access_log=False,
        lifespan=lifespan,
        timeout_graceful_shutdown=1,
    )
    return uvicorn.Server(config)


def server_url(server: uvicorn.Server, host: str) -> str:
    return f"http://{host}:{server.servers[0].sockets[0].getsockname()[1]}"


@contextlib.asynccontextmanager
async def serve_asgi(app: ASGIApp, host: str = "127.0.0.1", lifespan: Lifespan = "on") -> AsyncIterator[str]:
    """Run `app` with uvicorn on host:0 in this event loop until the block exits; yields its URL."""
    server = uvicorn_server(app, host, lifespan)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # re-raise why it could not start
            await asyncio.sleep(0.01)
        yield server_url(server, host)
    finally:
        server.should_exit = True
        await task


@dataclass
class InProcessMesh:
    redis_url: str
    demo_url: str
    edge_url: str
    servers: dict[str, GrpcServer]
    # The edge's admin listener and its bearer token.
    admin_url: str = ""
    admin_token: str = ""

    def address(self, name: str) -> str:
        return self.servers[name].address


@contextlib.asynccontextmanager
async def running_mesh(
    redis_url: str,
    data_dir: Path,
    catalogue_file: Path = CATALOGUE_FILE,
    *,
    services_file: Path | None = SERVICES_FILE,
    knowledge_dir: Path | None = KNOWLEDGE_DIR,
    demo_app: ASGIApp | None = None,
    llm_settings: Mapping[str, Any] | None = None,
) -> AsyncIterator[InProcessMesh]:
    """Demo APIs (or `demo_app` wrapping them), caller, loop, indexer (with the
    catalogue, services and knowledge base), classifier and edge. `llm_settings`
    (LLMServiceSettings fields: `llm_model`, `llm_api_base`, `llm_api_key`, …) configure
    every service that has DSPy steps with that model, as their env settings would."""
    llm = dict(llm_settings or {})
    servers: dict[str, GrpcServer] = {}
    async with contextlib.AsyncExitStack() as stack:
        demo_url = await stack.enter_async_context(serve_asgi(demo_app or create_demo_app()))

        async def start(name: str, server: GrpcServer) -> str:
            await server.start()
            stack.push_async_callback(server.stop, 0)
            servers[name] = server
            return server.address

        indexer_settings = IndexerSettings(
            port=0,
            data_dir=str(data_dir),
            catalogue_file=str(catalogue_file),
            catalogue_base_url=demo_url,
            services_file=str(services_file or ""),
            knowledge_dir=str(knowledge_dir or ""),
            **llm,
        )
        indexer = await start("indexer", await build_indexer(indexer_settings))
        caller_settings = CallerSettings(
            port=0,
            redis_url=redis_url,
            egress_allow=urlsplit(demo_url).netloc,
            indexer_target=indexer,
            **llm,
        )
        caller = await start("caller", await build_caller(caller_settings))
        loop = await start(
            "loop", await build_loop(LoopSettings(port=0, redis_url=redis_url, caller_target=caller, **llm))
        )
        classifier = await start(
            "classifier",
            await build_classifier(
                ClassifierSettings(port=0, indexer_target=indexer, loop_target=loop, **llm)
            ),
        )
        admin_token = secrets.token_urlsafe(24)
        edge_settings = EdgeSettings(
            port=0,
            classifier_target=classifier,
            indexer_target=indexer,
            caller_target=caller,
            admin_token=SecretStr(admin_token),
        )
        edge = create_edge_apps(edge_settings)
        assert edge.admin is not None
        edge_url = await stack.enter_async_context(serve_asgi(edge.public))
        admin_url = await stack.enter_async_context(serve_asgi(edge.admin))
        yield InProcessMesh(
            redis_url=redis_url,
            demo_url=demo_url,
            edge_url=edge_url,
            servers=servers,
            admin_url=admin_url,
            admin_token=admin_token,
        )
