"""The response cache across the real mesh parts: loop_svc and caller_svc as real gRPC
servers on port 0, a real Redis, a stand-in HTTP API that counts its requests. A body
lives only in the caller's result store; the loop's cache names it by result id, so a
cached follow-up turn makes no HTTP call and reads no body back (no GetResult)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import grpc
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from caller_svc.app import build_server as build_caller
from caller_svc.registry import StaticEndpointRegistry
from caller_svc.settings import CallerSettings
from devtools.redis_server import EmbeddedRedis
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.runtime.server import GrpcServer
from services.runtime.telemetry import Telemetry
from tests.caller.conftest import allow_list_setting
from tests.support import serve_asgi_in_thread

HOLIDAYS_2026 = [
    {"startDate": "2026-01-01", "endDate": "2026-01-01", "name": [{"language": "EN", "text": "New Year"}]},
    {
        "startDate": "2026-12-24",
        "endDate": "2026-12-24",
        "name": [{"language": "EN", "text": "Christmas Eve"}],
    },
]


@pytest.fixture(scope="module")
def stand_in_api() -> Iterator[tuple[str, Counter[str]]]:
    hits: Counter[str] = Counter()

    async def holidays(request: Request) -> Response:
        hits[request.url.path] += 1
        return JSONResponse(HOLIDAYS_2026)

    with serve_asgi_in_thread(Starlette(routes=[Route("/holidays", holidays)])) as url:
        yield url, hits


@dataclass
class Mesh:
    loop: loop_pb2_grpc.LoopServiceStub
    caller: GrpcServer
    endpoint: catalogue_pb2.Endpoint
    hits: Counter[str]
    redis: aioredis.Redis


@pytest.fixture()
async def mesh(
    redis_server: EmbeddedRedis, redis_client: aioredis.Redis, stand_in_api: tuple[str, Counter[str]]
) -> AsyncIterator[Mesh]:
    url, hits = stand_in_api
    endpoint = catalogue_pb2.Endpoint(
        endpoint_id=str(uuid.uuid4()),
        name="get_public_holidays",
        description="Public holidays of a country between two dates",
        method="GET",
        url=f"{url}/holidays",
        visibility="public",
        type="custom_endpoint",
        params=[
            catalogue_pb2.EndpointParam(
                name="countryIsoCode",
                type="string",
                required=True,
                description="The 2-letter ISO country code",
            ),
            catalogue_pb2.EndpointParam(
                name="validFrom", type="date", required=True, description="Start date"
            ),
            catalogue_pb2.EndpointParam(name="validTo", type="date", required=True, description="End date"),
        ],
        cacheable=True,
    )
    caller = await build_caller(
        CallerSettings(port=0, redis_url=redis_server.url, egress_allow=allow_list_setting(url)),
        registry=StaticEndpointRegistry([endpoint]),
    )
    await caller.start()
    loop = await build_loop(
        LoopSettings(host="127.0.0.1", port=0, redis_url=redis_server.url, caller_target=caller.address)
    )
    await loop.start()
    channel = grpc.aio.insecure_channel(loop.address)
    try:
        yield Mesh(loop_pb2_grpc.LoopServiceStub(channel), caller, endpoint, hits, redis_client)
    finally:
        await channel.close()
        await loop.stop(0)
        await caller.stop(0)


def served(telemetry: Telemetry, method: str) -> float:
    """RPCs of `method` the server has answered, whatever their status."""
    return sum(
        sample.value
        for metric in telemetry.registry.collect()
        if metric.name == "atc_rpc_requests"
        for sample in metric.samples
        if sample.name == "atc_rpc_requests_total" and sample.labels.get("method", "").endswith(method)
    )


async def turn(mesh: Mesh, message: str) -> list[turn_event_pb2.TurnEvent]:
    request = loop_pb2.RunTurnRequest(
        turn=chat_pb2.ChatTurn(chat_id="chat-c", message=message, owner_id="citizen-1", request_id="req-c"),
        endpoints=[mesh.endpoint],
        language=chat_pb2.LANGUAGE_EN,
    )
    return [response.event async for response in mesh.loop.RunTurn(request)]


def text(events: list[turn_event_pb2.TurnEvent]) -> str:
    return "".join(e.token.text for e in events if e.HasField("token"))


async def test_a_cached_follow_up_makes_no_http_call_and_reads_no_body_back(mesh: Mesh) -> None:
    first = await turn(mesh, "holidays 2026-01-01 2026-12-31 EE")
    assert first[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    (result_id,) = [e.call_outcome.result_id for e in first if e.HasField("call_outcome")]
    assert result_id and mesh.hits["/holidays"] == 1

    # The same question again (L1), then one about the rows shown (L2): both answered by
    # the caller from the result the cache names.
    again = await turn(mesh, "holidays 2026-01-01 2026-12-31 EE")
    december = await turn(mesh, "Which of those are in December?")
    for events in (again, december):
        assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_CACHED
        assert [e.call_outcome.result_id for e in events if e.HasField("call_outcome")] == [result_id]
    assert text(again) == text(first)
    assert "Christmas Eve" in text(december) and "New Year" not in text(december)

    assert mesh.hits["/holidays"] == 1
    assert served(mesh.caller.telemetry, "ExecuteCalls") == 3
    assert served(mesh.caller.telemetry, "GetResult") == 0
    # One body for the three turns, in the caller's result store only: the loop's keys
    # (sessions, L1, L2) hold no row's value (its dates are only in the body).
    assert [k async for k in mesh.redis.scan_iter("agent_result:*")] == [f"agent_result:{result_id}"]
    assert "2026-12-24" in (await mesh.redis.get(f"agent_result:{result_id}") or "")
    loop_keys = [
        k async for k in mesh.redis.scan_iter("*") if not k.startswith(("agent_result:", "atc:breaker"))
    ]
    assert any(k.startswith("atc:cache:") for k in loop_keys) and "atc:last:chat-c" in loop_keys
    for key in loop_keys:
        value = await mesh.redis.get(key) if await mesh.redis.type(key) == "string" else ""
        assert "2026-12-24" not in (value or ""), key


async def test_a_result_gone_from_the_store_is_a_miss(mesh: Mesh) -> None:
    """The cache names a result the store no longer has (flushed): the caller makes the
    call, and the cache then names the new result."""
    first = await turn(mesh, "holidays 2026-01-01 2026-12-31 EE")
    (gone,) = [e.call_outcome.result_id for e in first if e.HasField("call_outcome")]
    await mesh.redis.delete(f"agent_result:{gone}")
    hits = mesh.hits["/holidays"]
    again = await turn(mesh, "holidays 2026-01-01 2026-12-31 EE")
    assert again[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    (fresh,) = [e.call_outcome.result_id for e in again if e.HasField("call_outcome")]
    assert fresh and fresh != gone and mesh.hits["/holidays"] == hits + 1
    assert text(again) == text(first)
    third = await turn(mesh, "holidays 2026-01-01 2026-12-31 EE")
    assert third[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_CACHED
    assert [e.call_outcome.result_id for e in third if e.HasField("call_outcome")] == [fresh]
