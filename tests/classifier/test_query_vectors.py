"""One embedding per text across the classifier's searches: the vector the indexer
returned for a text is sent back with the next search of that text, whatever the
collection."""

from __future__ import annotations

from atc.indexer.v1 import indexer_pb2
from classifier_svc.catalogue_adapters import IndexerKnowledgeSearch, IndexerServiceSearch
from classifier_svc.query_vectors import QueryVectors


class Indexer:
    """Search as the indexer answers it: embeds when no vector comes with the request."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    async def Search(self, request: indexer_pb2.SearchRequest, timeout: float) -> indexer_pb2.SearchResponse:
        if not request.query_embedding:
            self.embedded.append(request.query)
        return indexer_pb2.SearchResponse(query_embedding=[0.6, 0.8], query_terms=2)


async def test_a_text_is_embedded_once_across_collections() -> None:
    indexer, vectors = Indexer(), QueryVectors()
    services = IndexerServiceSearch(indexer, 5.0, vectors)  # type: ignore[arg-type]
    knowledge = IndexerKnowledgeSearch(indexer, 5.0, vectors)  # type: ignore[arg-type]
    await services.search("How do I renew my ID card?", 5)
    await knowledge.search("How do I renew my ID card?", 5)
    await knowledge.search("How do I renew my ID card?", 8)
    await knowledge.search("Kuidas registreerida elukoht?", 5)
    assert indexer.embedded == ["How do I renew my ID card?", "Kuidas registreerida elukoht?"]


def test_the_oldest_text_is_forgotten_first() -> None:
    vectors = QueryVectors(size=2)
    vectors.remember("a", [1.0])
    vectors.remember("b", [2.0])
    vectors.get("a")
    vectors.remember("a", [1.0])
    vectors.remember("c", [3.0])
    assert (
        list(vectors.get("b")) == [] and list(vectors.get("a")) == [1.0] and list(vectors.get("c")) == [3.0]
    )
    vectors.remember("d", [])
    assert list(vectors.get("d")) == []
