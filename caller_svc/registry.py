"""Where CallEndpoint checks that an endpoint is registered: the indexer's catalogue."""

from __future__ import annotations

from typing import Protocol

import grpc

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.errors import Unavailable


class EndpointRegistry(Protocol):
    async def get(self, endpoint_id: str, timeout: float) -> catalogue_pb2.Endpoint | None: ...


class IndexerEndpointRegistry:
    def __init__(self, stub: indexer_pb2_grpc.IndexerServiceStub) -> None:
        self._stub = stub

    async def get(self, endpoint_id: str, timeout: float) -> catalogue_pb2.Endpoint | None:
        try:
            response = await self._stub.GetEndpoint(
                indexer_pb2.GetEndpointRequest(endpoint_id=endpoint_id), timeout=timeout
            )
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return None
            raise Unavailable(
                "the endpoint catalogue is unavailable", reason="CATALOGUE_UNAVAILABLE"
            ) from error
        return response.endpoint
