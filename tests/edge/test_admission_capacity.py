"""Admission by measured capacity (services/runtime/backpressure.py) through the edge's
middleware: past what the measured rate answers within the target, a turn gets 429 with a
Retry-After that the same measure decides, and nothing is lost — a refused turn never
reaches the route, every admitted one is answered, a retried one is served once. The
gate's clock is injected: the route advances it as it "works"."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.http_observability import ObservedHttpApp
from services.runtime.telemetry import Telemetry


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Edge:
    """A chat route that records every turn it receives; a turn marked `hold` waits."""

    def __init__(self, gate: ConcurrencyLimit, clock: Clock, work_seconds: float) -> None:
        self.received: list[str] = []
        self.release = asyncio.Event()
        self.holding = 0
        self._clock = clock
        self._work = work_seconds

        async def turn(request: Request) -> JSONResponse:
            body = await request.json()
            self.received.append(body["id"])
            if body.get("hold"):
                self.holding += 1
                await self.release.wait()
            else:
                self._clock.now += self._work
            return JSONResponse({"answered": body["id"]})

        self.app = Starlette(
            routes=[Route("/v1/orchestrate", turn, methods=["POST"])],
            middleware=[Middleware(ObservedHttpApp, telemetry=Telemetry("edge"), limit=gate)],
        )


async def _until_holding(edge: Edge, count: int) -> None:
    for _ in range(10_000):
        if edge.holding >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"only {edge.holding} turns reached the route")


async def test_a_429_carries_retry_after_from_measured_capacity_and_loses_nothing() -> None:
    clock = Clock()
    # 10 turns a second measured, 0.5 s target: 5 turns may wait at once.
    gate = ConcurrencyLimit(0, target_seconds=0.5, min_waiting=2, clock=clock)
    edge = Edge(gate, clock, work_seconds=0.1)
    ids = (f"turn-{i}" for i in itertools.count())
    transport = httpx.ASGITransport(app=edge.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://edge") as client:
        for _ in range(4):
            assert (await client.post("/v1/orchestrate", json={"id": next(ids)})).status_code == 200
        assert gate.capacity_per_second == pytest.approx(10.0)
        assert gate.admissible_waiting == pytest.approx(5.0)
        held_ids = [next(ids) for _ in range(5)]
        held = [
            asyncio.create_task(client.post("/v1/orchestrate", json={"id": i, "hold": 1})) for i in held_ids
        ]
        await _until_holding(edge, 5)
        refused_ids = [next(ids) for _ in range(3)]
        refused = [await client.post("/v1/orchestrate", json={"id": i}) for i in refused_ids]
        assert [r.status_code for r in refused] == [429, 429, 429]
        assert all(r.headers["retry-after"] == "1" for r in refused)
        # A refused turn never reached the route: nothing of it is half done.
        assert not set(refused_ids) & set(edge.received)
        edge.release.set()
        answers = [await task for task in held]
        assert [a.json()["answered"] for a in answers] == held_ids
        retried = [await client.post("/v1/orchestrate", json={"id": i}) for i in refused_ids]
        assert [r.json()["answered"] for r in retried] == refused_ids
    # Every turn was answered, and each reached the route exactly once.
    assert sorted(edge.received) == sorted(set(edge.received)) and len(edge.received) == 4 + 5 + 3
    assert (gate.in_flight, gate.waiting, gate.refused) == (0, 0, 3)


async def test_a_slower_service_is_told_to_come_back_later() -> None:
    clock = Clock()
    # One turn every 2 s measured, 2 s target: one turn may wait; the next excess one
    # needs 2 s of the service's time.
    gate = ConcurrencyLimit(0, target_seconds=2.0, min_waiting=1, clock=clock)
    edge = Edge(gate, clock, work_seconds=2.0)
    transport = httpx.ASGITransport(app=edge.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://edge") as client:
        for i in range(3):
            assert (await client.post("/v1/orchestrate", json={"id": f"warm-{i}"})).status_code == 200
        assert gate.capacity_per_second == pytest.approx(0.5)
        held = asyncio.create_task(client.post("/v1/orchestrate", json={"id": "held", "hold": 1}))
        await _until_holding(edge, 1)
        busy = await client.post("/v1/orchestrate", json={"id": "busy"})
        assert (busy.status_code, busy.headers["retry-after"]) == (429, "2")
        edge.release.set()
        assert (await held).status_code == 200
    assert "busy" not in edge.received


def test_the_slot_cap_still_holds_and_a_streamed_turn_stops_waiting_at_its_first_response() -> None:
    clock = Clock()
    gate = ConcurrencyLimit(3, target_seconds=0.0, clock=clock)
    first, second, third = gate.admit(), gate.admit(), gate.admit()
    assert first and second and third and gate.admit() is None
    first.responded()
    assert (gate.in_flight, gate.waiting) == (3, 2)
    first.release()
    first.release()  # idempotent
    assert (gate.in_flight, gate.waiting) == (2, 2)
    assert gate.admit() is not None
