"""The indexer process killed (SIGKILL) while the classifier searches through it, then
started again on the same port and data dir: turns during the outage end cleanly (a
200 stream with a clear answer, no internals), and once it is back the same
classifier finds endpoints again through its old channel, from the index that
survived the kill (the restart indexes no catalogue)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import redis.asyncio as aioredis

from atc.indexer.v1 import indexer_pb2
from caller_svc.app import build_server as build_caller
from caller_svc.settings import CallerSettings
from classifier_svc.app import build_server as build_classifier
from classifier_svc.messages import GREETING, SEARCH_UNAVAILABLE
from classifier_svc.settings import ClassifierSettings
from devtools.demo_apis.app import create_app as create_demo_app
from devtools.launcher.inprocess import serve_asgi
from devtools.launcher.mesh import CATALOGUE_FILE
from devtools.redis_server import EmbeddedRedis, free_port
from devtools.supervisor import ChildSpec, Supervisor, grpc_ready
from edge_svc.app import create_app as create_edge_app
from edge_svc.settings import EdgeSettings
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.runtime.server import GrpcServer
from tests.e2e.sse import TurnResult, stream_turn

INDEXER_SERVICE = indexer_pb2.DESCRIPTOR.services_by_name["IndexerService"].full_name
# What must never reach a citizen, whatever failed behind the edge.
INTERNALS = ("Traceback", "UNAVAILABLE", "StatusCode", "indexer", "127.0.0.1", "grpc", "Connection refused")


def holidays_catalogue(folder: Path) -> Path:
    """The demo catalogue's public-holidays endpoint alone (indexing all of it costs ~30 s here)."""
    bodies = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    path = folder / "catalogue.json"
    path.write_text(json.dumps([b for b in bodies if b["name"] == "get_national_holidays"]), encoding="utf-8")
    return path


def indexer_spec(
    address: str, data_dir: Path, catalogue: Path | None = None, catalogue_url: str = ""
) -> ChildSpec:
    """indexer_svc as its own process; with `catalogue` it indexes that file at start."""
    host, port = address.rsplit(":", 1)
    env = {
        "ATC_INDEXER_HOST": host,
        "ATC_INDEXER_PORT": port,
        "ATC_INDEXER_DATA_DIR": str(data_dir),
        "ATC_INDEXER_CATALOGUE_FILE": str(catalogue or ""),
        "ATC_INDEXER_CATALOGUE_BASE_URL": catalogue_url,
        "ATC_INDEXER_SERVICES_FILE": "",
        "ATC_INDEXER_KNOWLEDGE_DIR": "",
    }
    return ChildSpec(
        name="indexer",
        argv=[sys.executable, "-m", "indexer_svc"],
        ready=grpc_ready(address, INDEXER_SERVICE),
        env=env,
        ready_timeout=240,
    )


@contextlib.asynccontextmanager
async def running_indexer(spec: ChildSpec, log_dir: Path) -> AsyncIterator[Supervisor]:
    supervisor = Supervisor([spec], log_dir)
    await supervisor.start_all()
    try:
        yield supervisor
    finally:
        await supervisor.stop(timeout=10)


def assert_clean(turn: TurnResult) -> None:
    """A turn a person can read: the stream ended properly and shows no internals."""
    assert turn.end.event == "end" and turn.end.data["content"] == "END"
    shown = " ".join([turn.text(), *(str(f.data.get("content", "")) for f in turn.of("error"))])
    assert shown.strip(), "the citizen got no answer at all"
    for internal in INTERNALS:
        assert internal not in shown, f"{internal!r} shown to the citizen: {shown!r}"


async def test_indexer_killed_during_search_and_restarted(
    tmp_path: Path, redis_server: EmbeddedRedis, redis_client: aioredis.Redis
) -> None:
    address = f"127.0.0.1:{free_port()}"
    data_dir = tmp_path / "index"
    async with contextlib.AsyncExitStack() as stack:
        demo_url = await stack.enter_async_context(serve_asgi(create_demo_app()))
        first_indexer = await stack.enter_async_context(
            running_indexer(
                indexer_spec(address, data_dir, holidays_catalogue(tmp_path), demo_url), tmp_path / "logs"
            )
        )

        async def start(server: GrpcServer) -> str:
            await server.start()
            stack.push_async_callback(server.stop, 0)
            return server.address

        caller = await start(
            await build_caller(
                CallerSettings(
                    port=0,
                    redis_url=redis_server.url,
                    egress_allow=urlsplit(demo_url).netloc,
                    indexer_target=address,
                )
            )
        )
        loop = await start(
            await build_loop(LoopSettings(port=0, redis_url=redis_server.url, caller_target=caller))
        )
        classifier = await start(
            await build_classifier(ClassifierSettings(port=0, indexer_target=address, loop_target=loop))
        )
        edge_settings = EdgeSettings(port=0, classifier_target=classifier, indexer_target=address)
        edge_url = await stack.enter_async_context(serve_asgi(create_edge_app(edge_settings)))
        edge = await stack.enter_async_context(httpx.AsyncClient(base_url=edge_url, timeout=60))

        holidays_chat = str(uuid.uuid4())
        first = await stream_turn(edge, holidays_chat, "What are the public holidays in Estonia?")
        assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"

        # SIGKILL while turns are searching: whichever way the race goes, each ends cleanly.
        async def kill() -> None:
            await asyncio.sleep(0)
            [pid] = first_indexer.pids.values()
            os.kill(pid, signal.SIGKILL)

        racing = {
            lang: stream_turn(edge, str(uuid.uuid4()), message)
            for lang, message in (("et", "Kui suur on mu sõidukimaks?"), ("ru", "Какие праздники в Латвии?"))
        }
        *during, _ = await asyncio.gather(*racing.values(), kill())
        exited = await asyncio.wait_for(first_indexer.wait_for_exit(), 30)
        assert exited.returncode == -signal.SIGKILL
        for lang, turn in zip(racing, during, strict=True):
            assert_clean(turn)
            searched = turn.end.data["outcome"] in ("TURN_OUTCOME_NEEDS_INPUT", "TURN_OUTCOME_OUT_OF_DOMAIN")
            assert turn.text() == SEARCH_UNAVAILABLE[lang] or searched, turn.frames

        # With the indexer down: a new question is told, in its language, that the search
        # is away for now; small talk is answered as ever; and the chat that had started
        # goes on (its session and endpoint are in Redis, the caller needs no index).
        for lang, message in (("et", "Millised on Eesti riigipühad?"), ("ru", "Какие праздники в Латвии?")):
            down = await stream_turn(edge, str(uuid.uuid4()), message)
            assert_clean(down)
            assert down.text() == SEARCH_UNAVAILABLE[lang]
        hello = await stream_turn(edge, str(uuid.uuid4()), "Hello!")
        assert (hello.end.data["outcome"], hello.text()) == ("TURN_OUTCOME_ANSWERED", GREETING["en"])
        goes_on = await stream_turn(edge, holidays_chat, "2026-01-01 to 2026-12-31")
        assert goes_on.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
        assert "Independence Day" in goes_on.text("TOKEN_KIND_ANSWER")

        # Started again on the same port and data dir, without a catalogue to index.
        await first_indexer.stop()
        await stack.enter_async_context(running_indexer(indexer_spec(address, data_dir), tmp_path / "logs2"))
        # The classifier's channel reconnects by itself (its backoff is capped, see
        # services/runtime/channels.py); until it has, turns still end cleanly.
        for _ in range(60):
            again = await stream_turn(edge, str(uuid.uuid4()), "Какие праздники в Латвии?")
            assert_clean(again)
            if again.text() != SEARCH_UNAVAILABLE["ru"]:
                break
            await asyncio.sleep(0.5)
        assert again.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
        assert "ГГГГ-ММ-ДД" in again.text(), "the holidays endpoint asks for its dates, in Russian"
