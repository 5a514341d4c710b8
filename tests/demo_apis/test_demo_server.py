from __future__ import annotations

import asyncio
import socket
import sys

import httpx


async def test_main_serves_and_names_a_taken_port() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        taken = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "devtools.demo_apis",
            env={"ATC_DEMO_PORT": str(port), "PATH": ""},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(taken.communicate(), 30)
    assert taken.returncode != 0
    assert f"127.0.0.1:{port}" in stderr.decode() and "taken" in stderr.decode()


async def test_main_serves_http() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devtools.demo_apis",
        env={"ATC_DEMO_PORT": str(port), "PATH": ""},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            # Up to a minute: a cold interpreter start on a loaded 2-core machine can take 10 s.
            for _ in range(1200):
                try:
                    response = await client.get("/votings", params={"limit": 1})
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("demo APIs did not start")
        assert response.status_code == 200 and len(response.json()) == 1
    finally:
        server.terminate()
        await server.wait()
