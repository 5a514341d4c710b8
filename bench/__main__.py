"""`make bench`: the footprint of `atc up` (a cold and a warm start, each to a served turn,
and the memory of every process then), the mesh benchmark (a table per part, then ONE JSON
object as the last line), and the answers benchmark when it is present.

    .venv/bin/python -m bench [--quick]

`--quick` bounds every part (shorter loads, catalogues up to 1,000 endpoints). The caller's
word pacing is off unless `--pacing SECONDS` (it would be most of every turn).
Each benchmark is also runnable alone (`python -m bench.mesh_bench`, ...). Routing quality
needs the evaluation data outside the repo and runs alone:
`python -m bench.eval_routing --catalog ../shared/eval/clinc_dev`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import subprocess
import sys
from typing import Any

from bench import footprint, mesh_bench

# The answers benchmark (formatter tokens, result store p50/p99) plugs in here: any
# `bench/bench_answers.py` that prints one JSON object as its last line.
ANSWERS_MODULE = "bench.bench_answers"


def answers_benchmark(quick: bool) -> dict[str, Any] | None:
    if importlib.util.find_spec(ANSWERS_MODULE) is None:
        return None
    # bench_answers is bounded already (300 store round trips); it takes no --quick.
    argv = [sys.executable, "-m", ANSWERS_MODULE]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=1800)
    print(done.stdout, end="")
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    try:
        parsed = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        parsed = None
    if done.returncode != 0 or not isinstance(parsed, dict):
        return {"error": f"exit {done.returncode}", "stderr": done.stderr[-2000:]}
    return parsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="bounded runs (a few minutes in all)")
    parser.add_argument(
        "--pacing",
        type=float,
        default=0.0,
        help="the caller's word pacing in seconds (ATC_CALLER_STREAM_CHUNK_DELAY_SECONDS; default 0: off)",
    )
    args = parser.parse_args()
    summary: dict[str, Any] = {}
    # Bounded already (two starts and two turns): the same with --quick.
    summary["footprint"] = asyncio.run(mesh_bench.guarded(lambda: footprint.run(args.pacing)))
    summary["mesh"] = asyncio.run(
        mesh_bench.guarded(lambda: mesh_bench.run(args.quick, pacing_seconds=args.pacing))
    )
    answers = answers_benchmark(args.quick)
    summary["answers"] = answers if answers is not None else "bench/bench_answers.py not present"
    if isinstance(answers, dict):
        # The answers issue's figures stand at the top level too (formatter_context_tokens_*,
        # result_store_write_read_p50_ms / _p99_ms), where readers of this line look first.
        summary.update({k: v for k, v in answers.items() if isinstance(v, int | float)})
    mesh = summary["mesh"]
    turn = mesh.get("turn", {})
    summary["ratio"] = turn.get("ratio")
    summary["first_event_ratio"] = turn.get("first_event_ratio")
    # The speed figures (issue 23), where readers of this line look first.
    embedding = mesh.get("embedding", {})
    summary["embedding_p50_ms"] = embedding.get("alone", {}).get("p50_ms")
    summary["embedding_p95_ms"] = embedding.get("alone", {}).get("p95_ms")
    under = embedding.get(f"under_{mesh_bench.EMBEDDING_UNDER_LOAD}_chats", {})
    summary["embedding_p50_ms_under_50_chats"] = under.get("p50_ms")
    summary["embedding_p95_ms_under_50_chats"] = under.get("p95_ms")
    summary["decision_overhead_p50_ms"] = mesh.get("decision", {}).get("decision_overhead_p50_ms")
    summary["concurrency"] = {
        level: {
            k: row.get(k)
            for k in ("turns_per_s", "first_event_p50_ms", "first_event_p99_ms", "rejected_429", "errors")
        }
        for level, row in mesh.get("concurrency", {}).items()
    }
    summary["throughput_plateau"] = mesh.get("throughput_plateau")
    summary["long_message_ratio"] = mesh.get("long_message_ratio")
    # The footprint figures (issue 18): every process of `atc up` after a start and one
    # turn, and a warm start's launch-to-served-turn time.
    for name in ("idle_rss_mib_total", "idle_pss_mib_total", "warm_start_s", "cold_start_s"):
        summary[name] = summary["footprint"].get(name)
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
