"""`atc calibrate`: fit the classifier's calibration profile on evaluation folders.

    atc calibrate --catalog ../shared/eval/clinc_dev --catalog ../shared/eval/sgd_dev \
        [--oos-recall 0.7] [--out classifier_svc/calibration_profile.json]

Each folder's catalogue is indexed through the real indexer code and every case searched
once. Cases whose best candidate has an example prototype fit the `prototype` scale, the
others the `description` scale. A scale no folder has cases for keeps the current
profile's values.

Rejection is fitted on far more negatives than a folder's own out-of-scope cases: the
in-scope queries of every OTHER folder are out of scope for this folder's catalogue
(SGD's for CLINC's and the other way round), except those of a domain the catalogue
has too — an other folder's endpoint whose description this catalogue accepts as a
match (CLINC's weather, SGD's Weather_1) gives no negatives. Every negative, own or
foreign, is put by a hash of its text either into the fit or into a held-out half that
the fit never sees; the profile's metrics report OOS recall on that held-out half, by
source (`*_heldout_oos_recall`, `*_heldout_own_oos_recall`), so what is reported is
rejection that transfers to negatives not used for fitting.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from classifier_svc.api_matcher import assess, rank
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
from devtools.routing_harness import Case, CatalogueSearch, indexed_catalogue, load_cases, load_endpoints

SEARCH_LIMIT = 10
# Description weights tried for the prototype scale (0 = prototype alone).
DESCRIPTION_WEIGHTS = (0.0, 0.2, 0.35, 0.5)
# Weights of the sparse evidence (share of the query's words in the endpoint's text).
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.04)


# Foreign negatives searched per folder, at most (spread by hash over the other folders).
MAX_FOREIGN = 3000


@dataclass(frozen=True)
class Searched:
    candidates: list[Candidate]
    expected: str | None
    siblings: tuple[str, ...]
    # Negatives only: from another folder's catalogue (else the folder's own OOS case),
    # and whether it is held out of the fit.
    foreign: bool = False
    held_out: bool = False


def _hash(text: str) -> int:
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)


def held_out(query: str, share: float) -> bool:
    """Deterministically, `share` of all texts are held out of the fit."""
    return (_hash(query) % 1000) < share * 1000


def _raw_profile(description_weight: float, coverage_weight: float) -> CalibrationProfile:
    """Thresholds 0: margins equal scores, so ranking is by the raw scale scores."""
    return CalibrationProfile(
        embedding_model="raw",
        prototype=ScoreThresholds(
            accept=0.0, gap_weight=0.0, description_weight=description_weight, coverage_weight=coverage_weight
        ),
        description=ScoreThresholds(accept=0.0, gap_weight=0.0, coverage_weight=coverage_weight),
    )


def _own_cases(folder: Path) -> list[Case]:
    return [c for c in load_cases(folder / "routing_cases.jsonl") if not c.history or c.explicit_intent]


async def search_folder(
    folder: Path,
    foreign: Sequence[tuple[str, str]],
    foreign_descriptions: dict[str, str],
    base: CalibrationProfile | None,
    holdout_share: float,
) -> tuple[list[Searched], str]:
    """Every case searched once, plus the foreign negatives of domains this catalogue does
    not have (`foreign`: (query, the endpoint it was written for)), and the index's model."""
    out = []
    async with indexed_catalogue(load_endpoints(folder)) as search:
        for case in _own_cases(folder):
            candidates = await search.search(case.query, SEARCH_LIMIT)
            out.append(
                Searched(
                    candidates,
                    case.expected,
                    case.siblings,
                    held_out=case.expected is None and held_out(case.query, holdout_share),
                )
            )
        shared = await _shared_domains(search, foreign_descriptions, base) if base is not None else set()
        kept = [(q, e) for q, e in foreign if e not in shared]
        kept.sort(key=lambda qe: _hash(qe[0]))
        for query, _ in kept[:MAX_FOREIGN]:
            candidates = await search.search(query, SEARCH_LIMIT)
            out.append(Searched(candidates, None, (), foreign=True, held_out=held_out(query, holdout_share)))
        model = search.model
    return out, model


async def _shared_domains(
    search: CatalogueSearch, descriptions: dict[str, str], profile: CalibrationProfile
) -> set[str]:
    """Other folders' endpoints whose description this catalogue accepts as a match: their
    queries are in scope here too and are no negatives."""
    shared = set()
    for name, description in descriptions.items():
        if assess(await search.search(description, SEARCH_LIMIT), profile).best is not None:
            shared.add(name)
    return shared


def scored_cases(
    searched: Sequence[Searched], description_weight: float, coverage_weight: float, *, fit: bool = True
) -> dict[str, list[ScoredCase]]:
    """Scored cases per scale ("prototype" / "description"): the fit's (held-out negatives
    left out), or with `fit=False` only the held-out negatives."""
    profile = _raw_profile(description_weight, coverage_weight)
    out: dict[str, list[ScoredCase]] = {"prototype": [], "description": []}
    for case in searched:
        if case.held_out == fit:
            continue
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
    folders: Sequence[Path], oos_recall: float, base: CalibrationProfile | None, *, holdout_share: float = 0.5
) -> CalibrationProfile:
    # Each folder's in-scope queries and OOS queries, and its endpoints' descriptions.
    queries = {
        folder: [(c.query, c.expected or "") for c in _own_cases(folder) if c.expected is not None]
        for folder in folders
    }
    oos = {folder: [c.query for c in _own_cases(folder) if c.expected is None] for folder in folders}
    descriptions = {
        folder: {e["name"]: e["description"] for e in load_endpoints(folder)} for folder in folders
    }
    searched: list[Searched] = []
    model = ""
    for folder in folders:
        others = [f for f in folders if f != folder]
        foreign = [qe for f in others for qe in queries[f]] + [(q, "") for f in others for q in oos[f]]
        foreign_descriptions = {name: d for f in others for name, d in descriptions[f].items()}
        found, model = await search_folder(folder, foreign, foreign_descriptions, base, holdout_share)
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
            metrics.update(_held_out_recall(kind, fits[kind].thresholds, searched))
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


def _held_out_recall(
    kind: str, thresholds: ScoreThresholds, searched: Sequence[Searched]
) -> dict[str, float]:
    """OOS recall of the fitted thresholds on the negatives the fit never saw, by source."""
    out: dict[str, float] = {}
    for label, keep in (
        ("", lambda s: True),
        ("own_", lambda s: not s.foreign),
        ("foreign_", lambda s: s.foreign),
    ):
        chosen = [s for s in searched if s.held_out and keep(s)]
        cases = scored_cases(chosen, thresholds.description_weight, thresholds.coverage_weight, fit=False)[
            kind
        ]
        if not cases:
            continue
        rejected = sum(1 for c in cases if c.score + thresholds.gap_weight * c.gap < thresholds.accept)
        out[f"{kind}_heldout_{label}oos_recall"] = round(rejected / len(cases), 4)
        out[f"{kind}_heldout_{label}oos_cases"] = float(len(cases))
    return out


def _current(out: Path) -> CalibrationProfile | None:
    """The profile being replaced: a scale with nothing to fit keeps its values."""
    try:
        return load_profile(out) if out.exists() else None
    except Exception:
        return None


async def guard_thresholds(
    folders: Sequence[Path], holdout_share: float = 0.5
) -> tuple[GuardThresholds, dict]:
    """The guard's embedding thresholds, fitted on each folder's catalogue and in-scope
    queries (devtools/guard_calibration.py), with what the fit measured."""
    from devtools.guard_calibration import fit_guard
    from devtools.routing_harness import cached_embedder

    catalogues = []
    for folder in folders:
        endpoints = load_endpoints(folder)
        benign = [t for e in endpoints for t in (e.get("examples") or [e["description"]])]
        queries = sorted({c.query for c in _own_cases(folder) if c.expected is not None}, key=_hash)[
            :MAX_FOREIGN
        ]
        catalogues.append((benign, queries, [held_out(q, holdout_share) for q in queries]))
    fit = await fit_guard(await cached_embedder(), catalogues)
    metrics = {
        "guard_heldout_false_refusals": round(fit.heldout_false_refusals, 4),
        "guard_harmful_recall": round(fit.harmful_recall, 4),
        "guard_benign_cases": float(fit.benign_cases),
        "guard_harmful_cases": float(fit.harmful_cases),
    }
    return fit.thresholds, metrics


async def run(
    folders: Sequence[Path], oos_recall: float, out: Path, *, guard: bool = True
) -> CalibrationProfile:
    base = _current(out)
    profile = await calibrate(folders, oos_recall, base)
    if guard:
        thresholds, metrics = await guard_thresholds(folders)
        profile = profile.model_copy(update={"guard": thresholds, "metrics": {**profile.metrics, **metrics}})
    save_profile(profile, out)
    return profile
