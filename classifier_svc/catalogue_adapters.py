"""gRPC-backed searches of the services and knowledge collections.

A service is handed on as an Endpoint with type "service" (POST to its URL, its
entities as parameters): the loop collects the entities exactly like endpoint
parameters, and caller_svc sends the Bürokratt service body for that type.
"""

from __future__ import annotations

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from classifier_svc.candidates import Candidate
from classifier_svc.deadlines import lookup_timeout
from classifier_svc.passages import Passage
from classifier_svc.query_vectors import QueryVectors

SERVICE_TYPE = "service"


def service_as_endpoint(service: catalogue_pb2.Service) -> catalogue_pb2.Endpoint:
    return catalogue_pb2.Endpoint(
        endpoint_id=service.service_id,
        service_id=service.service_id,
        name=service.name,
        description=service.description,
        method="POST",
        url=service.url,
        type=SERVICE_TYPE,
        params=service.params,
        enriched_context=service.enriched_context,
        examples=service.examples,
        # A service's answer is about the user's own case: never served from a cache.
        cacheable=False,
    )


class IndexerServiceSearch:
    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        timeout: float,
        vectors: QueryVectors | None = None,
    ) -> None:
        self._stub = stub
        self._timeout = timeout
        self._vectors = vectors if vectors is not None else QueryVectors()

    async def search(self, query: str, limit: int) -> list[Candidate]:
        response = await self._stub.Search(
            indexer_pb2.SearchRequest(
                collection=indexer_pb2.COLLECTION_SERVICES,
                query=query,
                limit=limit,
                query_embedding=self._vectors.get(query),
            ),
            timeout=lookup_timeout(self._timeout),
        )
        self._vectors.remember(query, response.query_embedding)
        return [
            Candidate(
                endpoint_id=hit.service.service_id,
                name=hit.service.name,
                # The service gate and its knowledge-base rivalry are calibrated on the
                # description (passage-side) scale, the scale knowledge passages live on;
                # an example prototype scores on the query side, higher for everything.
                dense_cosine=hit.description_cosine or hit.dense_cosine,
                prototype_cosine=hit.prototype_cosine,
                description_cosine=hit.description_cosine,
                has_prototype=hit.has_prototype,
                hybrid_rank=hit.hybrid_rank,
                matched_terms=hit.matched_terms,
                query_terms=response.query_terms,
                endpoint=service_as_endpoint(hit.service),
            )
            for hit in response.hits
            if hit.WhichOneof("item") == "service"
        ]


class IndexerKnowledgeSearch:
    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        timeout: float,
        vectors: QueryVectors | None = None,
    ) -> None:
        self._stub = stub
        self._timeout = timeout
        self._vectors = vectors if vectors is not None else QueryVectors()

    async def search(self, query: str, limit: int) -> list[Passage]:
        response = await self._stub.Search(
            indexer_pb2.SearchRequest(
                collection=indexer_pb2.COLLECTION_KNOWLEDGE,
                query=query,
                limit=limit,
                query_embedding=self._vectors.get(query),
            ),
            timeout=lookup_timeout(self._timeout),
        )
        self._vectors.remember(query, response.query_embedding)
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
            )
            for hit in response.hits
            if hit.WhichOneof("item") == "document"
        ]
