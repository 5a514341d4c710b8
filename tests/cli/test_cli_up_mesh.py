"""`atc up` for real: every service as its own process, a two-turn chat through the
edge, then SIGTERM stops everything and the command exits 0."""

from __future__ import annotations

from pathlib import Path

import httpx

from devtools.launcher.subprocess_mesh import atc_up
from devtools.redis_server import free_port
from tests.e2e.sse import stream_turn


async def test_atc_up_serves_a_turn_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    async with atc_up(port, tmp_path / "atc") as mesh:
        assert mesh.url == f"http://127.0.0.1:{port}/"
        async with httpx.AsyncClient(base_url=mesh.url, timeout=60) as client:
            assert (await client.get("/readyz")).json()["status"] == "ready"
            reply = await client.post(
                "/v1/orchestrate", json={"chatId": "cli-up", "message": "How much is my vehicle tax?"}
            )
            assert reply.status_code == 200, reply.text
            assert reply.json()["outcome"] == "needs_input"
            assert "get_vehicle_tax_info" in reply.json()["question"]["endpointNames"]
            # The second turn streams the answer over SSE, as the chat page reads it.
            answer = await stream_turn(client, "cli-up", "123ABC")
            assert answer.end.data["content"] == "END"
            assert "123ABC" in answer.text("TOKEN_KIND_ANSWER")
        exit_code = await mesh.stop()
    output = "".join(mesh.output)
    assert exit_code == 0, output
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
        "envoy",
    }
    assert "Finished server process" in (logs / "edge.log").read_text()
