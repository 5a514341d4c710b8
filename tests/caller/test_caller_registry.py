"""The caller's view of the catalogue: fresh entries used as they are, old ones looked up
again, the last registration used while the catalogue is away (an injected clock)."""

from __future__ import annotations

import pytest

from atc.common.v1 import catalogue_pb2
from caller_svc.registry import CachingEndpointRegistry
from services.errors import Unavailable


class Catalogue:
    def __init__(self) -> None:
        self.endpoints = {
            "e1": catalogue_pb2.Endpoint(endpoint_id="e1", name="a", url="http://api.example/a")
        }
        self.down = False
        self.lookups = 0

    async def get(self, endpoint_id: str, timeout: float, *, service: bool = False):  # type: ignore[no-untyped-def]
        self.lookups += 1
        if self.down:
            raise Unavailable("the endpoint catalogue is unavailable", reason="CATALOGUE_UNAVAILABLE")
        return self.endpoints.get(endpoint_id)

    async def everything(self, timeout: float):  # type: ignore[no-untyped-def]
        if self.down:
            raise Unavailable("the endpoint catalogue is unavailable", reason="CATALOGUE_UNAVAILABLE")
        return [(False, e) for e in self.endpoints.values()]


async def test_the_last_registration_carries_a_chat_through_an_indexer_outage() -> None:
    now = [0.0]
    inner = Catalogue()
    registry = CachingEndpointRegistry(inner, ttl_seconds=60, clock=lambda: now[0])  # type: ignore[arg-type]
    assert await registry.warm() == 1
    assert (await registry.get("e1", 1)).url == "http://api.example/a"
    assert inner.lookups == 0  # known from the listing at start
    # Re-registered with a new URL (a restarted demo port): seen once the entry is old.
    inner.endpoints["e1"] = catalogue_pb2.Endpoint(endpoint_id="e1", name="a", url="http://api.example/b")
    now[0] = 61
    assert (await registry.get("e1", 1)).url == "http://api.example/b"
    # The indexer away: the last registration, never an id it has not seen.
    inner.down = True
    now[0] = 200
    assert (await registry.get("e1", 1)).url == "http://api.example/b"
    with pytest.raises(Unavailable):
        await registry.get("never-seen", 1)
    # Deleted from the catalogue: refused once looked up again.
    inner.down = False
    del inner.endpoints["e1"]
    now[0] = 300
    assert await registry.get("e1", 1) is None
