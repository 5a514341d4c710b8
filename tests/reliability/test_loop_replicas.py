"""Two loop_svc replicas serve the same chats (sessions live in Redis): one is stopped
between turns and the other carries the conversation on."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from caller_svc.app import build_server as build_caller
from caller_svc.settings import CallerSettings
from classifier_svc.app import build_server as build_classifier
from classifier_svc.settings import ClassifierSettings
from devtools.demo_apis.app import create_app as create_demo_app
from devtools.launcher.inprocess import serve_asgi
from devtools.launcher.mesh import CATALOGUE_FILE
from devtools.redis_server import EmbeddedRedis
from edge_svc.app import create_app as create_edge_app
from edge_svc.settings import EdgeSettings
from indexer_svc.app import build_server as build_indexer
from indexer_svc.settings import IndexerSettings
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.runtime.server import GrpcServer
from tests.e2e.sse import stream_turn


async def test_a_second_loop_replica_carries_the_chat_on(tmp_path: Path) -> None:
    with EmbeddedRedis() as redis:
        async with contextlib.AsyncExitStack() as stack:
            demo_url = await stack.enter_async_context(serve_asgi(create_demo_app()))

            async def start(server: GrpcServer) -> GrpcServer:
                await server.start()
                stack.push_async_callback(server.stop, 0)
                return server

            indexer = await start(
                await build_indexer(
                    IndexerSettings(
                        port=0,
                        data_dir=str(tmp_path),
                        catalogue_file=str(CATALOGUE_FILE),
                        catalogue_base_url=demo_url,
                    )
                )
            )
            # The demo APIs are on loopback: allow-listed exactly, as `atc up` does; calls are
            # checked against the indexer's catalogue.
            caller_settings = CallerSettings(
                port=0,
                redis_url=redis.url,
                egress_allow=urlsplit(demo_url).netloc,
                indexer_target=indexer.address,
            )
            caller = await start(await build_caller(caller_settings))
            loop_settings = LoopSettings(port=0, redis_url=redis.url, caller_target=caller.address)
            first_loop = await start(await build_loop(loop_settings))
            second_loop = await start(await build_loop(loop_settings))
            # Both replicas behind one target, as a Kubernetes Service's endpoints would be.
            loop_target = f"ipv4:{first_loop.address},{second_loop.address}"
            classifier = await start(
                await build_classifier(
                    ClassifierSettings(port=0, indexer_target=indexer.address, loop_target=loop_target)
                )
            )
            edge_settings = EdgeSettings(
                port=0, classifier_target=classifier.address, indexer_target=indexer.address
            )
            edge_url = await stack.enter_async_context(serve_asgi(create_edge_app(edge_settings)))

            async with httpx.AsyncClient(base_url=edge_url, timeout=60) as edge:
                chat_id = str(uuid.uuid4())
                first = await stream_turn(edge, chat_id, "How much is the vehicle tax for my car?")
                assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
                # The first turn was two loop RPCs (ChatState + RunTurn), which the balancer
                # may have sent to either replica or one each: stop one that served it.
                busy, idle = sorted((first_loop, second_loop), key=rpcs_served, reverse=True)
                assert rpcs_served(busy) >= 1 and rpcs_served(busy) + rpcs_served(idle) >= 2
                idle_before = rpcs_served(idle)
                await busy.stop(0)

                second = await stream_turn(edge, chat_id, "123ABC")
                assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
                assert "123ABC" in second.text("TOKEN_KIND_ANSWER")
                assert rpcs_served(idle) >= idle_before + 2, "the other replica served the second turn"


def rpcs_served(server: GrpcServer) -> float:
    """LoopService RPCs the replica answered (its own RED metrics)."""
    return sum(
        sample.value
        for family in server.telemetry.registry.collect()
        if family.name == "atc_rpc_requests"
        for sample in family.samples
        if sample.name.endswith("_total") and "LoopService" in sample.labels["method"]
    )
