"""A long message costs what a short one does: a 10,000-character message and adversarial
ones (one endless word, thousands of one-letter words, thousands of sentences) are
answered through the whole mesh with bounded work. Work is counted, not timed: every
Python and C function call on the event loop, where all the in-process services run,
during the turn (the model's own thread is bounded separately, by its token cut)."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator
from types import FrameType
from typing import Any

import httpx
import pytest
import pytest_asyncio

from tests.e2e.conftest import Mesh
from tests.e2e.sse import TurnResult, stream_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")

QUESTION = "What are the public holidays in Estonia?"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(mesh: Mesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=120) as client:
        yield client


async def _counted_turn(client: httpx.AsyncClient, message: str) -> tuple[int, TurnResult]:
    calls = 0

    def count(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        turn = await stream_turn(client, str(uuid.uuid4()), message)
    finally:
        sys.setprofile(None)
    return calls, turn


async def test_long_and_adversarial_messages_cost_bounded_work(edge: httpx.AsyncClient) -> None:
    await stream_turn(edge, "warm-up", QUESTION)
    # Whatever else the event loop runs meanwhile is counted too: the median of three.
    shorts = sorted([(await _counted_turn(edge, QUESTION))[0] for _ in range(3)])
    short = shorts[1]
    messages = {
        "10,000 characters": ((QUESTION + " ") * 250)[:10_000],
        "one endless word": "a" * 10_000,
        "5,000 one-letter words": "1 " * 5_000,
        "3,333 sentences": "A. " * 3_333,
        "names everywhere": ("Mari Tamm elab Tartus ja Riias. " * 320)[:10_000],
    }
    for name, message in messages.items():
        work, turn = await _counted_turn(edge, message)
        assert turn.end.event == "end", name
        # Linear steps over 10,000 characters are cheap (measured: 0.9–1.4 times a short
        # turn); a quadratic one, or work per word per search hit, made these 7–50 times.
        assert work <= 3 * short, f"{name}: {work} calls against {short} for a short turn"
