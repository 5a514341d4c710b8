"""Shared fixtures: real parts only (an embedded Redis server, real ports)."""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from devtools.redis_server import EmbeddedRedis
from tests.support import SEED_BODY

# litellm otherwise fetches a price map at first use; DSPy caches under our folder.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

TESTS = Path(__file__).resolve().parent

# The suite's lanes (markers in pyproject.toml). A test's lane follows from where it lives
# and what it starts, so no test can fall out of a lane and none needs a list kept by hand:
#   gates       lint, types, protos, deployment manifests
#   reliability kills, restarts, fuzzing (tests/reliability)
#   e2e         the whole mesh or a browser (tests/e2e, tests/cli, browser tests, blind sets)
#   integration real servers (Redis, gRPC, HTTP, the embedding model) in the test process
#   unit        everything else: pure functions and classes
# `make test` runs all of them; `make test-fast` runs unit and integration.
_GATES = frozenset({"test_lint.py", "test_ci_gates.py", "test_protos.py", "test_deploy.py"})
_E2E_DIRS = frozenset({"e2e", "cli"})
# Fixtures that start a real server, process or model.
_REAL_PART_FIXTURES = frozenset(
    {
        "redis_server",
        "redis_client",
        "mesh",
        "mesh_redis",
        "demo_api_url",
        "test_api",
        "closed_port_url",
        "misbehaving_app",
        "chat_server",
        "demo_client",
        "edge_apps",
        "edge_app",
        "http",
        "admin_http",
        "e5",
        "demo_base_url",
    }
)
# What a test module that starts real parts by itself calls.
_REAL_PART_CALLS = (
    "grpc.aio.server(",
    "serve_asgi(",
    "GrpcServer",
    "EmbeddedRedis(",
    "atc_up(",
    "build_server(",
)


@functools.cache
def _starts_real_parts(module: Path) -> bool:
    source = module.read_text(encoding="utf-8")
    return any(call in source for call in _REAL_PART_CALLS)


def lane_of(module: Path, fixtures: frozenset[str] | set[str] | list[str]) -> str:
    relative = module.relative_to(TESTS)
    if relative.name in _GATES:
        return "gates"
    if relative.parts[0] == "reliability":
        return "reliability"
    if relative.parts[0] in _E2E_DIRS or "browser" in relative.name or "blind" in relative.name:
        return "e2e"
    if _REAL_PART_FIXTURES.intersection(fixtures) or _starts_real_parts(module):
        return "integration"
    return "unit"


# The order files start in under `make test`'s two workers: the slowest lanes first, so the
# suite does not end on one worker running a mesh test alone while the other idles.
_LANE_ORDER = {"e2e": 0, "reliability": 0, "gates": 1, "integration": 2, "unit": 3}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    first_lane: dict[Path, int] = {}
    for item in items:
        lane = lane_of(Path(str(item.path)), item.fixturenames)
        item.add_marker(getattr(pytest.mark, lane))
        module = Path(str(item.path))
        first_lane[module] = min(first_lane.get(module, 3), _LANE_ORDER[lane])
    # By whole files (a file's tests stay together and in order: its fixtures start once).
    items.sort(key=lambda item: first_lane[Path(str(item.path))])


@pytest.fixture(scope="session")
def redis_server() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest.fixture()
async def redis_client(redis_server: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    """A client on a clean database (flushed before each test)."""
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture()
def seed_body() -> dict[str, Any]:
    return copy.deepcopy(SEED_BODY)
