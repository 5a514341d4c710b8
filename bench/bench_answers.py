"""Answers benchmark: what the LLM formatter's context costs with and without the
result store, and how long a result-store write + read takes on the embedded Redis.

    python -m bench.bench_answers [--iterations 300]

Tokens are counted with tiktoken's cl100k_base (shipped inside litellm; no download),
else estimated at 4 characters per token (the JSON says which). Prints one JSON
object as its last line.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from caller_svc.formatter import ResultToFormat
from caller_svc.llm_context import MAX_RESPONSE_BYTES, result_context
from caller_svc.result_store import ResultStore
from caller_svc.summary import summarize
from devtools.redis_server import EmbeddedRedis

ROW_COUNTS = (10, 1_000, 10_000)


def token_counter() -> tuple[Callable[[str], int], str]:
    try:
        # litellm ships tiktoken's files; find them without importing litellm (slow, and it fetches).
        spec = importlib.util.find_spec("litellm")
        if spec is None or not spec.submodule_search_locations:
            raise LookupError("litellm is not installed")
        tokenizers = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tokenizers))
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        return (lambda text: len(encoding.encode(text))), "tiktoken cl100k_base"
    except Exception:  # no tokenizer files: a stable estimate
        return (lambda text: (len(text) + 3) // 4), "chars/4 estimate"


def rows(count: int) -> list[dict[str, Any]]:
    """Hourly price rows like the electricity API's, with a category and a status."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        {
            "time": (start + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "price": round(40 + (i * 37 % 140) + (i % 7) * 0.31, 2),
            "zone": ("EE", "LV", "LT", "FI")[i % 4],
            "final": i % 5 != 0,
        }
        for i in range(count)
    ]


def context_tokens(count_tokens: Callable[[str], int]) -> dict[str, int]:
    found: dict[str, int] = {}
    for count in ROW_COUNTS:
        data = {"success": True, "unit": "EUR/MWh", "data": rows(count)}
        result = ResultToFormat("get_electricity_prices", True, data)
        summary = summarize(data)
        with_store = result_context(
            result, "550e8400-e29b-41d4-a716-446655440000", summary, MAX_RESPONSE_BYTES
        )
        legacy = f"<api_data>\n{json.dumps(data, ensure_ascii=False)}\n</api_data>"
        truncated = result_context(result, None, summary, MAX_RESPONSE_BYTES)
        found[f"formatter_context_tokens_{count}_rows"] = count_tokens(with_store)
        found[f"formatter_context_tokens_{count}_rows_without_store"] = count_tokens(legacy)
        found[f"formatter_context_tokens_{count}_rows_without_store_truncated_50kb"] = count_tokens(truncated)
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def store_latency(redis_url: str, iterations: int) -> dict[str, float]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    store = ResultStore(client)
    payload = rows(10)
    summary = summarize(payload)
    timings: list[float] = []
    try:
        for _ in range(iterations):
            started = time.perf_counter()
            result_id = await store.save(
                endpoint_name="get_electricity_prices",
                question="bench",
                summary=summary,
                response=payload,
                owner_id="bench",
                query={"method": "GET", "url": "https://example.ee/prices", "params": {}},
            )
            assert result_id is not None
            await store.get(result_id, "bench")
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        await client.aclose()
    return {
        "result_store_write_read_p50_ms": round(statistics.median(timings), 3),
        "result_store_write_read_p99_ms": round(percentile(timings, 0.99), 3),
        "result_store_iterations": iterations,
    }


async def main(iterations: int = 300) -> dict[str, Any]:
    count_tokens, tokenizer = token_counter()
    report: dict[str, Any] = {"bench": "answers", "tokenizer": tokenizer, **context_tokens(count_tokens)}
    with EmbeddedRedis() as redis_server:
        report.update(await store_latency(redis_server.url, iterations))
    print(json.dumps(report))
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=300)
    asyncio.run(main(parser.parse_args().iterations))
