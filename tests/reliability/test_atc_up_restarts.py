"""loop_svc killed under `atc up`: the supervisor restarts it on the same port, the rest
keeps serving, and the chat continues (its session is in Redis)."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from pathlib import Path

import httpx

from services.devtools.launcher.subprocess_mesh import atc_up
from services.devtools.redis_server import free_port
from tests.e2e.sse import stream_turn


def _child_pid(root: int, module: str) -> int:
    pending = [root]
    while pending:
        pid = pending.pop()
        if module in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:3]:
            return pid
        for task in Path(f"/proc/{pid}/task").iterdir():
            pending += [int(p) for p in (task / "children").read_text().split()]
    raise AssertionError(f"no {module!r} process under {root}")


async def test_a_killed_loop_is_restarted_and_the_chat_continues(tmp_path: Path) -> None:
    async with atc_up(free_port(), tmp_path / "atc", start_timeout=300) as mesh:
        assert mesh.process.stdout is not None
        async with httpx.AsyncClient(base_url=mesh.url.rstrip("/"), timeout=60) as edge:
            chat_id = str(uuid.uuid4())
            first = await stream_turn(edge, chat_id, "What are the public holidays in Estonia?")
            assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"

            loop_pid = _child_pid(mesh.process.pid, b"loop_svc")
            os.kill(loop_pid, signal.SIGKILL)
            restarted = ""
            while "loop restarted and ready" not in restarted:
                line = (await asyncio.wait_for(mesh.process.stdout.readline(), 120)).decode()
                assert line, "atc up ended instead of restarting the loop"
                mesh.output.append(line)
                restarted += line
            assert "loop exited with code -9; restarting" in restarted
            assert _child_pid(mesh.process.pid, b"loop_svc") != loop_pid

            second = await stream_turn(edge, chat_id, "2026-01-01 to 2026-12-31")
            assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
            assert "Christmas" in second.text("TOKEN_KIND_ANSWER")
    assert mesh.process.returncode == 0, "".join(mesh.output)
