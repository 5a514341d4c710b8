"""GET /v1/results/{id} through the edge, a real CallerService and a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis

from caller_svc.app import build_server
from caller_svc.result_store import ResultStore
from caller_svc.settings import CallerSettings
from devtools.redis_server import EmbeddedRedis
from edge_svc.app import create_app
from edge_svc.settings import EdgeSettings

QUERY = {"method": "GET", "url": "https://api.example.ee/PublicHolidays", "params": {"countryIsoCode": "EE"}}


ALICE = "anon:alice"


@pytest.fixture()
async def edge(redis_server: EmbeddedRedis) -> AsyncIterator[httpx.AsyncClient]:
    caller = await build_server(CallerSettings(port=0, redis_url=redis_server.url))
    await caller.start()
    app = create_app(EdgeSettings(caller_target=caller.address))
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://edge"
        ) as client:
            client.app = app  # type: ignore[attr-defined]
            yield client
    finally:
        await caller.stop(0)


def bearer(edge: httpx.AsyncClient, owner_id: str) -> dict[str, str]:
    """The chat token the edge would have issued to `owner_id` (the only way to be an owner)."""
    token = edge.app.state.identity.issue_chat_token(owner_id, "chat-1")  # type: ignore[attr-defined]
    return {"Authorization": f"Bearer {token}"}


async def test_the_owner_reads_a_stored_result(edge, redis_client: aioredis.Redis) -> None:
    result_id = await ResultStore(redis_client).save(
        endpoint_name="get_national_holidays",
        question="Millised on Eesti riigipühad?",
        summary="The API returned a list. 1 item.",
        response=[{"startDate": "2026-01-01"}],
        owner_id=ALICE,
        query=QUERY,
    )
    response = await edge.get(f"/v1/results/{result_id}", headers=bearer(edge, ALICE))
    assert response.status_code == 200
    body = response.json()
    assert body["resultId"] == result_id and body["query"] == QUERY
    assert body["response"] == [{"startDate": "2026-01-01"}]
    assert body["question"] == "Millised on Eesti riigipühad?"
    assert "ownerId" not in body

    other = await edge.get(f"/v1/results/{result_id}", headers=bearer(edge, "anon:mallory"))
    assert other.status_code == 403
    assert other.json()["error"]["reason"] == "RESULT_ACCESS_DENIED"

    anonymous = await edge.get(f"/v1/results/{result_id}")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["reason"] == "OWNER_REQUIRED"

    # A claimed owner (header, query) is not an identity.
    claimed = await edge.get(
        f"/v1/results/{result_id}", headers={"X-Author-Id": ALICE}, params={"authorId": ALICE}
    )
    assert claimed.status_code == 401

    forged = await edge.get(f"/v1/results/{result_id}", headers={"Authorization": "Bearer not.a.token"})
    assert forged.status_code == 401


async def test_unknown_and_malformed_ids(edge) -> None:
    missing = await edge.get(f"/v1/results/{uuid.uuid4()}", headers=bearer(edge, ALICE))
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "Result expired. Ask the user to re-run the query."
    malformed = await edge.get("/v1/results/not-a-uuid", headers=bearer(edge, ALICE))
    assert malformed.status_code == 400 and malformed.json()["error"]["field"] == "result_id"
