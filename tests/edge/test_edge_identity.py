"""Who a turn acts for: user JWTs (JWKS or PEM, issuer and audience checked) and the
edge's anonymous chat tokens (header and cookie), never the body's authorId."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from edge_svc.identity import CHAT_TOKEN_COOKIE, CHAT_TOKEN_HEADER
from edge_svc.settings import EdgeSettings
from tests.edge.conftest import ADMIN_TOKEN

ISSUER = "https://login.example.ee"
AUDIENCE = "atc-mesh"


@pytest.fixture(scope="module")
def signing_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="module")
def other_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture()
def jwks_file(tmp_path: Path, signing_key: ec.EllipticCurvePrivateKey) -> Path:
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(signing_key.public_key()))
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "ES256"}]}))
    return path


@pytest.fixture()
def edge_settings(jwks_file: Path) -> EdgeSettings:
    return EdgeSettings(
        request_timeout_seconds=30,
        admin_token=ADMIN_TOKEN,
        jwt_jwks_file=jwks_file,
        jwt_issuer=ISSUER,
        jwt_audience=AUDIENCE,
    )


def user_token(key: ec.EllipticCurvePrivateKey, **claims: object) -> str:
    now = int(time.time())
    payload = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "iat": now, "exp": now + 600, **claims}
    return jwt.encode(payload, key, algorithm="ES256")


def turn(chat_id: str | None = None, **extra: object) -> dict:
    return {"chatId": chat_id or f"chat-{uuid.uuid4().hex[:8]}", "message": "Estonia", **extra}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def test_valid_user_jwt_is_the_owner(http: httpx.AsyncClient, mesh, signing_key) -> None:
    reply = await http.post(
        "/v1/orchestrate", json=turn(authorId="mallory"), headers=bearer(user_token(signing_key))
    )
    assert reply.status_code == 200, reply.text
    assert mesh.classifier.turns[0].owner_id == "user:alice"
    assert CHAT_TOKEN_HEADER not in reply.headers, "signed-in users need no chat token"


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": int(time.time()) - 3600}, "TOKEN_EXPIRED"),
        ({"aud": "someone-else"}, "WRONG_AUDIENCE"),
        ({"iss": "https://evil.example"}, "WRONG_ISSUER"),
    ],
)
async def test_bad_user_jwt_is_401(http: httpx.AsyncClient, mesh, signing_key, claims, reason) -> None:
    reply = await http.post(
        "/v1/orchestrate/stream", json=turn(), headers=bearer(user_token(signing_key, **claims))
    )
    assert reply.status_code == 401
    assert reply.json()["error"]["reason"] == reason
    assert mesh.classifier.turns == []


async def test_jwt_signed_by_another_key_is_401(http: httpx.AsyncClient, mesh, other_key) -> None:
    reply = await http.post("/v1/orchestrate", json=turn(), headers=bearer(user_token(other_key)))
    assert reply.status_code == 401
    assert reply.json()["error"]["reason"] == "BAD_SIGNATURE"
    assert mesh.classifier.turns == []


async def test_unsigned_and_malformed_tokens_are_401(http: httpx.AsyncClient, mesh) -> None:
    unsigned = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": 2**31}, None, algorithm="none"
    )
    for headers in (bearer(unsigned), bearer("not-a-jwt"), {"authorization": "Basic YWxpY2U6eA=="}):
        reply = await http.post("/v1/orchestrate", json=turn(), headers=headers)
        assert reply.status_code == 401, headers
    assert mesh.classifier.turns == []


async def test_pem_public_key_works_too(mesh, tmp_path: Path, signing_key) -> None:
    from edge_svc.app import create_app
    from services.clients import ClassifierClient, IndexerClient
    from services.runtime.channels import open_channel

    pem = tmp_path / "key.pem"
    pem.write_bytes(
        signing_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    settings = EdgeSettings(jwt_public_key_file=pem, jwt_issuer=ISSUER, jwt_audience=AUDIENCE)
    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        app = create_app(settings, classifier, indexer)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://edge"
        ) as client:
            reply = await client.post(
                "/v1/orchestrate", json=turn(), headers=bearer(user_token(signing_key, sub="bob"))
            )
    finally:
        await classifier.close()
        await indexer.close()
    assert reply.status_code == 200, reply.text
    assert mesh.classifier.turns[0].owner_id == "user:bob"


async def test_anonymous_chat_token_round_trip(http: httpx.AsyncClient, mesh) -> None:
    chat_id = f"chat-{uuid.uuid4().hex[:8]}"
    first = await http.post("/v1/orchestrate/stream", json=turn(chat_id, message="holidays"))
    assert first.status_code == 200
    token = first.headers[CHAT_TOKEN_HEADER]
    cookie = first.headers["set-cookie"]
    assert f"{CHAT_TOKEN_COOKIE}={token}" in cookie
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    owner = mesh.classifier.turns[0].owner_id
    assert owner.startswith("anon:")

    # Back as a bearer token from a client without cookies: same owner, nothing new issued.
    async with httpx.AsyncClient(transport=http._transport, base_url="http://edge") as api:
        second = await api.post("/v1/orchestrate", json=turn(chat_id), headers=bearer(token))
    assert second.status_code == 200
    assert CHAT_TOKEN_HEADER not in second.headers
    assert mesh.classifier.turns[1].owner_id == owner

    # Back as the cookie (the chat page).
    third = await http.post("/v1/orchestrate", json=turn(chat_id))
    assert third.status_code == 200 and mesh.classifier.turns[2].owner_id == owner

    # A new chat keeps the owner and gets a token bound to it.
    other = await http.post("/v1/orchestrate", json=turn(), headers=bearer(token))
    assert other.status_code == 200
    assert mesh.classifier.turns[3].owner_id == owner
    assert jwt.decode(other.headers[CHAT_TOKEN_HEADER], options={"verify_signature": False})["sub"] == owner


async def test_forged_or_foreign_chat_token_is_401(http: httpx.AsyncClient, mesh) -> None:
    forged = jwt.encode(
        {"iss": "atc-edge", "aud": "atc-chat", "sub": "anon:victim", "chat": "c", "exp": 2**31},
        "a-guessed-secret-that-is-long-enough-for-hs256",
        algorithm="HS256",
    )
    reply = await http.post("/v1/orchestrate", json=turn("c"), headers=bearer(forged))
    assert reply.status_code == 401
    assert reply.json()["error"]["reason"] == "BAD_SIGNATURE"
    http.cookies.set(CHAT_TOKEN_COOKIE, forged)
    reply = await http.post("/v1/orchestrate", json=turn("c"))
    assert reply.status_code == 401
    assert mesh.classifier.turns == []


async def test_anonymous_off_requires_a_token(mesh) -> None:
    from edge_svc.app import create_app
    from services.clients import ClassifierClient, IndexerClient
    from services.runtime.channels import open_channel

    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        app = create_app(EdgeSettings(anonymous_enabled=False), classifier, indexer)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://edge"
        ) as client:
            reply = await client.post("/v1/orchestrate", json=turn())
            page = await client.post("/v1/identity", json={})
    finally:
        await classifier.close()
        await indexer.close()
    assert reply.status_code == 401
    assert mesh.classifier.turns == []
    # Nor is an anonymous identity handed to the page.
    assert page.status_code == 401 and page.json()["error"]["reason"] == "UNAUTHENTICATED"
    assert CHAT_TOKEN_HEADER not in page.headers


async def test_owner_refused_downstream_is_403(http: httpx.AsyncClient, mesh) -> None:
    reply = await http.post("/v1/orchestrate/stream", json=turn(message="not-yours"))
    assert reply.status_code == 403
    assert reply.json()["error"]["reason"] == "OWNED_BY_ANOTHER"
    assert CHAT_TOKEN_HEADER not in reply.headers


async def test_the_page_identity_is_issued_once_and_kept(http: httpx.AsyncClient, mesh) -> None:
    first = await http.post("/v1/identity", json={})
    assert first.status_code == 200 and first.json() == {"kind": "anonymous", "issued": True}
    token = first.headers[CHAT_TOKEN_HEADER]
    cookie = first.headers["set-cookie"]
    assert f"{CHAT_TOKEN_COOKIE}={token}" in cookie and "httponly" in cookie.lower()
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["sub"].startswith("anon:") and claims["chat"] == ""
    # Asked again (another tab, a reload) with the cookie: nothing new.
    again = await http.post("/v1/identity", json={})
    assert again.json() == {"kind": "anonymous", "issued": False}
    assert "set-cookie" not in again.headers
    # The first turn of a chat acts as that owner and gets a token bound to the chat.
    chat_id = f"chat-{uuid.uuid4().hex[:8]}"
    reply = await http.post("/v1/orchestrate", json=turn(chat_id))
    assert reply.status_code == 200
    assert mesh.classifier.turns[0].owner_id == claims["sub"]
    bound = jwt.decode(reply.headers[CHAT_TOKEN_HEADER], options={"verify_signature": False})
    assert bound["chat"] == chat_id


async def test_a_page_identity_that_no_longer_verifies_is_replaced(http: httpx.AsyncClient, mesh) -> None:
    expired = jwt.encode(
        {"iss": "atc-edge", "aud": "atc-chat", "sub": "anon:old", "chat": "", "exp": 1},
        "a-guessed-secret-that-is-long-enough-for-hs256",
        algorithm="HS256",
    )
    http.cookies.set(CHAT_TOKEN_COOKIE, expired)
    reply = await http.post("/v1/identity", json={})
    assert reply.status_code == 200 and reply.json()["issued"] is True
    assert owner_of(reply.headers[CHAT_TOKEN_HEADER]) != "anon:old"
    # A bad bearer token is the caller's error, not replaced.
    bad = await http.post("/v1/identity", json={}, headers=bearer(expired))
    assert bad.status_code == 401


async def test_a_signed_in_user_needs_no_page_identity(http: httpx.AsyncClient, mesh, signing_key) -> None:
    reply = await http.post("/v1/identity", json={}, headers=bearer(user_token(signing_key)))
    assert reply.status_code == 200 and reply.json() == {"kind": "user", "issued": False}
    assert CHAT_TOKEN_HEADER not in reply.headers


def owner_of(token: str) -> str:
    return str(jwt.decode(token, options={"verify_signature": False})["sub"])
