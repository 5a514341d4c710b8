"""Hardening, round two, at the edge: each finding of issue 16 as an outsider saw it.

Real `python -m edge_svc` processes and raw sockets where the finding needs them (slow
bodies, oversized heads, the metrics listener); the app in process where a count is
enough (metric series, CSRF, chat ownership)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from edge_svc.app import create_apps
from edge_svc.chat_owners import MemoryChatOwners, RedisChatOwners
from edge_svc.limits import json_depth
from edge_svc.settings import EdgeSettings
from services.errors import PermissionDenied, Unavailable
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE
from tests.edge.conftest import ADMIN_TOKEN
from tests.support import metric_value

JSON = {"content-type": "application/json"}


@dataclass
class Edge:
    host: str
    port: int
    metrics_port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


async def start_edge(**env: str) -> tuple[asyncio.subprocess.Process, Edge]:
    full = {
        **os.environ,
        "ATC_EDGE_PORT": "0",
        "ATC_EDGE_ADMIN_ENABLED": "false",
        "ATC_EDGE_METRICS_PORT": "0",
        # Nothing listens there: every turn that reaches the classifier is an outage.
        "ATC_EDGE_CLASSIFIER_TARGET": "127.0.0.1:9",
        "ATC_EDGE_INDEXER_TARGET": "127.0.0.1:9",
        **env,
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "edge_svc", env=full, stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    lines: list[str] = []
    while not any("metrics on" in line for line in lines):
        line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
        assert line, "the edge exited:\n" + "".join(lines)
        lines.append(line)
    text = "".join(lines)
    public = re.search(r"listening on http://([\d.]+):(\d+)/", text)
    metrics = re.search(r"metrics on http://[\d.]+:(\d+)/metrics", text)
    assert public and metrics, text
    return process, Edge(public[1], int(public[2]), int(metrics[1]))


@pytest.fixture()
async def edge() -> AsyncIterator[Edge]:
    process, started = await start_edge(
        ATC_EDGE_MAX_CONCURRENT_RPCS="2", ATC_EDGE_BODY_READ_TIMEOUT_SECONDS="3"
    )
    try:
        yield started
    finally:
        process.terminate()
        await process.wait()


async def raw_request(edge: Edge, head: bytes, body: bytes = b"", *, timeout: float = 30) -> bytes:
    reader, writer = await asyncio.open_connection(edge.host, edge.port)
    try:
        writer.write(head + body)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


# --- 1. linear checks; the body before the slot ------------------------------------------


def test_depth_check_is_linear_on_escaped_quotes() -> None:
    """`"` then `\\"` repeated with no closing quote: 6.9 s for 32 KB with the regex."""
    for size in (32 * 1024, 256 * 1024):
        body = b'"' + b'\\"' * (size // 2)
        started = time.process_time()
        assert json_depth(body) == 0
        assert time.process_time() - started < 0.2, size
    assert json_depth(b'["\\\\", ["\\"]", {"a": "[["}]]') == 3


async def test_slow_bodies_cost_a_socket_not_a_slot(edge: Edge) -> None:
    """More stalled chunked bodies than there are slots (2): a full turn still gets in
    (here a 503, the classifier being away: never 429), and each stalled one is answered
    408 once its read deadline (3 s) passes."""
    head = (
        b"POST /v1/orchestrate HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    stalled = []
    for _ in range(4):
        reader, writer = await asyncio.open_connection(edge.host, edge.port)
        writer.write(head + b'5\r\n{"a":\r\n')
        await writer.drain()
        stalled.append((reader, writer))
    await asyncio.sleep(0.5)
    async with httpx.AsyncClient(base_url=edge.url, timeout=30) as client:
        turn = await client.post("/v1/orchestrate", json={"chatId": str(uuid.uuid4()), "message": "Hello"})
    assert turn.status_code == 503, turn.text
    assert turn.json()["error"]["message"] == TEMPORARILY_UNAVAILABLE["en"]
    try:
        answers = [await asyncio.wait_for(reader.read(), 30) for reader, _ in stalled]
    finally:
        for _, writer in stalled:
            writer.close()
    assert all(status_of(answer) == 408 for answer in answers), answers


async def test_a_lying_content_length_stalls_nothing(edge: Edge) -> None:
    head = (
        b"POST /v1/orchestrate/stream HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\nConnection: close\r\n\r\n"
    )
    started = time.monotonic()
    answer = await raw_request(edge, head, b'{"chatId":')
    assert status_of(answer) == 408
    assert time.monotonic() - started < 20


# --- 2. metrics: bounded labels, their own listener, canonical path first ----------------


async def test_metric_labels_are_route_templates() -> None:
    apps = create_apps(EdgeSettings(admin_enabled=False))
    assert apps.telemetry is not None
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=apps.public), base_url="http://edge"
    ) as client:
        for _ in range(300):
            reply = await client.post(f"/v1/orchestrate-{uuid.uuid4()}", json={})
            assert reply.status_code in (404, 405)
            await client.get(f"/v1/results/{uuid.uuid4()}")
    text = apps.telemetry.metrics_text().decode()
    assert "orchestrate-" not in text
    series = [line for line in text.splitlines() if line.startswith("atc_rpc_requests_total{")]
    assert len(series) <= 10, series
    labels = {"service": "edge", "method": "other"}
    assert metric_value(apps.telemetry, "atc_rpc_requests_total", {**labels, "code": "404"}) == 300
    assert 'method="/v1/results/{result_id}"' in text


async def test_metrics_only_on_their_own_listener(edge: Edge) -> None:
    for path in (b"/metrics", b"/%6detrics", b"/metrics/", b"//metrics"):
        answer = await raw_request(
            edge, b"GET " + path + b" HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n"
        )
        assert status_of(answer) in (400, 404), (path, answer[:80])
        assert b"atc_rpc" not in answer
    # Non-canonical spellings are refused before anything else: 400, not a 404 of a route.
    answer = await raw_request(edge, b"GET /%6detrics HTTP/1.1\r\nHost: edge\r\nConnection: close\r\n\r\n")
    assert status_of(answer) == 400 and b"NON_CANONICAL_PATH" in answer
    async with httpx.AsyncClient(timeout=30) as client:
        scraped = await client.get(f"http://{edge.host}:{edge.metrics_port}/metrics")
    assert scraped.status_code == 200 and "atc_rpc_requests_total" in scraped.text


# --- 9. oversized heads: 431, not a reset ------------------------------------------------


async def test_oversized_headers_get_431(edge: Edge) -> None:
    big = b"X-Filler: " + b"a" * 40_000 + b"\r\n"
    head = b"POST /v1/orchestrate HTTP/1.1\r\nHost: edge\r\n" + big + b"Content-Type: application/json\r\n"
    answer = await raw_request(edge, head + b"Content-Length: 2\r\nConnection: close\r\n\r\n", b"{}")
    assert status_of(answer) == 431, answer[:120]
    # Sent in pieces (h11's own limit on an incomplete head): 431 as well.
    reader, writer = await asyncio.open_connection(edge.host, edge.port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: edge\r\n")
        for _ in range(40):
            writer.write(b"X-More: " + b"b" * 1000 + b"\r\n")
            await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
    assert status_of(answer) == 431
    async with httpx.AsyncClient(base_url=edge.url, timeout=30) as client:
        assert (await client.get("/healthz")).status_code == 200


# --- 9. CSRF -----------------------------------------------------------------------------


async def test_cookie_posts_need_an_allowed_origin_and_json(http: httpx.AsyncClient, mesh) -> None:
    turn = {"chatId": str(uuid.uuid4()), "message": "Estonia"}
    first = await http.post("/v1/orchestrate", json=turn, headers={"origin": "http://edge"})
    assert first.status_code == 200
    cookie = {"cookie": f"atc_chat_token={first.headers['x-chat-token']}"}
    refusals = [
        ({"origin": "https://evil.example", **JSON}, 403, "CSRF_REFUSED"),
        ({"origin": "null", **JSON}, 403, "CSRF_REFUSED"),
        ({"sec-fetch-site": "cross-site", **JSON}, 403, "CSRF_REFUSED"),
        ({"origin": "http://edge", "content-type": "text/plain"}, 415, "UNSUPPORTED_MEDIA_TYPE"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "UNSUPPORTED_MEDIA_TYPE"),
    ]
    turns_before = len(mesh.classifier.turns)
    for path in ("/v1/orchestrate", "/v1/orchestrate/stream", "/v1/identity"):
        for headers, status, reason in refusals:
            reply = await http.post(
                path, content=b'{"chatId": "x", "message": "m"}', headers={**headers, **cookie}
            )
            assert (reply.status_code, reply.json()["error"]["reason"]) == (status, reason), (path, headers)
            assert "set-cookie" not in reply.headers
    assert len(mesh.classifier.turns) == turns_before
    same_origin = await http.post("/v1/orchestrate", json=turn, headers={"origin": "http://edge", **cookie})
    assert same_origin.status_code == 200


async def test_configured_origins_are_accepted(mesh) -> None:
    from services.clients import ClassifierClient, IndexerClient
    from services.runtime.channels import open_channel

    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    settings = EdgeSettings(allowed_origins=["https://www.eesti.ee"], admin_token=ADMIN_TOKEN)
    apps = create_apps(settings, classifier, indexer)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=apps.public), base_url="http://edge"
        ) as client:
            allowed = await client.post("/v1/identity", json={}, headers={"origin": "https://www.eesti.ee"})
            other = await client.post("/v1/identity", json={}, headers={"origin": "https://eesti.ee.evil"})
    finally:
        await classifier.close()
        await indexer.close()
    assert allowed.status_code == 200 and other.status_code == 403


# --- 5. chat ownership from the first turn -----------------------------------------------


async def test_a_chat_cannot_be_taken_over_between_turns(http: httpx.AsyncClient, mesh) -> None:
    chat = str(uuid.uuid4())
    first = await http.post("/v1/orchestrate", json={"chatId": chat, "message": "Estonia"})
    assert first.status_code == 200
    owner = {"authorization": f"Bearer {first.headers['x-chat-token']}"}
    http.cookies.clear()
    # Another caller (no credential: a new anonymous owner; or its own token) is refused.
    stranger = await http.post("/v1/orchestrate", json={"chatId": str(uuid.uuid4()), "message": "Estonia"})
    other = {"authorization": f"Bearer {stranger.headers['x-chat-token']}"}
    for headers in ({}, other):
        for path in ("/v1/orchestrate", "/v1/orchestrate/stream"):
            http.cookies.clear()
            taken = await http.post(path, json={"chatId": chat, "message": "Estonia"}, headers=headers)
            assert taken.status_code == 403 and taken.json()["error"]["reason"] == "OWNED_BY_ANOTHER"
    # The first owner goes on.
    again = await http.post("/v1/orchestrate", json={"chatId": chat, "message": "Estonia"}, headers=owner)
    assert again.status_code == 200


async def test_chat_owners_in_redis_outlive_the_edge_and_fail_closed(redis_server) -> None:
    from services.redis_client import connect_redis

    owners = RedisChatOwners(connect_redis(redis_server.url), ttl_seconds=60)
    await owners.claim("chat-r", "anon:a")
    await owners.claim("chat-r", "anon:a")
    # A second edge replica (or the same one after a restart) sees the same record.
    replica = RedisChatOwners(connect_redis(redis_server.url), ttl_seconds=60)
    with pytest.raises(PermissionDenied):
        await replica.claim("chat-r", "anon:b")
    await owners.close()
    await replica.close()
    dead = RedisChatOwners(connect_redis("redis://127.0.0.1:9/0", connect_timeout=1), ttl_seconds=60)
    with pytest.raises(Unavailable):
        await dead.claim("chat-r", "anon:b")
    await dead.close()


async def test_memory_owners_expire_with_the_chat() -> None:
    now = [0.0]
    owners = MemoryChatOwners(ttl_seconds=10, clock=lambda: now[0])
    await owners.claim("c", "anon:a")
    with pytest.raises(PermissionDenied):
        await owners.claim("c", "anon:b")
    now[0] = 11
    await owners.claim("c", "anon:b")
