"""Two caller_svc replicas share one circuit breaker (its state is in Redis) while the
API behind them flaps: failures seen through one replica open the breaker for the
other, after the cooldown exactly one half-open probe goes out, and its success
closes the breaker for both. Citizens get a localized answer throughout, never a
server error or the API's own error text.

The breaker's clock is injected (one clock shared by both replicas, moved by the
test); nothing here waits for time to pass."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import grpc
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from caller_svc.app import build_server
from caller_svc.http_caller import breaker_key
from caller_svc.messages import FAILURE_MESSAGES, FailureKind
from caller_svc.registry import StaticEndpointRegistry
from caller_svc.settings import CallerSettings
from devtools.launcher.inprocess import serve_asgi
from devtools.redis_server import EmbeddedRedis

THRESHOLD = 2
COOLDOWN = 30.0
# The flapping API's own error text: it must never reach a citizen.
INTERNAL_ERROR = "upstream database pool exhausted (pg-17, shard 3)"


class SharedClock:
    """The wall clock both replicas read; it moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FlappingApi:
    """An HTTP API that fails (503) or answers, as the test switches it. A healthy
    answer can be held at a gate so a probe stays in flight while the other replica
    is asked."""

    healthy: bool = False
    hits: int = 0
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.gate.set()

    def app(self) -> Starlette:
        async def offices(request: Request) -> Response:
            self.hits += 1
            self.arrived.set()
            if not self.healthy:
                return JSONResponse({"error": INTERNAL_ERROR}, status_code=503)
            await self.gate.wait()
            return JSONResponse([{"name": "Tallinn service office", "city": "Tallinn"}])

        return Starlette(routes=[Route("/offices", offices)])


@dataclass
class Replicas:
    api: FlappingApi
    api_url: str
    clock: SharedClock
    a: caller_pb2_grpc.CallerServiceStub
    b: caller_pb2_grpc.CallerServiceStub


@pytest.fixture()
async def replicas(redis_server: EmbeddedRedis, redis_client: aioredis.Redis) -> AsyncIterator[Replicas]:
    api = FlappingApi()
    clock = SharedClock()
    async with contextlib.AsyncExitStack() as stack:
        api_url = await stack.enter_async_context(serve_asgi(api.app()))
        settings = CallerSettings(
            port=0,
            redis_url=redis_server.url,
            breaker_failure_threshold=THRESHOLD,
            breaker_cooldown_seconds=COOLDOWN,
            egress_allow=urlsplit(api_url).netloc,
            stream_chunk_delay_seconds=0,
        )
        stubs = []
        for _ in range(2):
            # Both replicas call the endpoint as the catalogue registers it.
            registry = StaticEndpointRegistry([offices_endpoint(api_url)])
            server = await build_server(settings, clock=clock, registry=registry)
            await server.start()
            stack.push_async_callback(server.stop, 0)
            channel = grpc.aio.insecure_channel(server.address)
            stack.push_async_callback(channel.close)
            stubs.append(caller_pb2_grpc.CallerServiceStub(channel))
        yield Replicas(api, api_url, clock, *stubs)


@dataclass
class Turn:
    outcome: turn_event_pb2.CallOutcome
    answer: str
    end: turn_event_pb2.End


LANGUAGES = {"en": chat_pb2.LANGUAGE_EN, "et": chat_pb2.LANGUAGE_ET, "ru": chat_pb2.LANGUAGE_RU}


def offices_endpoint(api_url: str) -> catalogue_pb2.Endpoint:
    return catalogue_pb2.Endpoint(
        endpoint_id="7d0c3f52-1b7e-4f55-9a7e-3c1d2b4a5e60",
        name="get_service_offices",
        description="Service offices",
        method="GET",
        url=f"{api_url}/offices",
    )


async def ask(stub: caller_pb2_grpc.CallerServiceStub, api_url: str, lang: str) -> Turn:
    """One ExecuteCalls as the loop sends it; the stream must end OK (no server error)."""
    endpoint = offices_endpoint(api_url)
    request = caller_pb2.ExecuteCallsRequest(
        calls=[caller_pb2.EndpointCall(endpoint=endpoint)],
        user_query="Where are the service offices?",
        language=LANGUAGES[lang],
        owner_id="anon:citizen",
        chat_id="chat-flap",
    )
    events = [r.event async for r in stub.ExecuteCalls(request, timeout=30)]
    outcomes = [e.call_outcome for e in events if e.WhichOneof("kind") == "call_outcome"]
    ends = [e.end for e in events if e.WhichOneof("kind") == "end"]
    assert not [e for e in events if e.WhichOneof("kind") == "error"]
    assert len(outcomes) == 1 and len(ends) == 1
    answer = "".join(e.token.text for e in events if e.WhichOneof("kind") == "token")
    assert INTERNAL_ERROR not in answer and "503" not in answer and "Traceback" not in answer
    return Turn(outcomes[0], answer, ends[0])


async def breaker_state(redis_client: aioredis.Redis, api_url: str) -> str | None:
    return await redis_client.hget(f"atc:breaker:{breaker_key(offices_endpoint(api_url).url)}", "state")


async def test_replicas_share_the_breaker_while_the_api_flaps(
    replicas: Replicas, redis_client: aioredis.Redis
) -> None:
    api, url, clock = replicas.api, replicas.api_url, replicas.clock
    unavailable = FAILURE_MESSAGES[FailureKind.SERVICE_UNAVAILABLE]
    breaker_open = FAILURE_MESSAGES[FailureKind.CIRCUIT_BREAKER_OPEN]

    # The API fails; replica A sees it fail THRESHOLD times (the second time in Russian).
    first = await ask(replicas.a, url, "et")
    assert (first.outcome.success, first.outcome.http_status) == (False, 503)
    assert unavailable["et"] in first.answer
    assert await breaker_state(redis_client, url) == "CLOSED"
    second = await ask(replicas.a, url, "ru")
    assert unavailable["ru"] in second.answer
    assert await breaker_state(redis_client, url) == "OPEN"
    assert api.hits == THRESHOLD

    # Replica B never saw a failure, yet does not call the API: the breaker is shared.
    blocked = await ask(replicas.b, url, "et")
    assert (blocked.outcome.success, blocked.outcome.http_status) == (False, 0)
    assert breaker_open["et"] in blocked.answer
    assert blocked.end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED
    assert api.hits == THRESHOLD

    # The API recovers, but within the cooldown neither replica tries it.
    api.healthy = True
    clock.advance(COOLDOWN - 1)
    for stub, lang in ((replicas.a, "en"), (replicas.b, "ru")):
        held_off = await ask(stub, url, lang)
        assert breaker_open[lang] in held_off.answer
    assert api.hits == THRESHOLD

    # After the cooldown the API flaps back down: B's probe fails and the breaker
    # re-opens for both at once (no new count of failures needed).
    api.healthy = False
    clock.advance(2)
    failed_probe = await ask(replicas.b, url, "en")
    assert unavailable["en"] in failed_probe.answer
    assert api.hits == THRESHOLD + 1
    assert await breaker_state(redis_client, url) == "OPEN"
    assert breaker_open["et"] in (await ask(replicas.a, url, "et")).answer
    assert api.hits == THRESHOLD + 1

    # Healthy again, one more cooldown: A's probe is the only call that goes out.
    # It is held in flight while B is asked, which must not send a second probe.
    api.healthy = True
    api.gate.clear()
    api.arrived.clear()
    clock.advance(COOLDOWN + 1)
    probe = asyncio.create_task(ask(replicas.a, url, "et"))
    await asyncio.wait_for(api.arrived.wait(), 30)
    assert await breaker_state(redis_client, url) == "HALF_OPEN"
    during_probe = await ask(replicas.b, url, "ru")
    assert breaker_open["ru"] in during_probe.answer
    assert api.hits == THRESHOLD + 2
    api.gate.set()
    passed = await asyncio.wait_for(probe, 30)
    assert (passed.outcome.success, passed.outcome.http_status) == (True, 200)
    assert passed.end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert "Tallinn service office" in passed.answer

    # The probe's success closed the breaker for both replicas.
    assert await breaker_state(redis_client, url) is None
    for stub, lang in ((replicas.b, "ru"), (replicas.a, "en")):
        served = await ask(stub, url, lang)
        assert served.outcome.success and "Tallinn service office" in served.answer
    assert api.hits == THRESHOLD + 4
