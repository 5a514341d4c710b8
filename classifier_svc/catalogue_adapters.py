"""gRPC-backed searches of the services and knowledge collections, and the conversions
of a SearchResponse into what the classifier's gates read (bench/eval_rag.py uses the
same conversions).

A service is handed on as an Endpoint with type "service" (POST to its URL, its
entities as parameters): the loop collects the entities exactly like endpoint
parameters, and caller_svc sends the Bürokratt service body for that type.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Generic, Literal, TypeVar

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from classifier_svc.candidates import Candidate
from classifier_svc.deadlines import lookup_timeout
from classifier_svc.passages import Passage
from classifier_svc.query_vectors import QueryVectors
from classifier_svc.rag_lexical import WordMatcher, with_lexical_evidence, with_topic_evidence
from services.catalogue import service_as_endpoint

Found = TypeVar("Found")


def catalogue_candidates(
    response: indexer_pb2.SearchResponse, item: Literal["endpoint", "service"]
) -> list[Candidate]:
    """The endpoint (or service) hits of `response` as the gates score them."""
    candidates = []
    for hit in response.hits:
        if hit.WhichOneof("item") != item:
            continue
        if item == "service":
            endpoint = service_as_endpoint(hit.service)
            # The service gate and its knowledge-base rivalry are calibrated on the
            # description (passage-side) scale, the scale knowledge passages live on;
            # an example prototype scores on the query side, higher for everything.
            dense, description = hit.description_cosine or hit.dense_cosine, hit.description_cosine
        else:
            endpoint = hit.endpoint
            dense, description = hit.dense_cosine, hit.description_cosine or hit.dense_cosine
        candidates.append(
            Candidate(
                endpoint_id=endpoint.endpoint_id,
                name=endpoint.name,
                dense_cosine=dense,
                prototype_cosine=hit.prototype_cosine,
                description_cosine=description,
                has_prototype=hit.has_prototype,
                hybrid_rank=hit.hybrid_rank,
                matched_terms=hit.matched_terms,
                query_terms=response.query_terms,
                endpoint=endpoint,
            )
        )
    return candidates


def service_candidates(response: indexer_pb2.SearchResponse) -> list[Candidate]:
    return catalogue_candidates(response, "service")


def endpoint_candidates(response: indexer_pb2.SearchResponse) -> list[Candidate]:
    return catalogue_candidates(response, "endpoint")


def knowledge_passages(response: indexer_pb2.SearchResponse) -> list[Passage]:
    return [
        Passage(
            document_id=hit.document.document_id,
            title=hit.document.title,
            section=hit.document.section,
            text=hit.document.text,
            url=hit.document.source_url,
            language=hit.document.language,
            dense_cosine=hit.dense_cosine,
            hybrid_rank=hit.hybrid_rank,
            matched_terms=hit.matched_terms,
            query_terms=response.query_terms,
            keywords=tuple(hit.document.keywords),
        )
        for hit in response.hits
        if hit.WhichOneof("item") == "document"
    ]


class CollectionSearch(ABC, Generic[Found]):
    """One collection of the indexer, searched with what is left of the turn's deadline;
    a text already embedded this turn is sent as its vector. Subclasses name the
    collection and how its hits become what the router reads."""

    collection: ClassVar[indexer_pb2.Collection]

    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        timeout: float,
        vectors: QueryVectors | None = None,
    ) -> None:
        self._stub = stub
        self._timeout = timeout
        self.vectors = vectors if vectors is not None else QueryVectors()

    @abstractmethod
    def found(self, response: indexer_pb2.SearchResponse) -> list[Found]:
        """The response's hits as what the router reads."""

    def check(self, response: indexer_pb2.SearchResponse) -> None:
        """Runs before the response's vector is remembered (e.g. the embedding model's check)."""

    async def search(self, query: str, limit: int) -> list[Found]:
        response = await self._stub.Search(
            indexer_pb2.SearchRequest(
                collection=self.collection,
                query=query,
                limit=limit,
                query_embedding=self.vectors.get(query),
            ),
            timeout=lookup_timeout(self._timeout),
        )
        self.check(response)
        self.vectors.remember(query, response.query_embedding)
        return self.found(response)


class IndexerServiceSearch(CollectionSearch[Candidate]):
    collection = indexer_pb2.COLLECTION_SERVICES

    def found(self, response: indexer_pb2.SearchResponse) -> list[Candidate]:
        return service_candidates(response)


class IndexerKnowledgeSearch(CollectionSearch[Passage]):
    collection = indexer_pb2.COLLECTION_KNOWLEDGE

    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        timeout: float,
        vectors: QueryVectors | None = None,
        matcher: WordMatcher | None = None,
    ) -> None:
        super().__init__(stub, timeout, vectors)
        self._matcher = matcher or WordMatcher()

    def found(self, response: indexer_pb2.SearchResponse) -> list[Passage]:
        return knowledge_passages(response)

    async def search(self, query: str, limit: int) -> list[Passage]:
        # Citizens' typos and missing diacritics still count as the passage's words, and the
        # page a question names by its topic is known.
        passages = with_lexical_evidence(query, await super().search(query, limit), self._matcher)
        return with_topic_evidence(query, passages, self._matcher)


class IndexerTextEmbedder:
    """Query vectors from the indexer's Embed RPC (its model, so cosines compare with the
    index's), through the turn's `QueryVectors`: the guard's embedding of a message is
    the one the searches after it reuse."""

    def __init__(
        self, stub: indexer_pb2_grpc.IndexerServiceStub, timeout: float, vectors: QueryVectors | None = None
    ) -> None:
        self._stub = stub
        self._timeout = timeout
        self.vectors = vectors if vectors is not None else QueryVectors()

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if not self.vectors.get(t)]
        found: dict[str, list[float]] = {}
        # The Embed RPC takes a batch; large ones (the catalogue's examples) go in slices.
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            response = await self._stub.Embed(
                indexer_pb2.EmbedRequest(texts=batch, role=indexer_pb2.EMBEDDING_ROLE_QUERY),
                timeout=lookup_timeout(self._timeout),
            )
            for text, embedding in zip(batch, response.embeddings, strict=True):
                found[text] = list(embedding.values)
        for text, vector in found.items():
            # Only single messages go to the turn cache; the catalogue's texts are kept by the guard.
            if len(missing) == 1:
                self.vectors.remember(text, vector)
        return [found.get(t) or list(self.vectors.get(t)) for t in texts]


EMBED_BATCH = 64
