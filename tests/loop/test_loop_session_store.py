"""SessionStore against a real Redis server."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis

from loop_svc.extraction import RuleExtractor
from loop_svc.loop import TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.session import Session, SessionConflict, SessionState, SessionStore
from loop_svc.turns import TurnRequest, TurnRunner
from services.errors import Unavailable
from services.language import Lang


def _session(chat_id: str, endpoint: EndpointSpec, **values: str) -> Session:
    return Session(
        chat_id=chat_id,
        endpoints=[endpoint],
        collected={endpoint.name: dict(values)} if values else {},
        language="et",
        original_query="Millised on Eesti riigipühad?",
        turn_count=1,
    )


async def test_round_trip_as_json_with_ttl(redis_client: aioredis.Redis, holidays: EndpointSpec) -> None:
    store = SessionStore(redis_client, ttl_seconds=1800)
    session = _session("chat-a", holidays, countryIsoCode="EE")
    session.state = SessionState.AWAITING_CONTINUATION
    saved = await store.save(session)

    raw = await redis_client.get("session:chat-a")
    assert raw is not None and json.loads(raw)["language"] == "et"
    assert 1790 <= await redis_client.ttl("session:chat-a") <= 1800
    loaded = await store.get("chat-a")
    assert loaded == saved and saved.version == session.version + 1
    assert loaded.state is SessionState.AWAITING_CONTINUATION and loaded.endpoints[0].params[0].required


async def test_ttl_slides_on_every_save(redis_client: aioredis.Redis, holidays: EndpointSpec) -> None:
    store = SessionStore(redis_client, ttl_seconds=600)
    session = await store.save(_session("chat-ttl", holidays))
    await redis_client.expire("session:chat-ttl", 5)  # as if most of the period had passed
    assert await store.ttl("chat-ttl") <= 5
    session.turn_count = 2
    await store.save(session)
    assert await store.ttl("chat-ttl") > 500


async def test_chats_are_isolated_and_delete_reports(
    redis_client: aioredis.Redis, holidays: EndpointSpec
) -> None:
    store = SessionStore(redis_client)
    await store.save(_session("chat-1", holidays, countryIsoCode="EE"))
    await store.save(_session("chat-2", holidays))
    second = await store.get("chat-2")
    assert second is not None and second.collected == {}
    assert await store.get("chat-3") is None
    assert await store.delete("chat-1") is True
    assert await store.delete("chat-1") is False
    assert await store.get("chat-1") is None and await store.get("chat-2") is not None


async def test_lock_serialises_turns_of_one_chat(redis_client: aioredis.Redis) -> None:
    store = SessionStore(redis_client, lock_seconds=60, lock_wait_seconds=1)
    async with store.locked("chat-x"):
        assert await redis_client.exists("lock:session:chat-x") == 1
        with pytest.raises(Unavailable) as busy:
            async with store.locked("chat-x"):
                pass
        assert busy.value.reason == "SESSION_BUSY"
        async with store.locked("chat-y"):  # other chats are not held up
            pass
    assert await redis_client.exists("lock:session:chat-x") == 0

    order: list[str] = []

    waiting = SessionStore(redis_client, lock_seconds=5, lock_wait_seconds=3)

    async def turn(name: str) -> None:
        async with waiting.locked("chat-z"):
            order.append(f"{name}-in")
            await asyncio.sleep(0.05)
            order.append(f"{name}-out")

    await asyncio.gather(turn("a"), turn("b"))
    assert order in (["a-in", "a-out", "b-in", "b-out"], ["b-in", "b-out", "a-in", "a-out"])


async def test_a_stale_writer_loses_the_compare_and_set(
    redis_client: aioredis.Redis, holidays: EndpointSpec
) -> None:
    store = SessionStore(redis_client)
    read = await store.save(_session("chat-cas", holidays))
    first, second = read.model_copy(deep=True), read.model_copy(deep=True)
    first.collected = {holidays.name: {"countryIsoCode": "LV"}}
    second.collected = {holidays.name: {"validFrom": "2026-01-01"}}
    await store.save(first)
    with pytest.raises(SessionConflict):
        await store.save(second)
    stored = await store.get("chat-cas")
    assert stored is not None and stored.collected == first.collected and stored.version == read.version + 1


async def test_two_concurrent_turns_of_one_chat_lose_nothing(
    redis_client: aioredis.Redis, extractor: RuleExtractor
) -> None:
    tax = EndpointSpec(
        name="tax",
        params=[
            ParamSpec(name="countryIsoCode", type="string", required=True, description="ISO country code"),
            ParamSpec(name="calculationYear", type="integer", required=True),
            ParamSpec(name="regNr", type="string", required=True),
        ],
    )
    runner = TurnRunner(SessionStore(redis_client, lock_wait_seconds=10), TurnLoop(extractor), _English())
    await runner.run(TurnRequest("chat-two", "vehicle tax please", [tax], owner_id="u1"))
    await asyncio.gather(
        runner.run(TurnRequest("chat-two", "Latvia", resume=True, owner_id="u1")),
        runner.run(TurnRequest("chat-two", "the year 2026", resume=True, owner_id="u1")),
    )
    session = await runner.get("chat-two", "u1")
    assert session.collected["tax"] == {"countryIsoCode": "LV", "calculationYear": "2026"}
    assert session.turn_count == 3


class _English:
    def detect(self, text: str, fallback: Lang | None = None) -> Lang:
        return "en"
