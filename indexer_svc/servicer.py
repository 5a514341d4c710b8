"""IndexerService over gRPC: proto ⇄ catalogue calls. Domain errors are raised; the
server's interceptor (services.runtime.interceptors) turns them into statuses."""

from __future__ import annotations

import grpc

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from indexer_svc.catalogue import Catalogue, Kind, Role, SearchHit, SearchResult
from indexer_svc.proto_mapping import document_message, endpoint_message, message_to_body, service_message
from indexer_svc.validation import Endpoint, KnowledgeDocument, Service
from services.errors import InvalidArgument
from services.runtime.owner import current_owner

_KINDS: dict[int, Kind] = {
    indexer_pb2.COLLECTION_ENDPOINTS: "endpoint",
    indexer_pb2.COLLECTION_SERVICES: "service",
    indexer_pb2.COLLECTION_KNOWLEDGE: "knowledge",
}
_ROLES: dict[int, Role] = {
    indexer_pb2.EMBEDDING_ROLE_QUERY: "query",
    indexer_pb2.EMBEDDING_ROLE_PASSAGE: "passage",
}


def _hit_message(hit: SearchHit) -> indexer_pb2.SearchHit:
    message = indexer_pb2.SearchHit(
        id=hit.id,
        dense_cosine=hit.dense_cosine,
        hybrid_rank=hit.hybrid_rank,
        hybrid_score=hit.hybrid_score,
        matched_terms=hit.matched_terms,
        prototype_cosine=hit.prototype_cosine,
        description_cosine=hit.description_cosine,
        has_prototype=hit.has_prototype,
    )
    if isinstance(hit.entity, Endpoint):
        message.endpoint.CopyFrom(endpoint_message(hit.entity))
    elif isinstance(hit.entity, Service):
        message.service.CopyFrom(service_message(hit.entity))
    elif isinstance(hit.entity, KnowledgeDocument):
        message.document.CopyFrom(document_message(hit.entity))
    return message


def search_response(result: SearchResult) -> indexer_pb2.SearchResponse:
    return indexer_pb2.SearchResponse(
        hits=[_hit_message(hit) for hit in result.hits],
        query_embedding=result.query_embedding,
        query_terms=result.query_terms,
        embedding_model=result.embedding_model,
    )


class IndexerServicer(indexer_pb2_grpc.IndexerServiceServicer):
    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue

    # --- endpoints ------------------------------------------------------------------

    async def IndexEndpoint(
        self, request: indexer_pb2.IndexEndpointRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.IndexEndpointResponse:
        indexed = await self._catalogue.index_endpoint(
            message_to_body(request.endpoint), skip_enrichment=request.skip_enrichment
        )
        return indexer_pb2.IndexEndpointResponse(
            endpoint=endpoint_message(indexed.entity),
            replaced=indexed.replaced,
            embed_text=indexed.embed_text,
        )

    async def DeleteEndpoint(
        self, request: indexer_pb2.DeleteEndpointRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.DeleteEndpointResponse:
        deleted = await self._catalogue.delete("endpoint", request.endpoint_id)
        return indexer_pb2.DeleteEndpointResponse(deleted=deleted)

    async def GetEndpoint(
        self, request: indexer_pb2.GetEndpointRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.GetEndpointResponse:
        endpoint = await self._catalogue.get("endpoint", request.endpoint_id)
        return indexer_pb2.GetEndpointResponse(endpoint=endpoint_message(endpoint))

    async def ListEndpoints(
        self, request: indexer_pb2.ListEndpointsRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.ListEndpointsResponse:
        listing = await self._catalogue.list_page(
            "endpoint",
            page_size=request.page_size,
            page_token=request.page_token,
            service_id=request.service_id,
        )
        return indexer_pb2.ListEndpointsResponse(
            endpoints=[endpoint_message(e) for e in listing.items], next_page_token=listing.next_page_token
        )

    # --- services -------------------------------------------------------------------

    async def IndexService(
        self, request: indexer_pb2.IndexServiceRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.IndexServiceResponse:
        indexed = await self._catalogue.index_service(
            message_to_body(request.service), skip_enrichment=request.skip_enrichment
        )
        return indexer_pb2.IndexServiceResponse(
            service=service_message(indexed.entity), replaced=indexed.replaced, embed_text=indexed.embed_text
        )

    async def DeleteService(
        self, request: indexer_pb2.DeleteServiceRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.DeleteServiceResponse:
        deleted = await self._catalogue.delete("service", request.service_id)
        return indexer_pb2.DeleteServiceResponse(deleted=deleted)

    async def GetService(
        self, request: indexer_pb2.GetServiceRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.GetServiceResponse:
        service = await self._catalogue.get("service", request.service_id)
        return indexer_pb2.GetServiceResponse(service=service_message(service))

    async def ListServices(
        self, request: indexer_pb2.ListServicesRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.ListServicesResponse:
        listing = await self._catalogue.list_page(
            "service", page_size=request.page_size, page_token=request.page_token
        )
        return indexer_pb2.ListServicesResponse(
            services=[service_message(s) for s in listing.items], next_page_token=listing.next_page_token
        )

    # --- knowledge documents --------------------------------------------------------

    async def IndexKnowledgeDocument(
        self, request: indexer_pb2.IndexKnowledgeDocumentRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.IndexKnowledgeDocumentResponse:
        indexed = await self._catalogue.index_knowledge_document(message_to_body(request.document))
        return indexer_pb2.IndexKnowledgeDocumentResponse(
            document=document_message(indexed.entity), replaced=indexed.replaced
        )

    async def DeleteKnowledgeDocument(
        self, request: indexer_pb2.DeleteKnowledgeDocumentRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.DeleteKnowledgeDocumentResponse:
        deleted = await self._catalogue.delete("knowledge", request.document_id)
        return indexer_pb2.DeleteKnowledgeDocumentResponse(deleted=deleted)

    async def GetKnowledgeDocument(
        self, request: indexer_pb2.GetKnowledgeDocumentRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.GetKnowledgeDocumentResponse:
        document = await self._catalogue.get("knowledge", request.document_id)
        return indexer_pb2.GetKnowledgeDocumentResponse(document=document_message(document))

    async def ListKnowledgeDocuments(
        self, request: indexer_pb2.ListKnowledgeDocumentsRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.ListKnowledgeDocumentsResponse:
        listing = await self._catalogue.list_page(
            "knowledge", page_size=request.page_size, page_token=request.page_token
        )
        return indexer_pb2.ListKnowledgeDocumentsResponse(
            documents=[document_message(d) for d in listing.items], next_page_token=listing.next_page_token
        )

    # --- search and embeddings ------------------------------------------------------

    async def Search(
        self, request: indexer_pb2.SearchRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.SearchResponse:
        kind = _KINDS.get(request.collection)
        if kind is None:
            raise InvalidArgument("collection must be ENDPOINTS, SERVICES or KNOWLEDGE", field="collection")
        result = await self._catalogue.search(
            kind,
            query=request.query,
            query_embedding=list(request.query_embedding),
            limit=request.limit,
            service_id=request.service_id,
            # Private endpoints only for a signed-in owner (verified: services.runtime.trust).
            include_private=(current_owner.get() or "").startswith("user:"),
        )
        return search_response(result)

    async def Embed(
        self, request: indexer_pb2.EmbedRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.EmbedResponse:
        role = _ROLES.get(request.role)
        if role is None:
            raise InvalidArgument("role must be QUERY or PASSAGE", field="role")
        if not request.texts:
            raise InvalidArgument("texts must not be empty", field="texts")
        vectors = await self._catalogue.embed(list(request.texts), role)
        return indexer_pb2.EmbedResponse(
            embeddings=[indexer_pb2.Embedding(values=v) for v in vectors],
            model=self._catalogue.embedding_model,
        )
