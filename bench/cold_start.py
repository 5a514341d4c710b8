"""Cold start of `atc up`: seconds from launch until the chat URL is printed
(every service its own process, a fresh index folder, so the catalogue is
embedded from scratch), then the time of the first turn, then a clean stop.

    .venv/bin/python -m bench.cold_start
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from devtools.launcher.subprocess_mesh import atc_up
from devtools.redis_server import free_port


async def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        started = time.perf_counter()
        async with atc_up(free_port(), Path(data_dir)) as mesh:
            up = time.perf_counter() - started
            async with httpx.AsyncClient(base_url=mesh.url, timeout=60) as client:
                turn_started = time.perf_counter()
                reply = await client.post(
                    "/v1/orchestrate",
                    json={"chatId": "bench", "message": "What are the public holidays in Estonia?"},
                )
                reply.raise_for_status()
                first_turn = time.perf_counter() - turn_started
            stop_started = time.perf_counter()
            exit_code = await mesh.stop()
            stopped = time.perf_counter() - stop_started
    print(f"atc up cold start to URL: {up:.1f} s")
    print(f"first turn after start:   {first_turn * 1000:.0f} ms")
    print(f"clean stop on SIGTERM:    {stopped:.1f} s (exit code {exit_code})")


if __name__ == "__main__":
    asyncio.run(main())
