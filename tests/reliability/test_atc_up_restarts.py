"""Children killed under `atc up`: the supervisor restarts each on the same port, the
rest keeps serving, and the chats continue. loop_svc first (its sessions are in
Redis), then the embedded Redis itself (its append-only file in the data dir brings
the sessions back). One mesh for both: starting `atc up` is the expensive part."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import redis.asyncio as aioredis

from devtools.launcher.subprocess_mesh import MeshProcess, atc_up
from devtools.redis_server import free_port
from tests.e2e.sse import stream_turn

Argv = list[bytes]


def _argv(pid: int) -> Argv:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


def _children(pid: int) -> list[int]:
    """Child pids of every thread of `pid`. Threads and processes come and go while
    /proc is read (a gRPC or asyncio worker thread ends): one that is gone has none."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def _child_pid(root: int, matches: Callable[[Argv], bool]) -> int:
    pending = [root]
    while pending:
        pid = pending.pop()
        try:
            if pid != root and matches(_argv(pid)):
                return pid
        except FileNotFoundError:
            continue  # exited since its parent listed it
        pending += _children(pid)
    raise AssertionError(f"no such process under {root}")


def python_module(module: bytes) -> Callable[[Argv], bool]:
    return lambda argv: module in argv[1:3]


def is_redis_server(argv: Argv) -> bool:
    # Redis and valkey retitle themselves "…/valkey-server HOST:PORT".
    program = Path(argv[0].decode().split(" ")[0]).name
    return program in ("valkey-server", "redis-server")


def redis_url_of(argv: Argv) -> str:
    return f"redis://{argv[0].decode().split(' ')[-1]}/0"


async def stored_session(redis_url: str, chat_id: str) -> str | None:
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return await redis.get(f"session:{chat_id}")
    finally:
        await redis.aclose()


async def restarted(mesh: MeshProcess, name: str) -> str:
    """What `atc up` printed until it reported `name` restarted and ready."""
    assert mesh.process.stdout is not None
    printed = ""
    while f"{name} restarted and ready" not in printed:
        line = (await asyncio.wait_for(mesh.process.stdout.readline(), 120)).decode()
        assert line, f"atc up ended instead of restarting {name}"
        mesh.output.append(line)
        printed += line
    return printed


async def test_killed_loop_and_redis_are_restarted_and_the_chats_continue(tmp_path: Path) -> None:
    data_dir = tmp_path / "atc"
    async with atc_up(free_port(), data_dir, start_timeout=300) as mesh:
        async with httpx.AsyncClient(base_url=mesh.url.rstrip("/"), timeout=60) as edge:
            # loop_svc killed between two turns of a chat (the plate is asked for).
            chat_id = str(uuid.uuid4())
            first = await stream_turn(edge, chat_id, "How much is the vehicle tax for my car?")
            assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"

            loop_pid = _child_pid(mesh.process.pid, python_module(b"loop_svc"))
            os.kill(loop_pid, signal.SIGKILL)
            assert "loop exited with code -9; restarting" in await restarted(mesh, "loop")
            assert _child_pid(mesh.process.pid, python_module(b"loop_svc")) != loop_pid

            second = await stream_turn(edge, chat_id, "123ABC")
            assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
            assert "123ABC" in second.text("TOKEN_KIND_ANSWER")

            # The embedded Redis killed while an Estonian chat waits for its plate.
            chat_et = str(uuid.uuid4())
            asked = await stream_turn(edge, chat_et, "Kui suur on mu sõidukimaks?")
            assert asked.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
            redis_pid = _child_pid(mesh.process.pid, is_redis_server)
            redis_url = redis_url_of(_argv(redis_pid))
            session_before = await stored_session(redis_url, chat_et)
            assert session_before is not None
            assert json.loads(session_before)["language"] == "et"

            os.kill(redis_pid, signal.SIGKILL)
            printed = await restarted(mesh, "redis")
            # Restarted after the supervisor's backoff, on the same port and data dir.
            assert "redis exited with code -9; restarting in 0.5 s" in printed
            assert _child_pid(mesh.process.pid, is_redis_server) != redis_pid
            assert await stored_session(redis_url, chat_et) == session_before
            assert any((data_dir / "redis").rglob("*.aof")), "the append-only file is in the data dir"

            answered = await stream_turn(edge, chat_et, "123ABC")
            assert answered.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
            assert "Mootorsõidukimaks" in answered.text("TOKEN_KIND_ANSWER")
    assert mesh.process.returncode == 0, "".join(mesh.output)
