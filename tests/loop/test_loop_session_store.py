"""SessionStore against a real Redis server."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis

from loop_svc.schema import EndpointSpec
from loop_svc.session import Session, SessionState, SessionStore
from services.errors import Unavailable


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
    await store.save(session)

    raw = await redis_client.get("session:chat-a")
    assert raw is not None and json.loads(raw)["language"] == "et"
    assert 1790 <= await redis_client.ttl("session:chat-a") <= 1800
    loaded = await store.get("chat-a")
    assert loaded == session
    assert loaded.state is SessionState.AWAITING_CONTINUATION and loaded.endpoints[0].params[0].required


async def test_ttl_slides_on_every_save(redis_client: aioredis.Redis, holidays: EndpointSpec) -> None:
    store = SessionStore(redis_client, ttl_seconds=600)
    session = _session("chat-ttl", holidays)
    await store.save(session)
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
    store = SessionStore(redis_client, lock_seconds=5, lock_wait_seconds=0.2)
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
