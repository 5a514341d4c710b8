"""Median time of one chat turn through the edge (no LLM).

Starts the whole mesh in one process (every service a real gRPC server, real
Redis, real uvicorn edge and demo APIs) and runs the two-turn holidays scenario
N times through POST /v1/orchestrate/stream, timing each turn from request to
the END frame, and the time to the first answer token.

    .venv/bin/python -m bench.turn_latency [--conversations 30]
    .venv/bin/python -m bench.turn_latency --url http://127.0.0.1:8080   # a running `make run`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from devtools.launcher.inprocess import running_mesh
from devtools.redis_server import EmbeddedRedis

TURNS = [
    ("What are the public holidays in Estonia?", "question"),
    ("2026-01-01 to 2026-12-31", "answer"),
]


async def timed_turn(client: httpx.AsyncClient, chat_id: str, message: str) -> tuple[float, float | None]:
    """(seconds to END, seconds to the first token)."""
    started = time.perf_counter()
    first_token = None
    async with client.stream(
        "POST", "/v1/orchestrate/stream", json={"chatId": chat_id, "message": message}
    ) as r:
        r.raise_for_status()
        async for line in r.aiter_lines():
            if not line.startswith("data:"):
                continue
            frame = json.loads(line[5:])
            if frame["type"] == "token" and first_token is None:
                first_token = time.perf_counter() - started
            if frame["type"] == "end":
                break
    return time.perf_counter() - started, first_token


def describe(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms (n={len(ordered)})"


async def measure(edge_url: str, conversations: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    totals: dict[str, list[float]] = {kind: [] for _, kind in TURNS}
    first_tokens: dict[str, list[float]] = {kind: [] for _, kind in TURNS}
    async with httpx.AsyncClient(base_url=edge_url, timeout=30) as client:
        await timed_turn(client, "warm-up", "What are the public holidays in Estonia?")
        for _ in range(conversations):
            chat_id = str(uuid.uuid4())
            for message, kind in TURNS:
                total, first = await timed_turn(client, chat_id, message)
                totals[kind].append(total)
                if first is not None:
                    first_tokens[kind].append(first)
    return totals, first_tokens


async def main(conversations: int, url: str | None = None) -> None:
    if url:
        totals, first_tokens = await measure(url, conversations)
        where = f"a running mesh at {url}"
    else:
        with EmbeddedRedis() as redis, tempfile.TemporaryDirectory() as data_dir:
            async with running_mesh(redis.url, Path(data_dir)) as mesh:
                totals, first_tokens = await measure(mesh.edge_url, conversations)
        where = "the whole mesh in this process"
    print(f"turn latency through the edge ({where}), {conversations} two-turn conversations, no LLM:")
    for _, kind in TURNS:
        print(f"  {kind:8s} turn to END:         {describe(totals[kind])}")
        print(f"  {kind:8s} turn to first token: {describe(first_tokens[kind])}")
    print(f"  all turns to END:            {describe([t for v in totals.values() for t in v])}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=30)
    parser.add_argument("--url", help="edge URL of a running mesh (default: start one in this process)")
    args = parser.parse_args()
    asyncio.run(main(args.conversations, args.url))
