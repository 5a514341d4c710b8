"""Admin only on the admin listener, only with its token; the public listener refuses
every spelling of an admin path (and every non-canonical path) before routing."""

from __future__ import annotations

from urllib.parse import unquote

import httpx
import pytest
from starlette.types import ASGIApp

from atc.common.v1 import catalogue_pb2
from edge_svc.paths import is_canonical
from tests.edge.conftest import ADMIN_TOKEN


async def call_raw(
    app: ASGIApp, method: str, raw_path: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[bytes, bytes]]:
    """One request with an exact raw path, the way uvicorn builds the scope
    (path = percent-decoded raw path): no client library normalises it first."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(raw_path.decode("latin-1")),
        "raw_path": raw_path,
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        + [(b"host", b"edge")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent: list[dict] = []
    body = b'{"endpointId": "x"}' if method == "POST" else b""

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], dict(start["headers"])


ENCODED_ADMIN_PATHS = [
    b"/v1/admin/endpoints",
    b"/v1/%61dmin/endpoints",
    b"/v1%2Fadmin/endpoints",
    b"/v1%2fadmin/endpoints",
    b"/%761/admin/endpoints",
    b"/v1/admin%2Fendpoints",
    b"/v1/admin/endpoints/",
    b"//v1/admin/endpoints",
    b"/v1//admin/endpoints",
    b"/v1/./admin/endpoints",
    b"/v1/x/../admin/endpoints",
    b"/v1/admin/endpoints/%2e%2e",
    b"/v1%5cadmin/endpoints",
    b"/v1\\admin/endpoints",
    b"/v1/admin/endpoints;x=1",
    b"/v1/%2561dmin/endpoints",
    b"/v1/admin/endpoints/7d0c6a1e-2b9f-4c1e-9a53-0c8e2f6b1d42",
]


@pytest.mark.parametrize("raw_path", ENCODED_ADMIN_PATHS, ids=lambda p: p.decode("latin-1"))
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
async def test_public_listener_never_serves_admin(
    edge_apps, mesh, seed_body, method: str, raw_path: bytes
) -> None:
    mesh.indexer.endpoints["7d0c6a1e-2b9f-4c1e-9a53-0c8e2f6b1d42"] = catalogue_pb2.Endpoint(name="kept")
    status, headers = await call_raw(
        edge_apps.public, method, raw_path, {"authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    assert status in (400, 404, 405), (raw_path, status)
    assert b"location" not in headers
    assert list(mesh.indexer.endpoints) == ["7d0c6a1e-2b9f-4c1e-9a53-0c8e2f6b1d42"]


@pytest.mark.parametrize("raw_path", ENCODED_ADMIN_PATHS[1:-1], ids=lambda p: p.decode("latin-1"))
async def test_admin_listener_refuses_non_canonical_spellings_too(edge_apps, mesh, raw_path: bytes) -> None:
    status, _ = await call_raw(edge_apps.admin, "GET", raw_path, {"authorization": f"Bearer {ADMIN_TOKEN}"})
    assert status in (400, 404, 405), (raw_path, status)


async def test_admin_needs_the_token(edge_apps, mesh, seed_body) -> None:
    transport = httpx.ASGITransport(app=edge_apps.admin)
    async with httpx.AsyncClient(transport=transport, base_url="http://admin") as client:
        assert (await client.get("/healthz")).status_code == 200
        for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": ADMIN_TOKEN}):
            for method, path in (("GET", "/v1/admin/endpoints"), ("POST", "/v1/admin/endpoints")):
                reply = await client.request(method, path, json=seed_body, headers=headers)
                assert reply.status_code == 401, (headers, method)
                assert reply.json()["error"]["reason"] == "UNAUTHENTICATED"
        assert mesh.indexer.endpoints == {}
        ok = await client.post(
            "/v1/admin/endpoints", json=seed_body, headers={"authorization": f"Bearer {ADMIN_TOKEN}"}
        )
        assert ok.status_code == 201


async def test_trailing_slash_is_not_redirected(http: httpx.AsyncClient) -> None:
    reply = await http.post(
        "/v1/orchestrate/", json={"chatId": "c", "message": "m"}, headers={"host": "evil.example"}
    )
    assert reply.status_code == 400
    assert "location" not in reply.headers


def test_canonical_paths() -> None:
    assert is_canonical(b"/") and is_canonical(b"/v1/orchestrate/stream")
    for bad in (b"", b"v1", b"/v1/", b"/v1/.", b"/v1/..", b"/a%20b", b"/a//b"):
        assert not is_canonical(bad), bad
