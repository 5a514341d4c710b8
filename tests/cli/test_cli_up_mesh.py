"""`atc up` for real: every service as its own process, a turn through the edge,
then SIGTERM stops everything and the command exits 0."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx

from services.redis_server import free_port
from tests.e2e.sse import stream_turn


async def test_atc_up_serves_a_turn_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.cli",
        "up",
        "--port",
        str(port),
        "--data-dir",
        str(tmp_path / "atc"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )
    assert process.stdout is not None
    seen: list[str] = []
    try:
        while True:
            line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
            assert line, "atc up ended early:\n" + "".join(seen)
            seen.append(line)
            if line.startswith("ATC Mesh is up:"):
                break
        assert line.strip() == f"ATC Mesh is up: http://127.0.0.1:{port}/"
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            assert (await client.get("/readyz")).json()["status"] == "ready"
            reply = await client.post(
                "/v1/orchestrate", json={"chatId": "cli-up", "message": "Public holidays in Estonia?"}
            )
            assert reply.status_code == 200, reply.text
            assert reply.json()["outcome"] == "needs_input"
            assert "get_national_holidays" in reply.json()["question"]["endpointNames"]
            # The second turn streams the answer over SSE, as the chat page reads it.
            answer = await stream_turn(client, "cli-up", "2026-01-01 to 2026-12-31")
            assert answer.end.data["content"] == "END"
            assert "Independence Day" in answer.text("TOKEN_KIND_ANSWER")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(process.communicate(), 60)
    output = "".join(seen) + rest.decode()
    assert process.returncode == 0, output
    assert "atc: stopped" in output
    logs = tmp_path / "atc" / "logs"
    assert {p.stem for p in logs.glob("*.log")} == {
        "redis",
        "demo_apis",
        "indexer",
        "caller",
        "loop",
        "classifier",
        "edge",
    }
    assert "Finished server process" in (logs / "edge.log").read_text()
