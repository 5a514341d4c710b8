"""The process plan of `atc up`: which children, in which order, with which env."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from atc.caller.v1 import caller_pb2
from atc.classifier.v1 import classifier_pb2
from atc.indexer.v1 import indexer_pb2
from atc.loop.v1 import loop_pb2
from devtools.demo_apis.catalogue import CATALOGUE_PATH
from devtools.launcher.envoy import (
    BOOTSTRAP_FILE,
    GRPC_SERVICES,
    EnvoyAddresses,
    envoy_command,
    local_addresses,
    write_bootstrap,
)
from devtools.redis_server import free_port, redis_command
from devtools.supervisor import ChildSpec, grpc_ready, http_ready, redis_ready
from services.runtime.listen import ensure_port_free
from services.runtime.trust import MESH_SECRET_ENV

INTERNAL_HOST = "127.0.0.1"
CATALOGUE_FILE = CATALOGUE_PATH
# The demo's registered services and its knowledge base (ingested at the indexer's start).
SERVICES_FILE = CATALOGUE_FILE.with_name("services.json")
KNOWLEDGE_DIR = CATALOGUE_FILE.with_name("knowledge")

# The documented default ports, used with --fixed-ports.
DEFAULT_PORTS = {"demo_apis": 8090, "indexer": 50051, "classifier": 50052, "loop": 50053, "caller": 50054}
# Envoy's gRPC debugging listeners (the bootstrap's grpc_<service>) with --fixed-ports, as in
# the cluster's atc-envoy-grpc Service.
ENVOY_GRPC_PORTS = {"indexer": 9051, "classifier": 9052, "loop": 9053, "caller": 9054}


class MeshConfigError(Exception):
    """The mesh cannot start as configured (nothing has been started)."""


@dataclass(frozen=True)
class MeshOptions:
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: Path = Path(".atc")
    # Internal services on their documented ports instead of free ones.
    fixed_ports: bool = False
    ready_timeout: float = 60.0
    log_level: str = "INFO"
    # An existing Redis; None starts an embedded one.
    redis_url: str | None = None
    python: str = sys.executable
    catalogue_file: Path = CATALOGUE_FILE
    # The edge's admin listener (always on 127.0.0.1); None: a free port.
    admin_port: int | None = None
    services_file: Path | None = SERVICES_FILE
    knowledge_dir: Path | None = KNOWLEDGE_DIR
    # Envoy's bootstrap: the file Kubernetes mounts, its addresses rewritten for this host.
    envoy_bootstrap: Path = BOOTSTRAP_FILE


@dataclass(frozen=True)
class MeshPlan:
    specs: list[ChildSpec]
    # Envoy's public listener: the URL to open (the edge is only reached through it).
    public_url: str
    # The edge itself, on an internal port behind Envoy.
    edge_url: str
    log_dir: Path
    addresses: dict[str, str] = field(default_factory=dict)
    # The edge's admin listener and its bearer token (fresh for every `atc up`).
    admin_url: str = ""
    admin_token: str = ""
    # Envoy's admin (stats, /healthcheck/fail for deploy/envoy/drain.sh), on 127.0.0.1.
    envoy_admin_url: str = ""


@dataclass(frozen=True)
class Wiring:
    """What the children's settings are made of: where each one listens and the mesh's
    shared parts."""

    options: MeshOptions
    data_dir: Path
    # name → (host, port) for every child in SERVICES.
    listen: dict[str, tuple[str, int]]
    redis_url: str
    admin_port: int
    admin_token: str
    # Kept in data_dir/secrets/ (made once): chats and owner assertions survive restarts.
    chat_token_secret: str = ""
    mesh_secret: str = ""

    def target(self, name: str) -> str:
        host, port = self.listen[name]
        return f"{host}:{port}"

    def url(self, name: str) -> str:
        return f"http://{self.target(name)}"


@dataclass(frozen=True)
class ServiceSpec:
    """One child of the mesh: `python -m module`, configured through `env_prefix` variables
    (HOST, PORT, LOG_LEVEL and what `settings` adds); ready when its gRPC health says
    SERVING for `grpc_service`, or when `http_probe` answers."""

    name: str
    module: str
    env_prefix: str
    settings: Callable[[Wiring], dict[str, str]] = lambda _: {}
    grpc_service: str = ""
    http_probe: str = ""
    # Appended to an HTTP child's URL to make the address shown to the user.
    address_path: str = ""


def _grpc_name(pb2: ModuleType, service: str) -> str:
    return str(pb2.DESCRIPTOR.services_by_name[service].full_name)


# In start order: each child starts once the ones before it are ready.
SERVICES: tuple[ServiceSpec, ...] = (
    ServiceSpec("demo_apis", "devtools.demo_apis", "ATC_DEMO_", http_probe="/healthz"),
    ServiceSpec(
        "indexer",
        "indexer_svc",
        "ATC_INDEXER_",
        lambda w: {
            "data_dir": str(w.data_dir / "index"),
            "catalogue_file": str(w.options.catalogue_file),
            "catalogue_base_url": w.url("demo_apis"),
            "services_file": str(w.options.services_file or ""),
            "knowledge_dir": str(w.options.knowledge_dir or ""),
        },
        grpc_service=_grpc_name(indexer_pb2, "IndexerService"),
    ),
    ServiceSpec(
        "caller",
        "caller_svc",
        "ATC_CALLER_",
        lambda w: {
            "redis_url": w.redis_url,
            # The demo's own APIs are on loopback: the only internal address the caller may reach.
            "egress_allow": w.target("demo_apis"),
            "indexer_target": w.target("indexer"),
        },
        grpc_service=_grpc_name(caller_pb2, "CallerService"),
    ),
    ServiceSpec(
        "loop",
        "loop_svc",
        "ATC_LOOP_",
        lambda w: {"redis_url": w.redis_url, "caller_target": w.target("caller")},
        grpc_service=_grpc_name(loop_pb2, "LoopService"),
    ),
    ServiceSpec(
        "classifier",
        "classifier_svc",
        "ATC_CLASSIFIER_",
        lambda w: {"indexer_target": w.target("indexer"), "loop_target": w.target("loop")},
        grpc_service=_grpc_name(classifier_pb2, "ClassifierService"),
    ),
    ServiceSpec(
        "edge",
        "edge_svc",
        "ATC_EDGE_",
        lambda w: {
            "classifier_target": w.target("classifier"),
            "indexer_target": w.target("indexer"),
            "caller_target": w.target("caller"),
            "admin_host": INTERNAL_HOST,
            "admin_port": str(w.admin_port),
            "admin_token": w.admin_token,
            # The same key after every restart: open chats keep their tokens.
            "chat_token_secret": w.chat_token_secret,
            # Chat ownership (edge_svc/chat_owners.py) lives beside the sessions.
            "redis_url": w.redis_url,
        },
        http_probe="/readyz",
        address_path="/",
    ),
)


def _child(spec: ServiceSpec, wiring: Wiring) -> ChildSpec:
    options = wiring.options
    host, port = wiring.listen[spec.name]
    env = {
        # Offline by default: litellm must not fetch its price map, DSPy caches under .atc.
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DSPY_CACHEDIR": str(wiring.data_dir / "dspy-cache"),
        f"{spec.env_prefix}HOST": host,
        f"{spec.env_prefix}PORT": str(port),
        f"{spec.env_prefix}LOG_LEVEL": options.log_level.upper(),
        # Every hop verifies the owner assertions the edge signs (services.runtime.trust).
        MESH_SECRET_ENV: wiring.mesh_secret,
        **{f"{spec.env_prefix}{key.upper()}": value for key, value in spec.settings(wiring).items()},
    }
    if spec.grpc_service:
        address = wiring.target(spec.name)
        ready = grpc_ready(address, spec.grpc_service)
    else:
        address = wiring.url(spec.name) + spec.address_path
        probe_host = INTERNAL_HOST if host in ("0.0.0.0", "::") else host
        ready = http_ready(f"http://{probe_host}:{port}{spec.http_probe}")
    return ChildSpec(
        name=spec.name,
        argv=[options.python, "-m", spec.module],
        env=env,
        ready=ready,
        ready_timeout=options.ready_timeout,
        address=address,
    )


def _envoy_child(
    options: MeshOptions, wiring: Wiring, data_dir: Path, pick_port: Callable[[], int]
) -> tuple[ChildSpec, EnvoyAddresses]:
    """Envoy in front of the edge, on the bootstrap Kubernetes uses: its public listener on
    the user's host:port, the rest on 127.0.0.1, every cluster at its local child."""
    addresses = local_addresses(
        (options.host, options.port),
        {name: wiring.listen[name] for name in ("edge", *GRPC_SERVICES)},
        grpc_ports=ENVOY_GRPC_PORTS if options.fixed_ports else None,
        pick_port=pick_port,
    )
    config = write_bootstrap(data_dir / "envoy" / "envoy.yaml", addresses, options.envoy_bootstrap)
    probe_host = INTERNAL_HOST if options.host in ("0.0.0.0", "::") else options.host
    argv = envoy_command(config)
    if "faketime" in os.environ.get("LD_PRELOAD", ""):
        # A mesh pinned to a day (bench/eval_dialogues.py runs `atc up` under libfaketime)
        # keeps Envoy on the real clock: preloaded, the binary hangs before it listens,
        # and a proxy has no dates to fake.
        argv = ["env", "-u", "LD_PRELOAD", *argv]
    spec = ChildSpec(
        name="envoy",
        argv=argv,
        ready=http_ready(f"http://{probe_host}:{options.port}/envoy/ready"),
        ready_timeout=options.ready_timeout,
        address=f"http://{options.host}:{options.port}/",
    )
    return spec, addresses


def plan_mesh(options: MeshOptions) -> MeshPlan:
    """Check that the mesh can start (public port free, catalogue present) and
    describe its children. Raises PortTaken or MeshConfigError; starts nothing."""
    ensure_port_free(options.host, options.port)
    # Each free port is released before its child binds it, so the kernel may hand the
    # same one out twice: the plan never gives two children one port.
    given: set[int] = {options.port}

    def distinct_free_port() -> int:
        while (port := free_port(INTERNAL_HOST)) in given:
            pass
        given.add(port)
        return port

    admin_port = options.admin_port or distinct_free_port()
    given.add(admin_port)
    ensure_port_free(INTERNAL_HOST, admin_port)
    if options.fixed_ports:
        for port in (*DEFAULT_PORTS.values(), *ENVOY_GRPC_PORTS.values()):
            ensure_port_free(INTERNAL_HOST, port)
    if not options.catalogue_file.is_file():
        raise MeshConfigError(f"demo catalogue not found: {options.catalogue_file}")
    if not options.envoy_bootstrap.is_file():
        raise MeshConfigError(f"Envoy bootstrap not found: {options.envoy_bootstrap}")

    data_dir = options.data_dir.resolve()
    listen = {
        name: (INTERNAL_HOST, DEFAULT_PORTS[name] if options.fixed_ports else distinct_free_port())
        for name in DEFAULT_PORTS
    }
    # Behind Envoy, like in the cluster: only Envoy's listener is on the user's host:port.
    listen["edge"] = (INTERNAL_HOST, distinct_free_port())
    specs: list[ChildSpec] = []
    redis_url = options.redis_url
    if redis_url is None:
        redis_port = distinct_free_port()
        redis_url = f"redis://{INTERNAL_HOST}:{redis_port}/0"
        redis_dir = data_dir / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        specs.append(
            ChildSpec(
                name="redis",
                argv=redis_command(INTERNAL_HOST, redis_port, redis_dir),
                ready=redis_ready(redis_url),
                ready_timeout=options.ready_timeout,
                address=redis_url,
            )
        )
    wiring = Wiring(
        options,
        data_dir,
        listen,
        redis_url,
        admin_port,
        secrets.token_urlsafe(24),
        chat_token_secret=persistent_secret(data_dir, "chat-token-secret"),
        mesh_secret=persistent_secret(data_dir, "mesh-secret"),
    )
    specs += [_child(spec, wiring) for spec in SERVICES]
    envoy, envoy_addresses = _envoy_child(options, wiring, data_dir, distinct_free_port)
    specs.append(envoy)
    addresses = {spec.name: spec.address for spec in specs}
    envoy_admin_host, envoy_admin_port = envoy_addresses.admin
    return MeshPlan(
        specs=specs,
        public_url=envoy.address,
        edge_url=addresses["edge"],
        log_dir=data_dir / "logs",
        addresses=addresses,
        admin_url=f"http://{INTERNAL_HOST}:{admin_port}/v1/admin/endpoints",
        admin_token=wiring.admin_token,
        envoy_admin_url=f"http://{envoy_admin_host}:{envoy_admin_port}",
    )


def persistent_secret(data_dir: Path, name: str) -> str:
    """The secret kept in `data_dir/secrets/<name>` (owner-only), made on first use:
    `make run` after `make run` signs with the same key."""
    path = data_dir / "secrets" / name
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        value = path.read_text(encoding="utf-8").strip()
        if len(value) >= 32:
            return value
        # Empty or cut short (a crash while it was written): made anew.
        path.unlink()
        return persistent_secret(data_dir, name)
    value = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value + "\n")
    return value


def redis_url_from_env() -> str | None:
    return os.environ.get("REDIS_URL") or None
