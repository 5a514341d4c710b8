"""Redis killed mid-conversation and restarted: no 5xx meanwhile, and the conversation
goes on where it was (the session survives in the append-only file)."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx

from devtools.launcher.inprocess import running_mesh
from devtools.redis_server import EmbeddedRedis
from tests.e2e.sse import stream_turn


async def test_redis_killed_mid_conversation_and_restarted(tmp_path: Path) -> None:
    redis = EmbeddedRedis(data_dir=tmp_path / "redis").start()
    try:
        async with running_mesh(redis.url, tmp_path / "index") as mesh:
            async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as edge:
                chat_id = str(uuid.uuid4())
                first = await stream_turn(edge, chat_id, "How much is the vehicle tax for my car?")
                assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"

                redis.kill()
                # Every turn during the outage ends properly on a 200 stream (stream_turn
                # asserts the status): an error event or an answer, never a server error.
                for chat, message in ((chat_id, "456DEF"), (str(uuid.uuid4()), "Hello!")):
                    during = await stream_turn(edge, chat, message)
                    assert during.end.data["content"] == "END"
                    for error in during.of("error"):
                        assert "Traceback" not in str(error.data) and "redis" not in str(error.data).lower()

                redis.start()  # same port, same data dir
                second = await stream_turn(edge, chat_id, "123ABC")
                assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
                assert "123ABC" in second.text("TOKEN_KIND_ANSWER")
    finally:
        redis.stop()
