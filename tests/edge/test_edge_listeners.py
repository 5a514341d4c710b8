"""`python -m edge_svc` as a real process: two listeners, the admin one with a
generated token it prints, and the public one refusing every spelling of an admin path
on the raw HTTP request (real uvicorn, bytes on a socket: no client normalises them)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from tests.edge.test_edge_paths_admin import ENCODED_ADMIN_PATHS


@dataclass
class EdgeProcess:
    public: str
    admin: str
    admin_token: str


@pytest.fixture()
async def edge_process() -> AsyncIterator[EdgeProcess]:
    env = {
        **os.environ,
        "ATC_EDGE_PORT": "0",
        "ATC_EDGE_ADMIN_PORT": "0",
        # Nothing listens there: the admin/public separation needs no upstream.
        "ATC_EDGE_CLASSIFIER_TARGET": "127.0.0.1:9",
        "ATC_EDGE_INDEXER_TARGET": "127.0.0.1:9",
    }
    env.pop("ATC_EDGE_ADMIN_TOKEN", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "edge_svc", env=env, stderr=asyncio.subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        lines: list[str] = []
        while not any("admin on" in line for line in lines):
            line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
            assert line, "the edge exited:\n" + "".join(lines)
            lines.append(line)
        text = "".join(lines)
        public = re.search(r"listening on (http://\S+?)/\s", text)
        admin = re.search(r"admin on (http://[^/\s]+)/v1/admin/endpoints \(token (\S+)\)", text)
        assert public and admin, text
        yield EdgeProcess(public[1], admin[1], admin[2])
    finally:
        process.terminate()
        await process.wait()


async def raw_status(base: str, method: str, raw_path: bytes, headers: bytes = b"") -> tuple[int, bytes]:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(method.encode() + b" " + raw_path + b" HTTP/1.1\r\nHost: evil.example\r\n" + headers)
        writer.write(b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
    status = int(response.split(b" ", 2)[1])
    return status, response


async def test_admin_is_only_on_the_admin_listener_with_its_token(edge_process: EdgeProcess) -> None:
    token = f"Bearer {edge_process.admin_token}".encode()
    for raw_path in ENCODED_ADMIN_PATHS:
        for method in ("GET", "POST", "DELETE"):
            status, response = await raw_status(
                edge_process.public, method, raw_path, b"Authorization: " + token + b"\r\n"
            )
            assert status in (400, 404, 405), (method, raw_path, status)
            assert b"\r\nlocation:" not in response.lower()
    async with httpx.AsyncClient(base_url=edge_process.admin, timeout=30) as admin:
        assert (await admin.get("/healthz")).status_code == 200
        assert (await admin.get("/v1/admin/endpoints")).status_code == 401
        wrong = await admin.get("/v1/admin/endpoints", headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401
        # With the token the request passes the guard and reaches the (absent) indexer.
        passed = await admin.get("/v1/admin/endpoints", headers={"authorization": token.decode()})
        assert passed.status_code == 503
        assert passed.json()["error"]["reason"] == "TEMPORARILY_UNAVAILABLE"
        status, _ = await raw_status(
            edge_process.admin, "GET", b"/v1/%61dmin/endpoints", b"Authorization: " + token + b"\r\n"
        )
        assert status == 400
