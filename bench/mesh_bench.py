"""The mesh, measured: what the process boundaries cost, how it holds under concurrent chats,
long messages and bulk indexing, and how routing and indexing scale with the catalogue.

    .venv/bin/python -m bench.mesh_bench [--quick]

Prints a table per part and returns one dict (the caller prints it as the last JSON line).
Everything runs on this machine: the mesh under `atc up` (every service its own process),
the same pipeline in one process (`running_mesh`), and a standalone indexer. No LLM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from atc.common.v1 import catalogue_pb2
from services.clients import IndexerClient
from services.devtools.launcher.inprocess import running_mesh
from services.devtools.launcher.subprocess_mesh import atc_up
from services.devtools.redis_server import EmbeddedRedis, free_port
from services.runtime.channels import open_channel

QUESTION = "What are the public holidays in Estonia?"
ANSWER = "2026-01-01 to 2026-12-31"


@dataclass
class TurnResult:
    total: float
    first_event: float | None
    status: int
    error: bool


@dataclass
class Load:
    """Turns of concurrent conversations, and how they ended."""

    results: list[TurnResult] = field(default_factory=list)

    @property
    def ok(self) -> list[TurnResult]:
        return [r for r in self.results if r.status == 200 and not r.error]


def percentile(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ms(value: float | None) -> float | None:
    return round(value * 1000, 1) if value is not None else None


async def timed_turn(client: httpx.AsyncClient, chat_id: str, message: str) -> TurnResult:
    started = time.perf_counter()
    first: float | None = None
    error = False
    try:
        async with client.stream(
            "POST", "/v1/orchestrate/stream", json={"chatId": chat_id, "message": message}
        ) as response:
            if response.status_code != 200:
                await response.aread()
                return TurnResult(time.perf_counter() - started, None, response.status_code, True)
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                if first is None:
                    first = time.perf_counter() - started
                frame = json.loads(line[5:])
                if frame["type"] == "error":
                    error = True
                if frame["type"] == "end":
                    break
            return TurnResult(time.perf_counter() - started, first, 200, error)
    except httpx.HTTPError:
        return TurnResult(time.perf_counter() - started, first, 0, True)


async def conversations(edge_url: str, count: int) -> list[float]:
    """`count` two-turn conversations one after another: seconds per turn (after a warm-up
    turn that opens the connection, which is then reused like a browser's)."""
    totals: list[float] = []
    async with httpx.AsyncClient(base_url=edge_url, timeout=60) as client:
        await timed_turn(client, "warm-up", QUESTION)
        for _ in range(count):
            chat_id = str(uuid.uuid4())
            for message in (QUESTION, ANSWER):
                result = await timed_turn(client, chat_id, message)
                if result.status == 200 and not result.error:
                    totals.append(result.total)
    return totals


def latency_row(samples: Sequence[float]) -> dict[str, Any]:
    return {
        "p50_ms": ms(percentile(samples, 0.5)),
        "p95_ms": ms(percentile(samples, 0.95)),
        "p99_ms": ms(percentile(samples, 0.99)),
        "n": len(samples),
    }


async def concurrent_load(edge_url: str, concurrency: int, seconds: float) -> tuple[Load, float]:
    """`concurrency` users chatting (two-turn conversations) for `seconds`."""
    load = Load()
    stop_at = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency + 10, max_keepalive_connections=concurrency + 10)
    async with httpx.AsyncClient(base_url=edge_url, timeout=60, limits=limits) as client:

        async def user() -> None:
            while time.perf_counter() < stop_at:
                chat_id = str(uuid.uuid4())
                for message in (QUESTION, ANSWER):
                    result = await timed_turn(client, chat_id, message)
                    load.results.append(result)
                    if result.status == 429:
                        await asyncio.sleep(0.2)  # what a client told Retry-After would do, shortened
                        break

        started = time.perf_counter()
        await asyncio.gather(*(user() for _ in range(concurrency)))
        return load, time.perf_counter() - started


def process_tree_rss_mib(root_pid: int) -> dict[str, Any]:
    """RSS of every process under `root_pid`, by its command's module name."""
    rss: dict[str, float] = {}

    def children(pid: int) -> list[int]:
        found: list[int] = []
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                found += [int(p) for p in (task / "children").read_text().split()]
        return found

    pending = [root_pid]
    while pending:
        pid = pending.pop()
        pending += children(pid)
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        kib = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
        args = [a.decode(errors="replace") for a in cmdline if a]
        name = args[args.index("-m") + 1] if "-m" in args else Path(args[0]).name if args else str(pid)
        if name == "services.devtools.cli":
            name = "atc up"
        rss[name] = max(rss.get(name, 0.0), round(kib / 1024, 1))
    return rss


def synthetic_endpoint(i: int, rng: random.Random) -> catalogue_pb2.Endpoint:
    topics = [
        "parking permits",
        "library loans",
        "school meals",
        "waste collection",
        "building permits",
        "fishing licences",
        "dog registration",
        "road works",
        "bus timetables",
        "water meters",
        "tax refunds",
        "pension payments",
        "health insurance",
        "hunting seasons",
        "river levels",
    ]
    actions = ["list", "get", "search", "count", "check"]
    topic, action = rng.choice(topics), rng.choice(actions)
    return catalogue_pb2.Endpoint(
        endpoint_id=str(uuid.UUID(int=rng.getrandbits(128))),
        name=f"{action}_{topic.replace(' ', '_')}_{i}",
        description=f"{action.capitalize()} {topic} records for region {i % 97} and year {2000 + i % 27}.",
        method="GET",
        url=f"http://127.0.0.1:8090/synthetic/{i}",
        visibility="public",
        type="custom_endpoint",
        params=[
            catalogue_pb2.EndpointParam(
                name="region", type="string", required=False, description="Region code"
            )
        ],
    )


async def index_many(
    client: IndexerClient, endpoints: Sequence[catalogue_pb2.Endpoint], workers: int
) -> float:
    """Seconds to index all of them with `workers` concurrent calls."""
    queue = list(endpoints)
    started = time.perf_counter()

    async def worker() -> None:
        while queue:
            await client.index_endpoint(queue.pop(), skip_enrichment=True, timeout=120)

    await asyncio.gather(*(worker() for _ in range(workers)))
    return time.perf_counter() - started


async def catalogue_scaling(sizes: Sequence[int]) -> dict[str, dict[str, Any]]:
    from indexer_svc.app import build_server as build_indexer
    from indexer_svc.settings import IndexerSettings

    rng = random.Random(7)
    out: dict[str, dict[str, Any]] = {}
    queries = [
        "When is the library loan due?",
        "Kui palju maksab parkimisluba?",
        "Когда вывозят мусор?",
        "bus timetable for region 12",
        "pension payment dates",
        "river levels today",
    ]
    with tempfile.TemporaryDirectory() as data_dir:
        server = await build_indexer(IndexerSettings(port=0, data_dir=data_dir, catalogue_file=""))
        await server.start()
        client = IndexerClient(open_channel(server.address))
        try:
            indexed = 0
            for size in sizes:
                batch = [synthetic_endpoint(i, rng) for i in range(indexed, size)]
                seconds = await index_many(client, batch, workers=4)
                indexed = size
                timings = []
                for query in queries * 4:
                    started = time.perf_counter()
                    await client.search(query, limit=5, timeout=30)
                    timings.append(time.perf_counter() - started)
                out[str(size)] = {
                    "routing_p50_ms": ms(percentile(timings, 0.5)),
                    "routing_p95_ms": ms(percentile(timings, 0.95)),
                    "indexing_endpoints_per_s": round(len(batch) / seconds, 1) if batch else 0.0,
                }
        finally:
            await client.close()
            await server.stop(0)
    return out


async def message_lengths(edge_url: str, lengths: Sequence[int], samples: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    async with httpx.AsyncClient(base_url=edge_url, timeout=120) as client:
        for length in lengths:
            message = (QUESTION + " ") * (length // (len(QUESTION) + 1) + 1)
            message = message[:length]
            results = [await timed_turn(client, str(uuid.uuid4()), message) for _ in range(samples)]
            ok = [r.total for r in results if r.status == 200]
            out[str(length)] = {
                "p50_ms": ms(percentile(ok, 0.5)),
                "max_ms": ms(max(ok)) if ok else None,
                "non_200": sorted(r.status for r in results if r.status != 200),
            }
    return out


async def chat_under_indexing(edge_url: str, samples: int) -> dict[str, Any]:
    """Single-turn chats one after another, alone and while the catalogue is bulk-indexed."""

    async def chats() -> list[float]:
        async with httpx.AsyncClient(base_url=edge_url, timeout=60) as client:
            results = [await timed_turn(client, str(uuid.uuid4()), QUESTION) for _ in range(samples)]
        return [r.total for r in results if r.status == 200]

    # Earlier parts can leave work behind (embeddings of cut-off long messages): let it
    # drain, and measure "alone" before and after the indexing run.
    await asyncio.sleep(3.0)
    await chats()
    alone = await chats()
    rng = random.Random(11)
    stop = asyncio.Event()
    indexed = [0]

    async def bulk_index() -> None:
        from google.protobuf.json_format import MessageToDict

        async with httpx.AsyncClient(base_url=edge_url, timeout=120) as client:
            i = 0
            while not stop.is_set():
                body = MessageToDict(synthetic_endpoint(100_000 + i, rng))
                body.setdefault("serviceId", "")
                response = await client.post("/v1/admin/endpoints", json=body)
                indexed[0] += response.status_code in (200, 201)
                i += 1

    indexers = [asyncio.create_task(bulk_index()) for _ in range(2)]
    try:
        await asyncio.sleep(1.0)
        during = await chats()
    finally:
        stop.set()
        await asyncio.gather(*indexers, return_exceptions=True)
    alone += await chats()
    p95_alone, p95_during = percentile(alone, 0.95), percentile(during, 0.95)
    return {
        "chat_p95_ms_alone": ms(p95_alone),
        "chat_p95_ms_while_indexing": ms(p95_during),
        "slowdown": round(p95_during / p95_alone, 2) if p95_alone and p95_during else None,
        "endpoints_indexed_meanwhile": indexed[0],
    }


def table(title: str, rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    columns = list(next(iter(rows.values())))
    print("  " + f"{'':>12}" + "".join(f"{c:>28}" for c in columns))
    for name, row in rows.items():
        print("  " + f"{name:>12}" + "".join(f"{json.dumps(row.get(c)):>28}" for c in columns))


async def run(quick: bool, on_step: Callable[[str], None] = print) -> dict[str, Any]:
    sequential = 10 if quick else 40
    levels = [20, 50, 100, 200]
    load_seconds = 4.0 if quick else 15.0
    sizes = [100, 1000] if quick else [100, 1000, 10_000]
    result: dict[str, Any] = {"quick": quick}

    with tempfile.TemporaryDirectory() as data_dir:
        on_step("starting atc up (every service its own process)…")
        async with atc_up(free_port(), Path(data_dir) / "up", start_timeout=300) as up:
            edge = up.url.rstrip("/")
            on_step("mesh vs in-process turns, alternating (the machine's load hits both alike)…")
            inproc: list[float] = []
            mesh_turns: list[float] = []
            (Path(data_dir) / "inproc").mkdir()
            with EmbeddedRedis() as redis:
                async with running_mesh(redis.url, Path(data_dir) / "inproc") as in_process:
                    for _ in range(sequential):
                        inproc += await conversations(in_process.edge_url, 1)
                        mesh_turns += await conversations(edge, 1)
            rows = {"mesh": latency_row(mesh_turns), "in_process": latency_row(inproc)}
            mesh_p50, inproc_p50 = rows["mesh"]["p50_ms"], rows["in_process"]["p50_ms"]
            ratio = round(mesh_p50 / inproc_p50, 2) if mesh_p50 and inproc_p50 else None
            result["turn"] = {**rows, "ratio": ratio}
            table("one turn through the edge (two-turn conversations, sequential)", rows)
            print(f"  ratio (mesh p50 / in-process p50): {ratio}")

            concurrency: dict[str, dict[str, Any]] = {}
            for level in levels:
                on_step(f"{level} concurrent chats for {load_seconds:g} s…")
                load, elapsed = await concurrent_load(edge, level, load_seconds)
                first = [r.first_event for r in load.ok if r.first_event is not None]
                concurrency[str(level)] = {
                    "turns_per_s": round(len(load.ok) / elapsed, 1),
                    "first_event_p50_ms": ms(percentile(first, 0.5)),
                    "first_event_p99_ms": ms(percentile(first, 0.99)),
                    "rejected_429": sum(1 for r in load.results if r.status == 429),
                    "errors": sum(
                        1 for r in load.results if r.status != 429 and (r.status != 200 or r.error)
                    ),
                    "rss_mib": process_tree_rss_mib(up.process.pid),
                }
            result["concurrency"] = concurrency
            table(
                "concurrent chats",
                {k: {c: v for c, v in row.items() if c != "rss_mib"} for k, row in concurrency.items()},
            )
            print("  RSS MiB per process at 200:", json.dumps(concurrency[str(levels[-1])]["rss_mib"]))

            on_step("message lengths…")
            result["message_length"] = await message_lengths(edge, [100, 1000, 10_000], 3 if quick else 10)
            table("message length (characters)", result["message_length"])

            on_step("chat while bulk indexing…")
            result["indexing_interference"] = await chat_under_indexing(edge, 10 if quick else 40)
            table("chat p95 while bulk indexing runs", {"turn": result["indexing_interference"]})

    on_step("catalogue scaling (standalone indexer)…")
    result["catalogue"] = await catalogue_scaling(sizes)
    table("catalogue size (endpoints)", result["catalogue"])
    return result


async def guarded(step: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    try:
        return await step()
    except Exception as exc:  # one failing part must not hide the others' numbers
        return {"error": f"{type(exc).__name__}: {exc}"}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter runs and catalogues up to 1,000")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.quick))))
