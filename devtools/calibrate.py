"""`atc calibrate`: fit the classifier's calibration profile on evaluation folders.

    atc calibrate --catalog ../shared/eval/clinc_dev --catalog ../shared/eval/sgd_dev \
        [--oos-recall 0.7] [--out classifier_svc/calibration_profile.json]

Each folder's catalogue is indexed through the real indexer code and every case searched
once. Cases whose best candidate has an example prototype fit the `prototype` scale, the
others the `description` scale. A folder without out-of-scope cases borrows the OOS
queries of the other folders as a foreign probe (searched against its own catalogue).
A scale no folder has cases for keeps the current profile's values.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from classifier_svc.api_matcher import rank
from classifier_svc.calibration import (
    CalibrationProfile,
    GuardThresholds,
    ScoreThresholds,
    WeakMatchThresholds,
    load_profile,
    save_profile,
)
from classifier_svc.calibration_fit import Fit, ScoredCase, fit_thresholds
from classifier_svc.candidates import Candidate
from devtools.routing_harness import Case, indexed_catalogue, load_cases, load_endpoints

SEARCH_LIMIT = 10
# Description weights tried for the prototype scale (0 = prototype alone).
DESCRIPTION_WEIGHTS = (0.0, 0.2, 0.35, 0.5)
# Weights of the sparse evidence (share of the query's words in the endpoint's text).
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.04)


@dataclass(frozen=True)
class Searched:
    candidates: list[Candidate]
    expected: str | None
    siblings: tuple[str, ...]


def _raw_profile(description_weight: float, coverage_weight: float) -> CalibrationProfile:
    """Thresholds 0: margins equal scores, so ranking is by the raw scale scores."""
    return CalibrationProfile(
        embedding_model="raw",
        prototype=ScoreThresholds(
            accept=0.0, gap_weight=0.0, description_weight=description_weight, coverage_weight=coverage_weight
        ),
        description=ScoreThresholds(accept=0.0, gap_weight=0.0, coverage_weight=coverage_weight),
    )


async def search_folder(folder: Path, probe: Sequence[str]) -> tuple[list[Searched], str]:
    """Every case searched once (plus the foreign OOS probe), and the index's model."""
    cases = [c for c in load_cases(folder / "routing_cases.jsonl") if not c.history or c.explicit_intent]
    cases += [Case(id=f"probe-{i}", query=q, expected=None) for i, q in enumerate(probe)]
    out = []
    async with indexed_catalogue(load_endpoints(folder)) as search:
        for case in cases:
            out.append(Searched(await search.search(case.query, SEARCH_LIMIT), case.expected, case.siblings))
        model = search.model
    return out, model


def scored_cases(
    searched: Sequence[Searched], description_weight: float, coverage_weight: float
) -> dict[str, list[ScoredCase]]:
    """Scored cases per scale ("prototype" / "description")."""
    profile = _raw_profile(description_weight, coverage_weight)
    out: dict[str, list[ScoredCase]] = {"prototype": [], "description": []}
    for case in searched:
        ranked = rank(case.candidates, profile)
        if not ranked:
            continue
        best = ranked[0]
        gap = best.score - ranked[1].score if len(ranked) > 1 else 0.0
        kind = "prototype" if best.candidate.has_prototype else "description"
        right = best.candidate.name == case.expected or best.candidate.name in case.siblings
        out[kind].append(ScoredCase(best.score, gap, right, case.expected is None))
    return out


async def calibrate(
    folders: Sequence[Path], oos_recall: float, base: CalibrationProfile | None
) -> CalibrationProfile:
    oos_queries = {
        folder: [c.query for c in load_cases(folder / "routing_cases.jsonl") if c.expected is None]
        for folder in folders
    }
    searched: list[Searched] = []
    model = ""
    for folder in folders:
        probe = [] if oos_queries[folder] else [q for f, qs in oos_queries.items() if f != folder for q in qs]
        found, model = await search_folder(folder, probe)
        searched.extend(found)
    fits: dict[str, Fit] = {}
    counts: dict[str, int] = {}
    for weight, coverage in itertools.product(DESCRIPTION_WEIGHTS, COVERAGE_WEIGHTS):
        for kind, cases in scored_cases(searched, weight, coverage).items():
            if not (any(c.out_of_scope for c in cases) and any(not c.out_of_scope for c in cases)):
                continue
            fit = fit_thresholds(cases, oos_recall)
            update: dict[str, float] = {"coverage_weight": coverage}
            if kind == "prototype":
                update["description_weight"] = weight
            fit = Fit(fit.thresholds.model_copy(update=update), fit.in_scope_accuracy, fit.oos_recall)
            if kind not in fits or fit.in_scope_accuracy > fits[kind].in_scope_accuracy:
                fits[kind] = fit
                counts[kind] = len(cases)
    thresholds: dict[str, ScoreThresholds] = {}
    metrics: dict[str, float] = {}
    for kind in ("prototype", "description"):
        if kind in fits:
            thresholds[kind] = fits[kind].thresholds
            metrics[f"{kind}_in_scope_accuracy"] = round(fits[kind].in_scope_accuracy, 4)
            metrics[f"{kind}_oos_recall"] = round(fits[kind].oos_recall, 4)
            metrics[f"{kind}_cases"] = float(counts[kind])
        elif base is not None:
            thresholds[kind] = getattr(base, kind)
        else:
            raise SystemExit(
                f"no in-scope and out-of-scope cases for the {kind} scale and no profile to keep it from"
            )
    names = " ".join(f"--catalog {f}" for f in folders)
    return CalibrationProfile(
        embedding_model=model,
        source=f"atc calibrate {names} --oos-recall {oos_recall} ({dt.date.today().isoformat()})",
        prototype=thresholds["prototype"],
        description=thresholds["description"],
        switch_margin=base.switch_margin if base is not None else 0.02,
        guard=base.guard if base is not None else GuardThresholds(),
        weak_match=base.weak_match if base is not None else WeakMatchThresholds(),
        metrics=metrics,
    )


def _current(out: Path) -> CalibrationProfile | None:
    """The profile being replaced: a scale with nothing to fit keeps its values."""
    try:
        return load_profile(out) if out.exists() else None
    except Exception:
        return None


async def run(folders: Sequence[Path], oos_recall: float, out: Path) -> CalibrationProfile:
    base = _current(out)
    profile = await calibrate(folders, oos_recall, base)
    save_profile(profile, out)
    return profile
