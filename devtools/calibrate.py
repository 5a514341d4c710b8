"""`atc calibrate`: fit the classifier's calibration profile on evaluation folders.

    atc calibrate --catalog ../shared/eval/clinc_dev --catalog ../shared/eval/sgd_dev \
        --catalog devtools/demo_apis --cases tests/data/routing_cases_en.jsonl ... \
        [--oos-recall 0.7] [--out classifier_svc/calibration_profile.json]

A folder holds its catalogue (`endpoints.json`, or the demo's `catalogue.json`) and its
cases (`routing_cases.jsonl`, or the `--cases` files given after it: routing cases, or a
knowledge-question file like tests/data/rag_questions.json, whose questions are out of
scope for an API catalogue). Each folder's catalogue is indexed through the real indexer
code and every case searched once. Cases whose best candidate has an example prototype
fit the `prototype` scale, the others the `description` scale. A scale no folder has
cases for keeps the current profile's values.

Rejection is fitted on far more negatives than a folder's own out-of-scope cases: the
in-scope queries of every OTHER folder are out of scope for this folder's catalogue
(SGD's for CLINC's and the other way round), and so are the curated negatives of
devtools/calibration_negatives.jsonl (et/en/ru questions on topics no API catalogue here
serves: astronomy, pets, programming, …) — except those of a domain the catalogue has
too. A foreign endpoint's domain is shared when most of its examples are accepted here
as one endpoint (or, without examples, when its description is accepted); a curated
topic when its name is. Every negative, own or foreign, is put by a hash of its text
either into the fit or into a held-out half that the fit never sees; the profile's
metrics report OOS recall on that held-out half, by source and by folder, so what is
reported is rejection that transfers to negatives not used for fitting.

The weak-match rule (classifier_svc/router.py: an accepted match with little evidence
and no shared word asks to confirm instead of opening a session) is fitted with the
acceptance thresholds (classifier_svc/calibration_fit.py): its evidence limit per scale
and the question length it applies from.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from classifier_svc.api_matcher import assess, rank
from classifier_svc.calibration import (
    CalibrationProfile,
    GuardThresholds,
    ScoreThresholds,
    WeakMatchThresholds,
    load_profile,
    save_profile,
)
from classifier_svc.calibration_fit import Fit, ScoredCase, WeakRule, fit_thresholds, fit_with_weak_match
from classifier_svc.candidates import Candidate
from devtools.routing_harness import Case, CatalogueSearch, indexed_catalogue, load_cases, load_endpoints
from indexer_svc.catalogue_file import read_catalogue_file

SEARCH_LIMIT = 10
# Description weights tried for the prototype scale (0 = prototype alone).
DESCRIPTION_WEIGHTS = (0.0, 0.2, 0.35, 0.5)
# Weights of the sparse evidence (share of the query's words in the endpoint's text).
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.04)
CURATED_NEGATIVES = Path(__file__).with_name("calibration_negatives.jsonl")


# Foreign negatives searched per folder, at most (spread by hash over the other folders).
MAX_FOREIGN = 3000


@dataclass(frozen=True)
class Folder:
    """One catalogue with the cases written for it."""

    path: Path
    endpoints: list[dict[str, Any]]
    # First-turn cases (or ones naming their intent): what a message alone should route to.
    cases: list[Case]
    case_files: tuple[Path, ...] = ()

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def spec(self) -> str:
        return " ".join([f"--catalog {self.path}", *(f"--cases {f}" for f in self.case_files)])


@dataclass(frozen=True)
class Negative:
    """A message out of scope for catalogues that lack its domain: `endpoint` names the
    foreign endpoint it was written for, `topic` a curated negative's topic."""

    query: str
    endpoint: str = ""
    topic: str = ""


def missing_files(path: Path, case_files: Sequence[Path] = ()) -> str:
    """What a calibration folder lacks, or "" when it is complete."""
    if not (path / "endpoints.json").is_file() and not (path / "catalogue.json").is_file():
        return f"{path} needs endpoints.json (or catalogue.json)"
    if not case_files and not (path / "routing_cases.jsonl").is_file():
        return f"{path} needs routing_cases.jsonl (or --cases FILE after it)"
    absent = [str(f) for f in case_files if not f.is_file()]
    return f"no such case file: {', '.join(absent)}" if absent else ""


def load_folder(path: Path, case_files: Sequence[Path] = ()) -> Folder:
    if (path / "endpoints.json").is_file():
        endpoints = load_endpoints(path)
    else:  # the demo catalogue: URLs hold "{base_url}"
        endpoints = read_catalogue_file(path / "catalogue.json", "http://127.0.0.1:9")
    files = list(case_files) or [path / "routing_cases.jsonl"]
    cases = [c for f in files for c in _read_cases(f) if not c.history or c.explicit_intent]
    return Folder(path, endpoints, cases, tuple(case_files))


def _read_cases(path: Path) -> list[Case]:
    """Routing cases (.jsonl), or a knowledge-question file ({"questions": [{"question",
    "lang"}]}): questions for the knowledge base, out of scope for the API catalogue."""
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return [
            Case(f"{path.stem}:{i}", q["question"], None, language=q.get("lang"))
            for i, q in enumerate(data.get("questions", []))
        ]
    return load_cases(path)


def curated_negatives(path: Path = CURATED_NEGATIVES) -> list[Negative]:
    return [
        Negative(row["query"], topic=row["topic"])
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    ]


@dataclass(frozen=True)
class Searched:
    candidates: list[Candidate]
    expected: str | None
    siblings: tuple[str, ...]
    # Negatives only: "own" (the folder's OOS case), "foreign" (another folder's query) or
    # "curated"; and whether it is held out of the fit.
    source: str = "own"
    held_out: bool = False
    folder: str = ""
    query: str = ""
    # A negative's foreign endpoint or curated topic (for reports).
    origin: str = ""

    @property
    def foreign(self) -> bool:
        return self.source != "own"


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


async def search_folder(
    folder: Folder,
    foreign: Sequence[Negative],
    foreign_endpoints: Sequence[dict[str, Any]],
    base: CalibrationProfile | None,
    holdout_share: float,
) -> tuple[list[Searched], str]:
    """Every case searched once, plus the negatives of domains this catalogue does not
    have (`foreign`: other folders' queries and the curated ones), and the index's model."""
    out = []
    async with indexed_catalogue(folder.endpoints) as search:
        for case in folder.cases:
            candidates = await search.search(case.query, SEARCH_LIMIT)
            out.append(
                Searched(
                    candidates,
                    case.expected,
                    case.siblings,
                    held_out=case.expected is None and held_out(case.query, holdout_share),
                    folder=folder.name,
                    query=case.query,
                )
            )
        shared: set[str] = set()
        if base is not None:
            shared = await _shared_domains(search, foreign_endpoints, base)
            topics = {n.topic for n in foreign if n.topic}
            shared |= {t for t in topics if await _accepted(search, t, base)}
        kept = [n for n in foreign if (n.topic or n.endpoint) not in shared]
        kept.sort(key=lambda n: _hash(n.query))
        for negative in kept[:MAX_FOREIGN]:
            candidates = await search.search(negative.query, SEARCH_LIMIT)
            out.append(
                Searched(
                    candidates,
                    None,
                    (),
                    source="curated" if negative.topic else "foreign",
                    held_out=held_out(negative.query, holdout_share),
                    folder=folder.name,
                    query=negative.query,
                    origin=negative.topic or negative.endpoint,
                )
            )
        model = search.model
    return out, model


async def _accepted(search: CatalogueSearch, text: str, profile: CalibrationProfile) -> bool:
    return assess(await search.search(text, SEARCH_LIMIT), profile).best is not None


async def _shared_domains(
    search: CatalogueSearch, endpoints: Sequence[dict[str, Any]], profile: CalibrationProfile
) -> set[str]:
    """Other folders' endpoints whose domain this catalogue has too: their queries are in
    scope here and are no negatives. With examples, most of them must be accepted here as
    one and the same endpoint (a domain both have maps onto one endpoint; a false accept
    scatters); without, the description must be accepted. A boilerplate description
    ("Handle requests about: balance") resembles every short description alike, so
    examples, when there are any, are the better witness."""
    shared = set()
    for endpoint in endpoints:
        examples = [e for e in endpoint.get("examples") or () if e]
        if not examples:
            if await _accepted(search, endpoint["description"], profile):
                shared.add(endpoint["name"])
            continue
        chosen: Counter[str] = Counter()
        for example in examples:
            best = assess(await search.search(example, SEARCH_LIMIT), profile).best
            if best is not None:
                chosen[best.name] += 1
        if chosen and chosen.most_common(1)[0][1] * 2 > len(examples):
            shared.add(endpoint["name"])
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
        out[kind].append(
            ScoredCase(
                best.score,
                gap,
                right,
                case.expected is None,
                best.candidate.matched_terms,
                best.candidate.query_terms,
                case.folder,
            )
        )
    return out


@dataclass
class _Fits:
    fits: dict[str, Fit] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


async def calibrate(
    folders: Sequence[Folder],
    oos_recall: float,
    base: CalibrationProfile | None,
    *,
    holdout_share: float = 0.5,
    curated: Sequence[Negative] = (),
) -> CalibrationProfile:
    # Each folder's in-scope queries and OOS queries become the others' negatives.
    negatives = {
        folder.name: [Negative(c.query, c.expected or "") for c in folder.cases] for folder in folders
    }
    searched: list[Searched] = []
    model = ""
    for folder in folders:
        others = [f for f in folders if f.name != folder.name]
        foreign = [n for f in others for n in negatives[f.name]] + list(curated)
        foreign_endpoints = [e for f in others for e in f.endpoints]
        found, model = await search_folder(folder, foreign, foreign_endpoints, base, holdout_share)
        searched.extend(found)
    return fit_profile(searched, folders, oos_recall, base, model)


def fit_profile(
    searched: Sequence[Searched],
    folders: Sequence[Folder],
    oos_recall: float,
    base: CalibrationProfile | None,
    model: str,
) -> CalibrationProfile:
    """The profile fitted on searched cases (see `calibrate`)."""
    # First the score weights and thresholds, then the weak-match rule with them.
    first = _Fits()
    for weight, coverage in itertools.product(DESCRIPTION_WEIGHTS, COVERAGE_WEIGHTS):
        for kind, cases in scored_cases(searched, weight, coverage).items():
            if not (any(c.out_of_scope for c in cases) and any(not c.out_of_scope for c in cases)):
                continue
            fit = _with_weights(fit_thresholds(cases, oos_recall), kind, weight, coverage)
            if kind not in first.fits or fit.in_scope_accuracy > first.fits[kind].in_scope_accuracy:
                first.fits[kind] = fit
                first.counts[kind] = len(cases)
    fits: dict[str, Fit] = {}
    for kind, fit in first.fits.items():
        weight, coverage = fit.thresholds.description_weight, fit.thresholds.coverage_weight
        cases = scored_cases(searched, weight, coverage)[kind]
        fits[kind] = _with_weights(fit_with_weak_match(cases, oos_recall), kind, weight, coverage)
    thresholds: dict[str, ScoreThresholds] = {}
    metrics: dict[str, float] = {}
    for kind in ("prototype", "description"):
        if kind in fits:
            fit = fits[kind]
            thresholds[kind] = fit.thresholds
            metrics[f"{kind}_in_scope_accuracy"] = round(fit.in_scope_accuracy, 4)
            metrics[f"{kind}_oos_recall"] = round(fit.oos_recall, 4)
            metrics[f"{kind}_cases"] = float(first.counts[kind])
            metrics[f"{kind}_thresholds_only_in_scope_accuracy"] = round(
                first.fits[kind].in_scope_accuracy, 4
            )
            metrics[f"{kind}_weak_fired"] = float(fit.weak_fired)
            metrics[f"{kind}_weak_precision"] = round(fit.weak_precision, 4)
            metrics.update(_held_out_recall(kind, fit, searched))
        elif base is not None:
            thresholds[kind] = getattr(base, kind)
        else:
            raise SystemExit(
                f"no in-scope and out-of-scope cases for the {kind} scale and no profile to keep it from"
            )
    weak = _weak_thresholds(fits, base)
    for folder in folders:
        metrics.update(_folder_held_out_recall(folder.name, searched, thresholds, weak))
    names = " ".join(f.spec for f in folders)
    profile = CalibrationProfile(
        embedding_model=model,
        source=f"atc calibrate {names} --oos-recall {oos_recall} ({dt.date.today().isoformat()})",
        prototype=thresholds["prototype"],
        description=thresholds["description"],
        switch_margin=base.switch_margin if base is not None else 0.02,
        guard=base.guard if base is not None else GuardThresholds(),
        weak_match=weak,
        metrics=metrics,
    )
    if base is None:
        return profile
    # Not fitted here (bench/eval_rag.py --sweep measures the gates): kept from the base.
    return profile.model_copy(
        update={
            "service": base.service,
            "knowledge": base.knowledge,
            "follow_up_override_cosine": base.follow_up_override_cosine,
        }
    )


def _with_weights(fit: Fit, kind: str, weight: float, coverage: float) -> Fit:
    update: dict[str, float] = {"coverage_weight": coverage}
    if kind == "prototype":
        update["description_weight"] = weight
    return Fit(
        fit.thresholds.model_copy(update=update),
        fit.in_scope_accuracy,
        fit.oos_recall,
        fit.weak,
        fit.weak_precision,
        fit.weak_fired,
    )


def _weak_thresholds(fits: dict[str, Fit], base: CalibrationProfile | None) -> WeakMatchThresholds:
    """The fitted weak-match rule: an evidence limit per scale; the question length it
    applies from is the prototype scale's (the one with most cases) or else the other's."""
    kept = base.weak_match if base is not None else WeakMatchThresholds()
    prototype, description = fits.get("prototype"), fits.get("description")
    rule = prototype.weak if prototype is not None else description.weak if description is not None else None
    return WeakMatchThresholds(
        evidence=prototype.weak.evidence if prototype is not None else kept.evidence,
        description_evidence=description.weak.evidence
        if description is not None
        else kept.description_evidence,
        min_words=1,
        min_question_words=rule.min_question_words if rule is not None else kept.min_question_words,
    )


def _rejected(case: ScoredCase, thresholds: ScoreThresholds, weak: WeakRule | None) -> bool:
    value = case.score + thresholds.gap_weight * case.gap
    if weak is not None and weak.applies(case):
        value -= weak.evidence
    return value < thresholds.accept


def _held_out_recall(kind: str, fit: Fit, searched: Sequence[Searched]) -> dict[str, float]:
    """OOS recall of the fitted thresholds on the negatives the fit never saw, by source:
    rejected by the thresholds alone, and rejected or held back as weak matches (which
    the router asks to confirm instead of calling)."""
    out: dict[str, float] = {}
    thresholds = fit.thresholds
    for label, keep in (
        ("", lambda s: True),
        ("own_", lambda s: s.source == "own"),
        ("foreign_", lambda s: s.source == "foreign"),
        ("curated_", lambda s: s.source == "curated"),
    ):
        chosen = [s for s in searched if s.held_out and keep(s)]
        cases = scored_cases(chosen, thresholds.description_weight, thresholds.coverage_weight, fit=False)[
            kind
        ]
        if not cases:
            continue
        rejected = sum(1 for c in cases if _rejected(c, thresholds, None))
        confirmed = sum(1 for c in cases if _rejected(c, thresholds, fit.weak))
        out[f"{kind}_heldout_{label}oos_recall"] = round(rejected / len(cases), 4)
        out[f"{kind}_heldout_{label}oos_recall_with_confirmations"] = round(confirmed / len(cases), 4)
        out[f"{kind}_heldout_{label}oos_cases"] = float(len(cases))
    return out


def _folder_held_out_recall(
    folder: str,
    searched: Sequence[Searched],
    thresholds: dict[str, ScoreThresholds],
    weak: WeakMatchThresholds,
) -> dict[str, float]:
    """A folder's held-out negatives (both scales), rejected or held back as weak by the
    fitted profile: what its catalogue would refuse or confirm among messages the fit
    never saw."""
    chosen = [s for s in searched if s.held_out and s.folder == folder]
    total = rejected = 0
    for kind in ("prototype", "description"):
        t = thresholds[kind]
        rule = WeakRule(
            weak.evidence if kind == "prototype" else weak.description_evidence, weak.min_question_words
        )
        for case in scored_cases(chosen, t.description_weight, t.coverage_weight, fit=False)[kind]:
            total += 1
            rejected += _rejected(case, t, rule)
    if not total:
        return {}
    return {
        f"{folder}_heldout_oos_recall": round(rejected / total, 4),
        f"{folder}_heldout_oos_cases": float(total),
    }


def _current(out: Path) -> CalibrationProfile | None:
    """The profile being replaced: a scale with nothing to fit keeps its values."""
    try:
        return load_profile(out) if out.exists() else None
    except Exception:
        return None


async def guard_thresholds(
    folders: Sequence[Folder], holdout_share: float = 0.5
) -> tuple[GuardThresholds, dict[str, float]]:
    """The guard's embedding thresholds, fitted on each folder's catalogue and in-scope
    queries (devtools/guard_calibration.py), with what the fit measured."""
    from devtools.guard_calibration import fit_guard
    from devtools.routing_harness import cached_embedder

    catalogues = []
    for folder in folders:
        benign = [t for e in folder.endpoints for t in (e.get("examples") or [e["description"]])]
        queries = sorted({c.query for c in folder.cases if c.expected is not None}, key=_hash)[:MAX_FOREIGN]
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
    folders: Sequence[Folder], oos_recall: float, out: Path, *, guard: bool = True, curated: bool = True
) -> CalibrationProfile:
    base = _current(out)
    profile = await calibrate(folders, oos_recall, base, curated=curated_negatives() if curated else ())
    if guard:
        thresholds, metrics = await guard_thresholds(folders)
        profile = profile.model_copy(update={"guard": thresholds, "metrics": {**profile.metrics, **metrics}})
    save_profile(profile, out)
    return profile
