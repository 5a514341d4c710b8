"""Seed Part 8's four-turn example and other follow-ups through the whole mesh,
with the demo APIs behind a counter: the number of real API calls is asserted
after every turn."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from starlette.types import ASGIApp, Receive, Scope, Send

from services.demo_apis.app import create_app as create_demo_app
from services.launcher.inprocess import InProcessMesh, running_mesh
from services.redis_server import EmbeddedRedis
from tests.e2e.sse import TurnResult, stream_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")


class CountingApp:
    """The demo APIs, counting requests by path."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self.calls: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.calls[scope["path"]] += 1
        await self._app(scope, receive, send)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


@pytest.fixture(scope="module")
def follow_redis() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest.fixture(scope="module")
def apis() -> CountingApp:
    return CountingApp(create_demo_app())


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mesh(
    follow_redis: EmbeddedRedis, apis: CountingApp, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[InProcessMesh]:
    async with running_mesh(follow_redis.url, tmp_path_factory.mktemp("index"), demo_app=apis) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(mesh: InProcessMesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def redis(follow_redis: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(follow_redis.url, decode_responses=True)
    yield client
    await client.aclose()


async def last_calls(redis: aioredis.Redis, chat_id: str, expected: dict[str, str]) -> list[dict]:
    """L2 once the background write has landed (it never delays the answer)."""
    for _ in range(200):
        raw = await redis.get(f"atc:last:{chat_id}")
        if raw is not None:
            contexts = json.loads(raw)
            if all(contexts[0]["collected_params"].get(k) == v for k, v in expected.items()):
                return contexts
        await asyncio.sleep(0.05)
    raise AssertionError(f"atc:last:{chat_id} never held {expected}")


def outcome(turn: TurnResult) -> str:
    return turn.end.data["outcome"]


async def test_part8_four_turn_example(
    edge: httpx.AsyncClient, apis: CountingApp, redis: aioredis.Redis
) -> None:
    chat = str(uuid.uuid4())
    before = apis.total

    first = await stream_turn(edge, chat, "What are the public holidays in Estonia in 2026?")
    assert outcome(first) == "TURN_OUTCOME_ANSWERED"
    assert apis.total - before == 1
    assert "Independence Day" in first.text("TOKEN_KIND_ANSWER")
    (last,) = await last_calls(redis, chat, {"countryIsoCode": "EE"})
    assert last["api_name"] == "get_national_holidays"
    year_2026 = {"validFrom": "2026-01-01", "validTo": "2026-12-31"}
    assert last["collected_params"] == {"countryIsoCode": "EE", **year_2026}
    assert len(await redis.keys(f"atc:cache:{chat}:get_national_holidays:*")) == 1

    second = await stream_turn(edge, chat, "Same for Latvia?")
    assert outcome(second) == "TURN_OUTCOME_ANSWERED", second.frames
    assert apis.total - before == 2, "param_update calls the API directly, no loop turns"
    assert not second.of("question")
    assert "Jāņi" in second.text("TOKEN_KIND_ANSWER") or "Midsummer" in second.text("TOKEN_KIND_ANSWER")
    await last_calls(redis, chat, {"countryIsoCode": "LV", "validFrom": "2026-01-01"})

    third = await stream_turn(edge, chat, "Which of those is a bank holiday?")
    assert outcome(third) == "TURN_OUTCOME_CACHED", third.frames
    assert apis.total - before == 2, "response_question is answered from the cached response"
    assert third.text("TOKEN_KIND_ANSWER")

    fourth = await stream_turn(edge, chat, "What is the vehicle tax for 123ABC in 2026?")
    assert outcome(fourth) == "TURN_OUTCOME_ANSWERED", fourth.frames
    assert apis.total - before == 3
    (switched,) = await last_calls(redis, chat, {"regNr": "123ABC"})
    assert switched["api_name"] == "get_vehicle_tax_info", "L2 now holds only the new intent"


async def test_repeated_question_is_answered_from_l1(
    edge: httpx.AsyncClient, apis: CountingApp, redis: aioredis.Redis
) -> None:
    chat = str(uuid.uuid4())
    before = apis.total
    first = await stream_turn(edge, chat, "Millised on Eesti riigipühad 2026?")
    assert outcome(first) == "TURN_OUTCOME_ANSWERED"
    await last_calls(redis, chat, {"countryIsoCode": "EE"})
    again = await stream_turn(edge, chat, "Millised on Eesti riigipühad 2026?")
    assert outcome(again) == "TURN_OUTCOME_CACHED"
    assert apis.total - before == 1
    assert "uusaasta" in again.text("TOKEN_KIND_ANSWER").lower()


async def test_russian_follow_up_for_another_country(
    edge: httpx.AsyncClient, apis: CountingApp, redis: aioredis.Redis
) -> None:
    chat = str(uuid.uuid4())
    before = apis.total
    await stream_turn(edge, chat, "Какие праздники в Эстонии в 2026 году?")
    await last_calls(redis, chat, {"countryIsoCode": "EE"})
    second = await stream_turn(edge, chat, "А в Латвии?")
    assert outcome(second) == "TURN_OUTCOME_ANSWERED", second.frames
    assert apis.total - before == 2
    await last_calls(redis, chat, {"countryIsoCode": "LV"})


async def test_unknown_plate_is_asked_again(edge: httpx.AsyncClient, apis: CountingApp) -> None:
    chat = str(uuid.uuid4())
    first = await stream_turn(edge, chat, "What is the vehicle tax for AB12CD in 2026?")
    assert outcome(first) == "TURN_OUTCOME_NEEDS_INPUT", first.frames
    (question,) = first.of("question")
    assert question.data["missingParams"] == ["regNr"]
    assert "registration number" in first.text("TOKEN_KIND_QUESTION")
    second = await stream_turn(edge, chat, "123ABC")
    assert outcome(second) == "TURN_OUTCOME_ANSWERED", second.frames
