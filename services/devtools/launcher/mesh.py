"""The process plan of `atc up`: which children, in which order, with which env."""

from __future__ import annotations

import os
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from atc.caller.v1 import caller_pb2
from atc.classifier.v1 import classifier_pb2
from atc.indexer.v1 import indexer_pb2
from atc.loop.v1 import loop_pb2
from services.devtools.demo_apis.catalogue import CATALOGUE_PATH
from services.devtools.redis_server import free_port, redis_command
from services.devtools.supervisor import ChildSpec, grpc_ready, http_ready, redis_ready
from services.runtime.listen import ensure_port_free

INTERNAL_HOST = "127.0.0.1"
CATALOGUE_FILE = CATALOGUE_PATH
# The demo's registered services and its knowledge base (ingested at the indexer's start).
SERVICES_FILE = CATALOGUE_FILE.with_name("services.json")
KNOWLEDGE_DIR = CATALOGUE_FILE.with_name("knowledge")

# The documented default ports, used with --fixed-ports.
DEFAULT_PORTS = {"demo_apis": 8090, "indexer": 50051, "classifier": 50052, "loop": 50053, "caller": 50054}


def _service_name(pb2: object, name: str) -> str:
    return str(pb2.DESCRIPTOR.services_by_name[name].full_name)  # type: ignore[attr-defined]


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


@dataclass(frozen=True)
class MeshPlan:
    specs: list[ChildSpec]
    edge_url: str
    log_dir: Path
    addresses: dict[str, str] = field(default_factory=dict)
    # The edge's admin listener and its bearer token (fresh for every `atc up`).
    admin_url: str = ""
    admin_token: str = ""


def _module(python: str, module: str) -> list[str]:
    return [python, "-m", module]


def plan_mesh(options: MeshOptions) -> MeshPlan:
    """Check that the mesh can start (edge port free, catalogue present) and
    describe its children. Raises PortTaken or MeshConfigError; starts nothing."""
    ensure_port_free(options.host, options.port)
    admin_port = options.admin_port or free_port(INTERNAL_HOST)
    ensure_port_free(INTERNAL_HOST, admin_port)
    if options.fixed_ports:
        for port in DEFAULT_PORTS.values():
            ensure_port_free(INTERNAL_HOST, port)
    if not options.catalogue_file.is_file():
        raise MeshConfigError(f"demo catalogue not found: {options.catalogue_file}")

    def port_of(name: str) -> int:
        return DEFAULT_PORTS[name] if options.fixed_ports else free_port(INTERNAL_HOST)

    data_dir = options.data_dir.resolve()
    level = options.log_level.upper()
    target = {name: f"{INTERNAL_HOST}:{port_of(name)}" for name in DEFAULT_PORTS}
    demo_port = int(target["demo_apis"].rsplit(":", 1)[1])
    demo_url = f"http://{INTERNAL_HOST}:{demo_port}"
    # Offline by default: litellm must not fetch its price map, DSPy caches under .atc.
    common_env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "DSPY_CACHEDIR": str(data_dir / "dspy-cache")}

    def grpc_env(prefix: str, name: str, **extra: str) -> dict[str, str]:
        host, port = target[name].rsplit(":", 1)
        return {
            **common_env,
            f"{prefix}HOST": host,
            f"{prefix}PORT": port,
            f"{prefix}LOG_LEVEL": level,
            **{f"{prefix}{key.upper()}": value for key, value in extra.items()},
        }

    specs: list[ChildSpec] = []
    redis_url = options.redis_url
    if redis_url is None:
        redis_port = free_port(INTERNAL_HOST)
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
    specs += [
        ChildSpec(
            name="demo_apis",
            argv=_module(options.python, "services.devtools.demo_apis"),
            env={**common_env, "ATC_DEMO_HOST": INTERNAL_HOST, "ATC_DEMO_PORT": str(demo_port)},
            ready=http_ready(f"{demo_url}/healthz"),
            ready_timeout=options.ready_timeout,
            address=demo_url,
        ),
        ChildSpec(
            name="indexer",
            argv=_module(options.python, "indexer_svc"),
            env=grpc_env(
                "ATC_INDEXER_",
                "indexer",
                data_dir=str(data_dir / "index"),
                catalogue_file=str(options.catalogue_file),
                catalogue_base_url=demo_url,
                services_file=str(options.services_file or ""),
                knowledge_dir=str(options.knowledge_dir or ""),
            ),
            ready=grpc_ready(target["indexer"], _service_name(indexer_pb2, "IndexerService")),
            ready_timeout=options.ready_timeout,
            address=target["indexer"],
        ),
        ChildSpec(
            name="caller",
            argv=_module(options.python, "caller_svc"),
            env=grpc_env(
                "ATC_CALLER_",
                "caller",
                redis_url=redis_url,
                # The demo's own APIs are on loopback: the only internal address the caller may reach.
                egress_allow=urlsplit(demo_url).netloc,
                indexer_target=target["indexer"],
            ),
            ready=grpc_ready(target["caller"], _service_name(caller_pb2, "CallerService")),
            ready_timeout=options.ready_timeout,
            address=target["caller"],
        ),
        ChildSpec(
            name="loop",
            argv=_module(options.python, "loop_svc"),
            env=grpc_env("ATC_LOOP_", "loop", redis_url=redis_url, caller_target=target["caller"]),
            ready=grpc_ready(target["loop"], _service_name(loop_pb2, "LoopService")),
            ready_timeout=options.ready_timeout,
            address=target["loop"],
        ),
        ChildSpec(
            name="classifier",
            argv=_module(options.python, "classifier_svc"),
            env=grpc_env(
                "ATC_CLASSIFIER_",
                "classifier",
                indexer_target=target["indexer"],
                loop_target=target["loop"],
            ),
            ready=grpc_ready(target["classifier"], _service_name(classifier_pb2, "ClassifierService")),
            ready_timeout=options.ready_timeout,
            address=target["classifier"],
        ),
    ]
    edge_url = f"http://{options.host}:{options.port}/"
    admin_url = f"http://{INTERNAL_HOST}:{admin_port}/v1/admin/endpoints"
    admin_token = secrets.token_urlsafe(24)
    probe_host = INTERNAL_HOST if options.host in ("0.0.0.0", "::") else options.host
    specs.append(
        ChildSpec(
            name="edge",
            argv=_module(options.python, "services.edge"),
            env={
                **common_env,
                "ATC_EDGE_HOST": options.host,
                "ATC_EDGE_PORT": str(options.port),
                "ATC_EDGE_LOG_LEVEL": level,
                "ATC_EDGE_CLASSIFIER_TARGET": target["classifier"],
                "ATC_EDGE_INDEXER_TARGET": target["indexer"],
                "ATC_EDGE_ADMIN_HOST": INTERNAL_HOST,
                "ATC_EDGE_ADMIN_PORT": str(admin_port),
                "ATC_EDGE_ADMIN_TOKEN": admin_token,
                "ATC_EDGE_CALLER_TARGET": target["caller"],
            },
            ready=http_ready(f"http://{probe_host}:{options.port}/readyz"),
            ready_timeout=options.ready_timeout,
            address=edge_url,
        )
    )
    return MeshPlan(
        specs=specs,
        edge_url=edge_url,
        log_dir=data_dir / "logs",
        addresses={spec.name: spec.address for spec in specs},
        admin_url=admin_url,
        admin_token=admin_token,
    )


def redis_url_from_env() -> str | None:
    return os.environ.get("REDIS_URL") or None
