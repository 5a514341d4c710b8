"""gRPC-backed implementations of the router's ports (indexer search, loop sessions)."""

from __future__ import annotations

import logging

import grpc

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from classifier_svc.candidates import ActiveSession, Candidate
from services import language
from services.runtime.status import mesh_error_from_rpc


class IndexerEndpointSearch:
    def __init__(self, stub: indexer_pb2_grpc.IndexerServiceStub, timeout: float) -> None:
        self._stub = stub
        self._timeout = timeout

    async def search(self, query: str, limit: int) -> list[Candidate]:
        response = await self._stub.Search(
            indexer_pb2.SearchRequest(collection=indexer_pb2.COLLECTION_ENDPOINTS, query=query, limit=limit),
            timeout=self._timeout,
        )
        return [
            Candidate(
                endpoint_id=hit.endpoint.endpoint_id,
                name=hit.endpoint.name,
                dense_cosine=hit.dense_cosine,
                hybrid_rank=hit.hybrid_rank,
                matched_terms=hit.matched_terms,
                query_terms=response.query_terms,
                endpoint=hit.endpoint,
            )
            for hit in response.hits
            if hit.WhichOneof("item") == "endpoint"
        ]


log = logging.getLogger("atc.classifier.sessions")


class LoopSessionDirectory:
    def __init__(self, stub: loop_pb2_grpc.LoopServiceStub, timeout: float) -> None:
        self._stub = stub
        self._timeout = timeout

    async def active_session(self, chat_id: str, owner_id: str = "") -> ActiveSession | None:
        try:
            response = await self._stub.GetSession(
                loop_pb2.GetSessionRequest(chat_id=chat_id, owner_id=owner_id), timeout=self._timeout
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                return None
            if exc.code() == grpc.StatusCode.PERMISSION_DENIED:
                raise mesh_error_from_rpc(exc) from exc
            if exc.code() == grpc.StatusCode.UNAVAILABLE:
                # Sessions unreachable (Redis down): route as a fresh turn, so greetings and
                # out-of-domain replies still work; an API turn then fails in the loop, politely.
                log.warning("session lookup unavailable: %s", exc.details())
                return None
            raise
        session = response.session
        return ActiveSession(
            chat_id=session.chat_id,
            endpoint_names=tuple(e.name for e in session.endpoints),
            language=language.from_proto(session.language),
            is_service=bool(session.endpoints) and all(e.type == "service" for e in session.endpoints),
        )

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        await self._stub.DeleteSession(
            loop_pb2.DeleteSessionRequest(chat_id=chat_id, owner_id=owner_id), timeout=self._timeout
        )
