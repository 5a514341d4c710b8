"""Runs a list of child processes in order, each only once the previous one is
ready, restarts a child that exits (with backoff, the others keep serving), and
stops them in reverse order.

The domain here is processes, logs and readiness probes; gRPC appears only
inside the `grpc_ready` probe helper.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("atc.supervisor")

# Answers "is the child ready to serve?"; exceptions count as "not yet".
ReadinessCheck = Callable[[], Awaitable[bool]]

_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class ChildSpec:
    name: str
    argv: Sequence[str]
    ready: ReadinessCheck
    # Added to the supervisor's own environment.
    env: Mapping[str, str] = field(default_factory=dict)
    ready_timeout: float = 30.0
    # Shown to the user once the child is ready (an address, a URL).
    address: str = ""


@dataclass(frozen=True)
class RestartPolicy:
    """Exponential backoff between restarts of one child; a child that exits more than
    `max_restarts` times within `window_seconds` is given up on (and the mesh stops)."""

    initial_backoff: float = 0.5
    max_backoff: float = 30.0
    max_restarts: int = 5
    window_seconds: float = 300.0

    def delay(self, recent_restarts: int) -> float:
        return float(min(self.max_backoff, self.initial_backoff * 2**recent_restarts))


NO_RESTARTS = RestartPolicy(max_restarts=0)


@dataclass(frozen=True)
class ChildExit:
    name: str
    returncode: int
    log_path: Path


class ChildStartError(RuntimeError):
    """A child exited or stayed unready during start; the message names it and
    shows the tail of its log."""

    def __init__(self, name: str, reason: str, log_path: Path, log_tail: str) -> None:
        super().__init__(f"{name} {reason}. Last lines of {log_path}:\n{log_tail}")
        self.name = name
        self.reason = reason
        self.log_path = log_path
        self.log_tail = log_tail


def tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(kept) if kept else "(log is empty)"


@dataclass
class _Running:
    spec: ChildSpec
    process: asyncio.subprocess.Process
    log_path: Path
    # Completes with the exit code; one waiter per child, shared by every watcher.
    exited: asyncio.Future[int]


class Supervisor:
    def __init__(
        self,
        specs: Sequence[ChildSpec],
        log_dir: Path,
        *,
        restart: RestartPolicy = NO_RESTARTS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`clock` counts restarts within the policy's window and `sleep` waits out the
        backoff: tests hand in their own, so no test waits for real backoffs."""
        names = [spec.name for spec in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"child names must be unique: {names}")
        self._specs = list(specs)
        self._log_dir = log_dir
        self._running: list[_Running] = []
        self._restart = restart
        self._clock = clock
        self._sleep = sleep
        self._restarts: dict[str, list[float]] = {}

    def log_path(self, name: str) -> Path:
        return self._log_dir / f"{name}.log"

    @property
    def pids(self) -> dict[str, int]:
        return {r.spec.name: r.process.pid for r in self._running}

    async def start_all(self, on_ready: Callable[[ChildSpec], None] | None = None) -> None:
        """Start every child in order, each after the previous is ready. On a
        failure, the children already started are stopped before ChildStartError."""
        self._log_dir.mkdir(parents=True, exist_ok=True)
        try:
            for spec in self._specs:
                running = await self._spawn(spec)
                self._running.append(running)
                await self._await_ready(running)
                log.info("%s is ready (pid %d)", spec.name, running.process.pid)
                if on_ready is not None:
                    on_ready(spec)
        except BaseException:
            await self.stop()
            raise

    async def _spawn(self, spec: ChildSpec, *, append: bool = False) -> _Running:
        log_path = self.log_path(spec.name)
        # A restart appends: the crash that caused it stays in the log.
        with log_path.open("ab" if append else "wb") as log_file:
            # Own session: a terminal's Ctrl-C reaches only us, and we stop the
            # children in order. The child keeps its own copy of the log fd.
            process = await asyncio.create_subprocess_exec(
                *spec.argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log_file,
                stderr=asyncio.subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1", **spec.env},
                start_new_session=True,
            )
        return _Running(spec, process, log_path, asyncio.ensure_future(process.wait()))

    async def _await_ready(self, running: _Running) -> None:
        spec = running.spec
        deadline = time.monotonic() + spec.ready_timeout
        while True:
            if running.process.returncode is not None:
                raise ChildStartError(
                    spec.name,
                    f"exited with code {running.process.returncode} before it was ready",
                    running.log_path,
                    tail(running.log_path),
                )
            try:
                if await spec.ready():
                    return
            except Exception as exc:  # a probe error only means "not ready yet"
                log.debug("%s readiness probe: %s", spec.name, exc)
            if time.monotonic() > deadline:
                raise ChildStartError(
                    spec.name,
                    f"was not ready after {spec.ready_timeout:g} s",
                    running.log_path,
                    tail(running.log_path),
                )
            # Wake early if the child dies meanwhile.
            await asyncio.wait([running.exited], timeout=_POLL_SECONDS)

    async def wait_for_exit(self) -> ChildExit:
        """The first child to exit (for whatever reason) once all are running."""
        if not self._running:
            raise RuntimeError("no child is running")
        waiters = {r.exited: r for r in self._running}
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        running = waiters[next(iter(done))]
        return ChildExit(running.spec.name, int(running.process.returncode or 0), running.log_path)

    async def supervise(self, on_event: Callable[[str], None] | None = None) -> ChildExit:
        """Restart each child that exits, after a backoff, on the same command line (so
        the same port) while the others keep serving. Returns the exit of a child that
        exited more often than the policy allows; the caller then stops the rest."""
        while True:
            exited = await self.wait_for_exit()
            now = self._clock()
            recent = [
                t for t in self._restarts.get(exited.name, []) if now - t < self._restart.window_seconds
            ]
            if len(recent) >= self._restart.max_restarts:
                return exited
            delay = self._restart.delay(len(recent))
            self._restarts[exited.name] = [*recent, now]
            message = f"{exited.name} exited with code {exited.returncode}; restarting in {delay:g} s"
            log.warning(message)
            if on_event is not None:
                on_event(message)
            await self._sleep(delay)
            index = next(i for i, r in enumerate(self._running) if r.spec.name == exited.name)
            running = await self._spawn(self._running[index].spec, append=True)
            self._running[index] = running
            try:
                await self._await_ready(running)
            except ChildStartError as exc:
                # Dead or unready: ends it, and the next round counts it as another exit.
                log.warning("%s", exc)
                await _terminate(running.process, 5.0)
                continue
            log.info("%s restarted (pid %d)", exited.name, running.process.pid)
            if on_event is not None:
                on_event(f"{exited.name} restarted and ready")

    async def stop(self, timeout: float = 10.0) -> dict[str, int]:
        """SIGTERM each child in reverse start order and wait for it (SIGKILL after
        `timeout`). Returns the exit codes by name."""
        codes: dict[str, int] = {}
        while self._running:
            running = self._running.pop()
            codes[running.spec.name] = await _terminate(running.process, timeout)
            log.info("%s stopped (code %d)", running.spec.name, codes[running.spec.name])
        return codes


async def _terminate(process: asyncio.subprocess.Process, timeout: float) -> int:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    return int(process.returncode if process.returncode is not None else 0)


# Readiness probes -----------------------------------------------------------------


def http_ready(url: str, *, timeout: float = 1.0) -> ReadinessCheck:
    """Ready when GET `url` answers 2xx."""

    async def check() -> bool:
        import httpx

        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(url)
        return response.is_success

    return check


def grpc_ready(target: str, service: str = "", *, timeout: float = 1.0) -> ReadinessCheck:
    """Ready when grpc.health.v1 reports SERVING for `service` at `target`."""

    async def check() -> bool:
        from services.clients import health_status
        from services.runtime.channels import open_channel

        channel = open_channel(target)
        try:
            return await health_status(channel, service, timeout=timeout) == "SERVING"
        finally:
            await channel.close(None)

    return check


def redis_ready(url: str) -> ReadinessCheck:
    """Ready when the Redis server at `url` answers PING."""

    async def check() -> bool:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
        try:
            return bool(await client.ping())
        finally:
            await client.aclose()

    return check
