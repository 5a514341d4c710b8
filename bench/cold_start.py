"""Cold start of `atc up`: seconds from launch until the chat URL is printed
(every service its own process, a fresh index folder, so the catalogue is
embedded from scratch), then the time of the first turn, then a clean stop.

    .venv/bin/python -m bench.cold_start
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
import time

import httpx

from services.redis_server import free_port


async def main() -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    with tempfile.TemporaryDirectory() as data_dir:
        started = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "services.cli",
            "up",
            "--port",
            str(port),
            "--data-dir",
            data_dir,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
        assert process.stdout is not None
        try:
            while True:
                line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
                if not line:
                    raise SystemExit("atc up ended before printing the URL")
                if line.startswith("ATC Mesh is up:"):
                    break
            up = time.perf_counter() - started
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                turn_started = time.perf_counter()
                reply = await client.post(
                    "/v1/orchestrate",
                    json={"chatId": "bench", "message": "What are the public holidays in Estonia?"},
                )
                reply.raise_for_status()
                first_turn = time.perf_counter() - turn_started
        finally:
            stop_started = time.perf_counter()
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.communicate(), 60)
            stopped = time.perf_counter() - stop_started
    print(f"atc up cold start to URL: {up:.1f} s")
    print(f"first turn after start:   {first_turn * 1000:.0f} ms")
    print(f"clean stop on SIGTERM:    {stopped:.1f} s (exit code {process.returncode})")


if __name__ == "__main__":
    asyncio.run(main())
