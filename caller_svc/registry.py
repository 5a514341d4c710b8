"""Where ExecuteCalls and CallEndpoint look an endpoint up by its id: the indexer's
catalogue (or a fixed one, for a caller that serves a known set)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import grpc

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.catalogue import service_as_endpoint
from services.errors import Unavailable

log = logging.getLogger("atc.caller.registry")


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

    async def everything(self, timeout: float) -> list[tuple[bool, catalogue_pb2.Endpoint]]:
        """Every registered endpoint and service (as an endpoint), page by page."""
        found: list[tuple[bool, catalogue_pb2.Endpoint]] = []
        try:
            token = ""
            while True:
                page = await self._stub.ListEndpoints(
                    indexer_pb2.ListEndpointsRequest(page_size=500, page_token=token), timeout=timeout
                )
                found += [(False, endpoint) for endpoint in page.endpoints]
                if not page.next_page_token:
                    break
                token = page.next_page_token
            token = ""
            while True:
                services = await self._stub.ListServices(
                    indexer_pb2.ListServicesRequest(page_size=500, page_token=token), timeout=timeout
                )
                found += [(True, service_as_endpoint(s)) for s in services.services]
                if not services.next_page_token:
                    break
                token = services.next_page_token
        except grpc.aio.AioRpcError as error:
            raise Unavailable(
                "the endpoint catalogue is unavailable", reason="CATALOGUE_UNAVAILABLE"
            ) from error
        return found


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


@dataclass
class _Known:
    endpoint: catalogue_pb2.Endpoint
    at: float


class CachingEndpointRegistry:
    """The catalogue as the caller last saw it, in front of another registry.

    An entry younger than `ttl_seconds` is used as it is; an older one is looked up again.
    When the catalogue cannot be reached (the indexer restarting), the last registration
    seen is used — a chat whose endpoint was known goes on through an indexer outage —
    while an id never seen is refused as before. `warm()` lists the whole catalogue once
    (at start), so even the first call of an endpoint survives such an outage."""

    def __init__(
        self,
        inner: IndexerEndpointRegistry,
        *,
        ttl_seconds: float = 60.0,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._ttl = ttl_seconds
        self._max = max_entries
        self._clock = clock
        self._known: dict[tuple[bool, str], _Known] = {}

    def _remember(self, service: bool, endpoint: catalogue_pb2.Endpoint) -> None:
        if len(self._known) >= self._max:
            oldest = min(self._known, key=lambda key: self._known[key].at)
            del self._known[oldest]
        self._known[(service, endpoint.endpoint_id)] = _Known(endpoint, self._clock())

    async def get(
        self, endpoint_id: str, timeout: float, *, service: bool = False
    ) -> catalogue_pb2.Endpoint | None:
        known = self._known.get((service, endpoint_id))
        if known is not None and self._clock() - known.at < self._ttl:
            return known.endpoint
        try:
            found = await self._inner.get(endpoint_id, timeout, service=service)
        except Unavailable:
            if known is None:
                raise
            log.warning("catalogue unavailable: endpoint %s as last registered", endpoint_id)
            return known.endpoint
        if found is None:
            self._known.pop((service, endpoint_id), None)
            return None
        self._remember(service, found)
        return found

    async def warm(self, timeout: float = 10.0) -> int:
        """Every registered endpoint and service, remembered; how many (0 when unreachable)."""
        try:
            listed = await self._inner.everything(timeout)
        except Unavailable as error:
            log.info("catalogue not listed at start: %s", error)
            return 0
        for service, endpoint in listed:
            self._remember(service, endpoint)
        return len(listed)
