"""`atc up` as a child process, for tests and benchmarks that need the mesh exactly
as `make run` starts it (every service its own process)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

UP_LINE = "ATC Mesh is up:"


@dataclass
class MeshProcess:
    process: asyncio.subprocess.Process
    url: str = ""
    # Everything `atc up` printed, up to the URL line and (after stop) to its exit.
    output: list[str] = field(default_factory=list)

    async def stop(self, timeout: float = 90) -> int:
        """SIGTERM, then wait for a clean exit (killed after `timeout`); the exit code."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            rest, _ = await asyncio.wait_for(self.process.communicate(), timeout)
        except TimeoutError:
            self.process.kill()
            rest, _ = await self.process.communicate()
        self.output.append(rest.decode())
        return self.process.returncode if self.process.returncode is not None else -1


@asynccontextmanager
async def atc_up(
    port: int, data_dir: Path, *, start_timeout: float = 300, env: Mapping[str, str] | None = None
) -> AsyncIterator[MeshProcess]:
    """Run `atc up --port PORT --data-dir DATA_DIR` (with an embedded Redis) until the
    block exits; yields once the chat URL is printed. `start_timeout` bounds the whole
    start and each service's readiness alike: on a loaded 2-core machine the indexer
    alone took over 60 s (atc up's default readiness limit) to index the demo content.
    `env` is added to this process's environment (every service inherits it)."""
    child_env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | dict(env or {})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devtools.cli",
        "up",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--ready-timeout",
        str(start_timeout),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=child_env,
    )
    assert process.stdout is not None
    mesh = MeshProcess(process)
    try:
        while True:
            line = (await asyncio.wait_for(process.stdout.readline(), start_timeout)).decode()
            if not line:
                raise RuntimeError("atc up ended before printing its URL:\n" + "".join(mesh.output))
            mesh.output.append(line)
            if line.startswith(UP_LINE):
                mesh.url = line.removeprefix(UP_LINE).strip()
                break
        yield mesh
    finally:
        await mesh.stop()
