"""Typed async clients for the mesh's gRPC services, for the edge, the services, the CLI
and tests.

Callers hand in a channel (usually from `services.runtime.channels.open_channel`)
and get protos back. A failed call raises a `services.errors.MeshError` subclass
(InvalidArgument carries the field named in the server's ErrorInfo), so callers
need no grpc imports to tell a bad request from an unavailable service.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import Literal

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pydantic import BaseModel, ConfigDict, Field

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from services.errors import NotFound, Unavailable
from services.language import Lang, to_proto
from services.runtime.owner import owner_metadata
from services.runtime.relay import BrokenStream, relay_events
from services.runtime.request_context import REQUEST_ID_HEADER
from services.runtime.status import mesh_error_from_rpc

CLASSIFIER_SERVICE = classifier_pb2.DESCRIPTOR.services_by_name["ClassifierService"].full_name
INDEXER_SERVICE = indexer_pb2.DESCRIPTOR.services_by_name["IndexerService"].full_name

_ROLES = {"user": chat_pb2.CHAT_ROLE_USER, "assistant": chat_pb2.CHAT_ROLE_ASSISTANT}


class HistoryMessage(BaseModel):
    """One earlier message of the conversation."""

    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    content: str


class ChatTurnInput(BaseModel):
    """One user message entering the mesh, before it becomes a ChatTurn proto."""

    model_config = ConfigDict(frozen=True)

    chat_id: str = Field(min_length=1)
    message: str
    # None: the classifier detects the language from the message.
    language: Lang | None = None
    history: tuple[HistoryMessage, ...] = ()
    owner_id: str = ""
    request_id: str = ""

    def to_proto(self) -> chat_pb2.ChatTurn:
        return chat_pb2.ChatTurn(
            chat_id=self.chat_id,
            message=self.message,
            language=to_proto(self.language),  # type: ignore[arg-type]
            conversation_history=[
                chat_pb2.ChatMessage(role=_ROLES[m.role], content=m.content)  # type: ignore[arg-type]
                for m in self.history
            ],
            owner_id=self.owner_id,
            request_id=self.request_id,
        )


def _metadata(request_id: str, owner_id: str = "") -> tuple[tuple[str, str], ...] | None:
    """Request id and, for a turn, its owner (services.runtime.owner): the next hop
    checks that the owner in the body is the one the metadata vouches for."""
    pairs: tuple[tuple[str, str], ...] = ((REQUEST_ID_HEADER, request_id),) if request_id else ()
    if owner_id:
        pairs += owner_metadata(owner_id)
    return pairs or None


async def health_status(channel: grpc.aio.Channel, service: str = "", *, timeout: float = 2.0) -> str:
    """The grpc.health.v1 status name (SERVING, NOT_SERVING, ...) of `service`
    behind `channel`; UNAVAILABLE when nothing answers in time."""
    stub = health_pb2_grpc.HealthStub(channel)
    try:
        response = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
    except grpc.aio.AioRpcError as exc:
        return "UNKNOWN_SERVICE" if exc.code() == grpc.StatusCode.NOT_FOUND else "UNAVAILABLE"
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


class ClassifierClient:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self._stub = classifier_pb2_grpc.ClassifierServiceStub(channel)

    async def route_turn(
        self, turn: ChatTurnInput, *, timeout: float | None = None
    ) -> AsyncGenerator[turn_event_pb2.TurnEvent, None]:
        """The turn's events as they stream in, up to End; a failed call raises its
        MeshError, a stream without End Unavailable. Closing the iterator (or cancelling
        the task reading it) cancels the gRPC call."""
        call = self._stub.RouteTurn(
            classifier_pb2.RouteTurnRequest(turn=turn.to_proto()),
            timeout=timeout,
            metadata=_metadata(turn.request_id, turn.owner_id),
        )
        try:
            async with aclosing(relay_events(call, "classifier_svc")) as events:
                async for event in events:
                    yield event
        except BrokenStream as broken:
            if broken.rpc_error is not None:
                raise mesh_error_from_rpc(broken.rpc_error) from broken
            raise Unavailable("the turn stream ended without an end event") from broken

    async def classify(
        self, turn: ChatTurnInput, *, timeout: float | None = None
    ) -> classifier_pb2.Classification:
        try:
            response = await self._stub.Classify(
                classifier_pb2.ClassifyRequest(turn=turn.to_proto()),
                timeout=timeout,
                metadata=_metadata(turn.request_id, turn.owner_id),
            )
        except grpc.aio.AioRpcError as exc:
            raise mesh_error_from_rpc(exc) from exc
        return response.classification

    async def health(self, *, timeout: float = 2.0) -> str:
        return await health_status(self._channel, CLASSIFIER_SERVICE, timeout=timeout)

    async def close(self) -> None:
        await self._channel.close(None)


class IndexerClient:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self._stub = indexer_pb2_grpc.IndexerServiceStub(channel)

    async def index_endpoint(
        self,
        endpoint: catalogue_pb2.Endpoint,
        *,
        skip_enrichment: bool = False,
        timeout: float | None = None,
        request_id: str = "",
    ) -> indexer_pb2.IndexEndpointResponse:
        request = indexer_pb2.IndexEndpointRequest(endpoint=endpoint, skip_enrichment=skip_enrichment)
        return await self._unary(self._stub.IndexEndpoint, request, timeout, request_id)

    async def list_endpoints(
        self,
        *,
        service_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
        request_id: str = "",
    ) -> indexer_pb2.ListEndpointsResponse:
        request = indexer_pb2.ListEndpointsRequest(
            service_id=service_id, page_size=page_size, page_token=page_token
        )
        return await self._unary(self._stub.ListEndpoints, request, timeout, request_id)

    async def get_endpoint(
        self, endpoint_id: str, *, timeout: float | None = None, request_id: str = ""
    ) -> catalogue_pb2.Endpoint:
        request = indexer_pb2.GetEndpointRequest(endpoint_id=endpoint_id)
        response = await self._unary(self._stub.GetEndpoint, request, timeout, request_id)
        return response.endpoint

    async def delete_endpoint(
        self, endpoint_id: str, *, timeout: float | None = None, request_id: str = ""
    ) -> bool:
        request = indexer_pb2.DeleteEndpointRequest(endpoint_id=endpoint_id)
        response = await self._unary(self._stub.DeleteEndpoint, request, timeout, request_id)
        return bool(response.deleted)

    async def search(
        self,
        query: str,
        *,
        collection: int = indexer_pb2.COLLECTION_ENDPOINTS,
        limit: int = 5,
        query_embedding: Sequence[float] = (),
        service_id: str = "",
        timeout: float | None = None,
        request_id: str = "",
    ) -> indexer_pb2.SearchResponse:
        request = indexer_pb2.SearchRequest(
            collection=collection,  # type: ignore[arg-type]
            query=query,
            query_embedding=list(query_embedding),
            limit=limit,
            service_id=service_id,
        )
        return await self._unary(self._stub.Search, request, timeout, request_id)

    async def health(self, *, timeout: float = 2.0) -> str:
        return await health_status(self._channel, INDEXER_SERVICE, timeout=timeout)

    async def close(self) -> None:
        await self._channel.close(None)

    @staticmethod
    async def _unary(method, request, timeout: float | None, request_id: str):  # type: ignore[no-untyped-def]
        return await _unary(method, request, timeout, _metadata(request_id))


class LoopClient:
    """LoopService's chat reads and session deletion. Inside the mesh the request id and
    the acting owner travel in metadata by the channel's interceptors; the owner in the
    body is checked against them."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self._stub = loop_pb2_grpc.LoopServiceStub(channel)

    async def chat_state(
        self,
        chat_id: str,
        *,
        owner_id: str = "",
        message: str = "",
        language: Lang | None = None,
        timeout: float | None = None,
    ) -> loop_pb2.ChatStateResponse:
        """The chat's session, else (for a `message`) the follow-up verdict on it."""
        request = loop_pb2.ChatStateRequest(chat_id=chat_id, owner_id=owner_id, message=message)
        if language is not None:
            request.language = to_proto(language)  # type: ignore[assignment]
        return await _unary(self._stub.ChatState, request, timeout)

    async def get_session(
        self, chat_id: str, *, owner_id: str = "", timeout: float | None = None
    ) -> loop_pb2.Session | None:
        """The chat's active session, None when it has none."""
        request = loop_pb2.GetSessionRequest(chat_id=chat_id, owner_id=owner_id)
        try:
            response = await _unary(self._stub.GetSession, request, timeout)
        except NotFound:
            return None
        return response.session

    async def delete_session(self, chat_id: str, *, owner_id: str = "", timeout: float | None = None) -> bool:
        request = loop_pb2.DeleteSessionRequest(chat_id=chat_id, owner_id=owner_id)
        response = await _unary(self._stub.DeleteSession, request, timeout)
        return bool(response.deleted)


class CallerClient:
    """CallerService/GetResult: a stored API result, for its owner only."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self._stub = caller_pb2_grpc.CallerServiceStub(channel)

    async def get_result(
        self, result_id: str, *, owner_id: str, timeout: float | None = None, request_id: str = ""
    ) -> caller_pb2.GetResultResponse:
        """From the edge, which verified the citizen: the owner goes in metadata too."""
        request = caller_pb2.GetResultRequest(result_id=result_id, owner_id=owner_id)
        return await _unary(self._stub.GetResult, request, timeout, _metadata(request_id, owner_id))

    async def close(self) -> None:
        await self._channel.close(None)


async def _unary(method, request, timeout: float | None, metadata=None):  # type: ignore[no-untyped-def]
    """One unary call; a failure raises the MeshError it stands for."""
    try:
        return await method(request, timeout=timeout, metadata=metadata)
    except grpc.aio.AioRpcError as exc:
        raise mesh_error_from_rpc(exc) from exc
