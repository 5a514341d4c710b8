"""The knowledge store behind `atc ingest`: indexer_svc over gRPC."""

from __future__ import annotations

import grpc

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from indexer_svc.knowledge.chunking import Chunk
from indexer_svc.knowledge.ingest import stored_chunk_hash


def document_message(chunk: Chunk) -> catalogue_pb2.KnowledgeDocument:
    return catalogue_pb2.KnowledgeDocument(
        document_id=chunk.document_id,
        title=chunk.title,
        section=chunk.section,
        text=chunk.text,
        source_url=chunk.source_url,
        language=chunk.language,
        keywords=chunk.keywords,
    )


class IndexerKnowledgeStore:
    def __init__(self, stub: indexer_pb2_grpc.IndexerServiceStub, timeout: float) -> None:
        self._stub = stub
        self._timeout = timeout

    async def stored_hash(self, document_id: str) -> str | None:
        try:
            response = await self._stub.GetKnowledgeDocument(
                indexer_pb2.GetKnowledgeDocumentRequest(document_id=document_id), timeout=self._timeout
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise
        d = response.document
        return stored_chunk_hash(d)

    async def put(self, chunk: Chunk) -> None:
        await self._stub.IndexKnowledgeDocument(
            indexer_pb2.IndexKnowledgeDocumentRequest(document=document_message(chunk)), timeout=self._timeout
        )

    async def delete(self, document_id: str) -> bool:
        response = await self._stub.DeleteKnowledgeDocument(
            indexer_pb2.DeleteKnowledgeDocumentRequest(document_id=document_id), timeout=self._timeout
        )
        return response.deleted
