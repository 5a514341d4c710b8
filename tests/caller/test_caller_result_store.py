"""ResultStore against a real Redis."""

from __future__ import annotations

import json
import logging
import uuid

import pytest
import redis.asyncio as aioredis

from caller_svc.result_store import ResultStore
from services.errors import InvalidArgument, NotFound, PermissionDenied, Unavailable

QUERY = {
    "method": "GET",
    "url": "https://openholidaysapi.org/PublicHolidays",
    "params": {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"},
}
RESPONSE = [{"startDate": "2026-01-01", "name": [{"language": "EN", "text": "New Year's Day"}]}]


async def _save(store: ResultStore, owner: str = "alice") -> str:
    result_id = await store.save(
        endpoint_name="get_national_holidays",
        question="Public holidays in Estonia?",
        summary="1 item.",
        response=RESPONSE,
        owner_id=owner,
        query=QUERY,
    )
    assert result_id is not None
    return result_id


async def test_round_trip_with_ttl(redis_client: aioredis.Redis) -> None:
    store = ResultStore(redis_client, ttl_seconds=3600)
    result_id = await _save(store)
    assert uuid.UUID(result_id)
    raw = json.loads(await redis_client.get(f"agent_result:{result_id}"))
    assert set(raw) == {
        "result_id",
        "endpoint_name",
        "question",
        "summary",
        "response",
        "generated_at",
        "owner_id",
        "query",
    }
    assert raw["query"] == QUERY
    assert 3590 <= await redis_client.ttl(f"agent_result:{result_id}") <= 3600
    stored = await store.get(result_id, "alice")
    assert stored.response == RESPONSE
    assert stored.endpoint_name == "get_national_holidays"
    assert stored.question == "Public holidays in Estonia?"
    assert stored.generated_at.endswith("Z")
    assert stored.query == QUERY


async def test_other_owner_is_denied(redis_client: aioredis.Redis) -> None:
    store = ResultStore(redis_client)
    result_id = await _save(store, owner="alice")
    with pytest.raises(PermissionDenied) as denied:
        await store.get(result_id, "mallory")
    assert denied.value.reason == "RESULT_ACCESS_DENIED"
    # An empty owner is no owner: it can neither read...
    with pytest.raises(InvalidArgument) as empty:
        await store.get(result_id, "")
    assert empty.value.field == "owner_id"


async def test_results_without_an_owner_are_not_stored(redis_client: aioredis.Redis) -> None:
    # ...nor store (a result stored for "" would be readable by every anonymous caller).
    store = ResultStore(redis_client)
    before = await redis_client.dbsize()
    assert (
        await store.save(endpoint_name="x", question="q", summary="s", response={"a": 1}, owner_id="") is None
    )
    assert await redis_client.dbsize() == before
    assert store.fallbacks == 0


async def test_missing_or_malformed_id_is_expired(redis_client: aioredis.Redis) -> None:
    store = ResultStore(redis_client)
    for result_id in (str(uuid.uuid4()), "not-a-uuid"):
        with pytest.raises(NotFound) as missing:
            await store.get(result_id, "alice")
        assert missing.value.reason == "RESULT_EXPIRED"
        assert missing.value.message == "Result expired. Ask the user to re-run the query."


async def test_result_expires(redis_client: aioredis.Redis) -> None:
    # Redis keeps the hour (no waiting for it here): the key carries the store's TTL,
    # and once Redis has dropped it the result reads as expired.
    store = ResultStore(redis_client, ttl_seconds=3600)
    result_id = await _save(store)
    assert 3500 < await redis_client.ttl(f"agent_result:{result_id}") <= 3600
    assert (await store.get(result_id, "alice")).result_id == result_id
    await redis_client.delete(f"agent_result:{result_id}")
    with pytest.raises(NotFound) as expired:
        await store.get(result_id, "alice")
    assert expired.value.reason == "RESULT_EXPIRED"


async def test_redis_down_falls_back_without_an_id(closed_port_url: str, caplog) -> None:
    dead = aioredis.Redis.from_url(closed_port_url.replace("http", "redis") + "/0", socket_connect_timeout=5)
    try:
        store = ResultStore(dead)
        with caplog.at_level(logging.WARNING, logger="atc.caller.results"):
            result_id = await store.save(
                endpoint_name="x", question="q", summary="s", response={"a": 1}, owner_id="alice"
            )
        assert result_id is None
        assert store.fallbacks == 1
        assert "redis_fallback=True" in caplog.text
        assert any(getattr(r, "redis_fallback", False) for r in caplog.records)
        with pytest.raises(Unavailable):
            await store.get(str(uuid.uuid4()), "alice")
    finally:
        await dead.aclose()
