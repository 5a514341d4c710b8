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
import http.cookiejar
import json
import os
import random
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from atc.common.v1 import catalogue_pb2
from bench import footprint, speed_bench
from devtools.launcher.inprocess import running_mesh
from devtools.launcher.subprocess_mesh import MeshProcess, atc_up
from devtools.redis_server import EmbeddedRedis, free_port
from services.clients import IndexerClient
from services.runtime.channels import open_channel

QUESTION = "What are the public holidays in Estonia?"
# The concurrency level beside which the embedding is measured again.
EMBEDDING_UNDER_LOAD = 50
ANSWER = "2026-01-01 to 2026-12-31"


@dataclass
class TurnResult:
    total: float
    first_event: float | None
    status: int
    error: bool
    # Why a turn failed ("403 OWNED_BY_ANOTHER", "error frame: …", "ReadTimeout"); "" when it did not.
    detail: str = ""
    # The chat token the edge issued on this turn (its `X-Chat-Token` header), if any.
    chat_token: str | None = None
    # A refusal's Retry-After (seconds), when it carried one.
    retry_after: float | None = None


@dataclass
class Load:
    """Turns of concurrent conversations, and how they ended."""

    results: list[TurnResult] = field(default_factory=list)

    @property
    def ok(self) -> list[TurnResult]:
        return [r for r in self.results if r.status == 200 and not r.error]

    def error_kinds(self) -> dict[str, int]:
        """Failed turns (429s apart) by what they said."""
        kinds: dict[str, int] = {}
        for r in self.results:
            if r.status != 429 and (r.status != 200 or r.error):
                kinds[r.detail] = kinds.get(r.detail, 0) + 1
        return kinds


def percentile(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ms(value: float | None) -> float | None:
    return round(value * 1000, 1) if value is not None else None


def chat_client(base_url: str, **kwargs: Any) -> httpx.AsyncClient:
    """An HTTP client that keeps no cookies: every simulated user carries its own chat
    token (as an API client does, `Authorization: Bearer <X-Chat-Token>`). One cookie
    jar shared by concurrent users would send one user's token on another's turn."""
    no_cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(base_url=base_url, cookies=no_cookies, **kwargs)


def _rejection(status: int, body: bytes) -> str:
    try:
        reason = json.loads(body).get("error", {}).get("reason") or ""
    except (ValueError, AttributeError):
        reason = ""
    return f"{status} {reason}".strip()


async def timed_turn(
    client: httpx.AsyncClient, chat_id: str, message: str, chat_token: str | None = None
) -> TurnResult:
    started = time.perf_counter()
    first: float | None = None
    detail = ""
    headers = {"authorization": f"Bearer {chat_token}"} if chat_token else {}
    try:
        async with client.stream(
            "POST", "/v1/orchestrate/stream", json={"chatId": chat_id, "message": message}, headers=headers
        ) as response:
            issued = response.headers.get("x-chat-token")
            if response.status_code != 200:
                body = await response.aread()
                hint = response.headers.get("retry-after")
                return TurnResult(
                    time.perf_counter() - started,
                    None,
                    response.status_code,
                    True,
                    _rejection(response.status_code, body),
                    retry_after=float(hint) if hint and hint.isdigit() else None,
                )
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                if first is None:
                    first = time.perf_counter() - started
                frame = json.loads(line[5:])
                if frame["type"] == "error" and not detail:
                    reason = frame.get("reason") or frame.get("code") or ""
                    detail = f"error frame: {reason} {frame['content']}".strip()
                if frame["type"] == "end":
                    break
            return TurnResult(time.perf_counter() - started, first, 200, bool(detail), detail, issued)
    except httpx.HTTPError as exc:
        return TurnResult(time.perf_counter() - started, first, 0, True, type(exc).__name__)


async def conversation(client: httpx.AsyncClient, messages: Sequence[str]) -> list[TurnResult]:
    """One chat, turn after turn, sending back the chat token its first turn was given.
    Stops at the first turn that was refused."""
    chat_id = str(uuid.uuid4())
    token: str | None = None
    results: list[TurnResult] = []
    for message in messages:
        result = await timed_turn(client, chat_id, message, token)
        results.append(result)
        token = result.chat_token or token
        if result.status != 200:
            break
    return results


async def conversations(edge_url: str, count: int) -> list[TurnResult]:
    """`count` two-turn conversations one after another (after a warm-up turn that opens
    the connection, which is then reused like a browser's)."""
    results: list[TurnResult] = []
    async with chat_client(edge_url, timeout=60) as client:
        await timed_turn(client, "warm-up", QUESTION)
        for _ in range(count):
            results += await conversation(client, (QUESTION, ANSWER))
    return results


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
    async with chat_client(edge_url, timeout=60, limits=limits) as client:

        async def user() -> None:
            while time.perf_counter() < stop_at:
                turns = await conversation(client, (QUESTION, ANSWER))
                load.results += turns
                if turns[-1].status == 429:
                    # What a client told Retry-After does (a well-behaved one waits that long).
                    await asyncio.sleep(turns[-1].retry_after or 1.0)

        started = time.perf_counter()
        await asyncio.gather(*(user() for _ in range(concurrency)))
        return load, time.perf_counter() - started


def process_tree_rss_mib(root_pid: int) -> dict[str, Any]:
    """RSS of every process under `root_pid`, by its command's module name."""
    rss: dict[str, float] = {}
    for process in footprint.process_tree(root_pid):
        rss[process.name] = max(rss.get(process.name, 0.0), footprint.mib(process.rss_kib))
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
    async with chat_client(edge_url, timeout=120) as client:
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


async def mesh_addresses(up: MeshProcess) -> dict[str, str]:
    """The internal addresses `atc up` prints after its URL line ("  indexer: 127.0.0.1:…")."""
    assert up.process.stdout is not None
    addresses: dict[str, str] = {}
    while True:
        line = (await asyncio.wait_for(up.process.stdout.readline(), 30)).decode()
        up.output.append(line)
        if not line or "Ctrl-C" in line:
            return addresses
        name, sep, value = line.strip().partition(": ")
        if sep:
            addresses[name] = value.split()[0]


async def chat_under_indexing(
    edge_url: str, indexer_target: str, samples: int, endpoints: int
) -> dict[str, Any]:
    """Single-turn chats one after another, alone and while `endpoints` generated endpoints
    are bulk-indexed through the indexer's IndexEndpoint RPC (what `atc index` calls)."""

    async def chats() -> list[float]:
        async with chat_client(edge_url, timeout=60) as client:
            results = [await timed_turn(client, str(uuid.uuid4()), QUESTION) for _ in range(samples)]
        return [r.total for r in results if r.status == 200 and not r.error]

    # Earlier parts can leave work behind (embeddings of cut-off long messages): let it
    # drain, and measure "alone" before and after the indexing run.
    await asyncio.sleep(3.0)
    await chats()
    alone = await chats()
    rng = random.Random(11)
    batch = [synthetic_endpoint(100_000 + i, rng) for i in range(endpoints)]
    client = IndexerClient(open_channel(indexer_target))
    during: list[float] = []
    try:
        indexing = asyncio.create_task(index_many(client, list(batch), workers=4))
        while not indexing.done():
            during += await chats()
        index_seconds = indexing.result()
    finally:
        await client.close()
    alone += await chats()
    p95_alone, p95_during = percentile(alone, 0.95), percentile(during, 0.95)
    return {
        "chat_p50_ms_alone": ms(percentile(alone, 0.5)),
        "chat_p95_ms_alone": ms(p95_alone),
        "chat_p50_ms_while_indexing": ms(percentile(during, 0.5)),
        "chat_p95_ms_while_indexing": ms(p95_during),
        "slowdown_p95": round(p95_during / p95_alone, 2) if p95_alone and p95_during else None,
        "chats_while_indexing": len(during),
        "endpoints_indexed": endpoints,
        "indexing_endpoints_per_s": round(endpoints / index_seconds, 1),
    }


def table(title: str, rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    columns = list(next(iter(rows.values())))
    print("  " + f"{'':>12}" + "".join(f"{c:>28}" for c in columns))
    for name, row in rows.items():
        print("  " + f"{name:>12}" + "".join(f"{json.dumps(row.get(c)):>28}" for c in columns))


# The caller streams a checked answer word by word at a reading pace (0.02 s a word,
# ≈ 2 s for the holidays answer). That pause would be most of every turn and hide what the
# mesh costs, so the bench turns it off through the caller's setting (default unchanged).
PACING_ENV = footprint.PACING_ENV


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Settings for every mesh started inside (`atc up` children inherit the env; the
    in-process services' settings read it too)."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def caller_pacing(seconds: float) -> contextlib.AbstractContextManager[None]:
    """The caller's word pacing for every mesh started inside."""
    return environment({PACING_ENV: str(seconds)})


# The indexer as it was before chat got priority: searches and indexing call the model
# first come first served, and any number of entities are indexed at once.
INDEXING_FIFO_ENV = {"ATC_INDEXER_EMBEDDING_SCHEDULER_ENABLED": "false", "ATC_INDEXER_INDEXING_SLOTS": "0"}


async def chat_while_indexing_on_fresh_mesh(
    quick: bool, pacing_seconds: float, env: dict[str, str]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data_dir, caller_pacing(pacing_seconds), environment(env):
        async with atc_up(free_port(), Path(data_dir) / "up", start_timeout=300) as up:
            addresses = await mesh_addresses(up)
            return await chat_under_indexing(
                up.url.rstrip("/"), addresses["indexer"], 10, 300 if quick else 1000
            )


async def indexing_priority_effect(quick: bool, pacing_seconds: float) -> dict[str, Any]:
    """Chat while bulk indexing, on a fresh `atc up` with the indexer first come first
    served (`fifo`) and with chat first (`priority`, the default)."""
    return {
        name: await chat_while_indexing_on_fresh_mesh(quick, pacing_seconds, env)
        for name, env in (("fifo", INDEXING_FIFO_ENV), ("priority", {}))
    }


def turn_rows(mesh: Sequence[TurnResult], in_process: Sequence[TurnResult]) -> dict[str, dict[str, Any]]:
    ok_mesh = [r for r in mesh if r.status == 200 and not r.error]
    ok_inproc = [r for r in in_process if r.status == 200 and not r.error]
    return {
        "mesh": latency_row([r.total for r in ok_mesh]),
        "in_process": latency_row([r.total for r in ok_inproc]),
        "mesh_first_event": latency_row([r.first_event for r in ok_mesh if r.first_event is not None]),
        "in_process_first_event": latency_row(
            [r.first_event for r in ok_inproc if r.first_event is not None]
        ),
    }


def ratio_of(rows: dict[str, dict[str, Any]], mesh: str, in_process: str) -> float | None:
    mesh_p50, inproc_p50 = rows[mesh]["p50_ms"], rows[in_process]["p50_ms"]
    return round(mesh_p50 / inproc_p50, 2) if mesh_p50 and inproc_p50 else None


async def run(
    quick: bool, on_step: Callable[[str], None] = print, pacing_seconds: float = 0.0
) -> dict[str, Any]:
    sequential = 10 if quick else 40
    levels = [20, 50, 100, 200]
    load_seconds = 4.0 if quick else 15.0
    sizes = [100, 1000] if quick else [100, 1000, 10_000]
    result: dict[str, Any] = {"quick": quick, "caller_stream_chunk_delay_seconds": pacing_seconds}

    with tempfile.TemporaryDirectory() as data_dir, caller_pacing(pacing_seconds):
        on_step("starting atc up (every service its own process)…")
        async with atc_up(free_port(), Path(data_dir) / "up", start_timeout=300) as up:
            addresses = await mesh_addresses(up)
            edge = up.url.rstrip("/")
            on_step("mesh vs in-process turns, alternating (the machine's load hits both alike)…")
            inproc: list[TurnResult] = []
            mesh_turns: list[TurnResult] = []
            (Path(data_dir) / "inproc").mkdir()
            with EmbeddedRedis() as redis:
                async with running_mesh(redis.url, Path(data_dir) / "inproc") as in_process:
                    for _ in range(sequential):
                        inproc += await conversations(in_process.edge_url, 1)
                        mesh_turns += await conversations(edge, 1)
            rows = turn_rows(mesh_turns, inproc)
            ratio = ratio_of(rows, "mesh", "in_process")
            first_event_ratio = ratio_of(rows, "mesh_first_event", "in_process_first_event")
            failed = Load(mesh_turns + inproc).error_kinds()
            result["turn"] = {
                **rows,
                "ratio": ratio,
                "first_event_ratio": first_event_ratio,
                "errors": failed,
            }
            table(
                f"one turn through the edge (two-turn chats, sequential; pacing {pacing_seconds:g} s)",
                rows,
            )
            print(f"  ratio (mesh p50 / in-process p50): full turn {ratio}, first event {first_event_ratio}")
            if failed:
                print("  failed turns:", json.dumps(failed, ensure_ascii=False))

            on_step("embedding: the indexer's Embed RPC, one query at a time, alone…")
            embedding: dict[str, Any] = {
                "alone": await speed_bench.embedding_latency(addresses["indexer"], 30 if quick else 100)
            }
            concurrency: dict[str, dict[str, Any]] = {}
            for level in levels:
                on_step(f"{level} concurrent chats for {load_seconds:g} s…")
                beside = (
                    asyncio.create_task(
                        speed_bench.embedding_latency(addresses["indexer"], 0, seconds=load_seconds)
                    )
                    if level == EMBEDDING_UNDER_LOAD
                    else None
                )
                load, elapsed = await concurrent_load(edge, level, load_seconds)
                if beside is not None:
                    embedding[f"under_{level}_chats"] = await beside
                first = [r.first_event for r in load.ok if r.first_event is not None]
                kinds = load.error_kinds()
                concurrency[str(level)] = {
                    "turns_per_s": round(len(load.ok) / elapsed, 1),
                    "first_event_p50_ms": ms(percentile(first, 0.5)),
                    "first_event_p99_ms": ms(percentile(first, 0.99)),
                    "turn_p50_ms": ms(percentile([r.total for r in load.ok], 0.5)),
                    "turn_p99_ms": ms(percentile([r.total for r in load.ok], 0.99)),
                    "rejected_429": sum(1 for r in load.results if r.status == 429),
                    "errors": sum(kinds.values()),
                    "error_kinds": kinds,
                    "rss_mib": process_tree_rss_mib(up.process.pid),
                }
            result["concurrency"] = concurrency
            result["embedding"] = embedding
            table("embedding (Embed RPC, one query)", embedding)
            best = max(row["turns_per_s"] for row in concurrency.values())
            result["throughput_plateau"] = (
                round(concurrency[str(levels[-1])]["turns_per_s"] / best, 2) if best else None
            )
            table(
                "concurrent chats",
                {
                    k: {c: v for c, v in row.items() if c not in ("rss_mib", "error_kinds")}
                    for k, row in concurrency.items()
                },
            )
            for name, row in concurrency.items():
                if row["error_kinds"]:
                    print(f"  errors at {name}:", json.dumps(row["error_kinds"], ensure_ascii=False))
            print("  RSS MiB per process at 200:", json.dumps(concurrency[str(levels[-1])]["rss_mib"]))

            on_step("message lengths…")
            result["message_length"] = await message_lengths(edge, [100, 1000, 10_000], 5 if quick else 10)
            table("message length (characters)", result["message_length"])
            short, long = (result["message_length"][k]["p50_ms"] for k in ("100", "10000"))
            result["long_message_ratio"] = round(long / short, 2) if short and long else None

            on_step("chat while bulk indexing…")
            result["indexing_interference"] = await chat_under_indexing(
                edge, addresses["indexer"], 10, 300 if quick else 1000
            )

    on_step("chat while bulk indexing, indexer first come first served (as before chat had priority)…")
    result["indexing_interference_fifo"] = await chat_while_indexing_on_fresh_mesh(
        quick, pacing_seconds, INDEXING_FIFO_ENV
    )
    table(
        "chat while bulk indexing runs",
        {"priority": result["indexing_interference"], "fifo": result["indexing_interference_fifo"]},
    )

    on_step("decision overhead beside the embedding, 1,000 endpoints (in process)…")
    result["decision"] = await speed_bench.decision_overhead(1000, rounds=2 if quick else 5)
    table(
        "routing decision at 1,000 endpoints (query vectors made beforehand)",
        {
            "decision_overhead": result["decision"]["decision_overhead"],
            "embedding_in_process": result["decision"]["embedding_in_process"],
        },
    )

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
    parser.add_argument("--pacing", type=float, default=0.0, help="the caller's word pacing (s); 0 = off")
    parser.add_argument(
        "--only-indexing",
        action="store_true",
        help="only chat while bulk indexing, first come first served vs chat first",
    )
    args = parser.parse_args()
    if args.only_indexing:
        effect = asyncio.run(indexing_priority_effect(args.quick, args.pacing))
        table("chat while bulk indexing runs", effect)
        print(json.dumps(effect))
    else:
        print(json.dumps(asyncio.run(run(args.quick, pacing_seconds=args.pacing))))
