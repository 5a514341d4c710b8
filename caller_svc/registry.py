"""Where ExecuteCalls and CallEndpoint look an endpoint up by its id: the indexer's
catalogue (or a fixed one, for a caller that serves a known set)."""

from __future__ import annotations

from typing import Protocol

import grpc

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.catalogue import service_as_endpoint
from services.errors import Unavailable


class EndpointRegistry(Protocol):
    async def get(
        self, endpoint_id: str, timeout: float, *, service: bool = False
    ) -> catalogue_pb2.Endpoint | None:
        """The registered endpoint (a registered service when `service`), None when unknown."""
        ...


class IndexerEndpointRegistry:
    def __init__(self, stub: indexer_pb2_grpc.IndexerServiceStub) -> None:
        self._stub = stub

    async def get(
        self, endpoint_id: str, timeout: float, *, service: bool = False
    ) -> catalogue_pb2.Endpoint | None:
        try:
            if service:
                found = await self._stub.GetService(
                    indexer_pb2.GetServiceRequest(service_id=endpoint_id), timeout=timeout
                )
                return service_as_endpoint(found.service)
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


class StaticEndpointRegistry:
    """A fixed catalogue in memory: `register` adds (or replaces) an endpoint by its id."""

    def __init__(self, endpoints: list[catalogue_pb2.Endpoint] | None = None) -> None:
        self._endpoints: dict[str, catalogue_pb2.Endpoint] = {}
        for endpoint in endpoints or []:
            self.register(endpoint)

    def register(self, endpoint: catalogue_pb2.Endpoint) -> catalogue_pb2.Endpoint:
        if not endpoint.endpoint_id:
            raise ValueError("a registered endpoint needs an endpoint_id")
        self._endpoints[endpoint.endpoint_id] = endpoint
        return endpoint

    async def get(
        self, endpoint_id: str, timeout: float, *, service: bool = False
    ) -> catalogue_pb2.Endpoint | None:
        return self._endpoints.get(endpoint_id)
