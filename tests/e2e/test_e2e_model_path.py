"""The whole mesh with a model configured: every service's DSPy steps go through litellm
to the scripted model server (over HTTP), as a team's settings would point them at a real
one. The README's first scenario streams its first answer token before the model has
finished writing; End.llm_calls equals the requests the model received for the turn (any
step the test does not script gets a 500 and takes its deterministic path, still counted);
the follow-up decision reaches the model once per turn."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from devtools.launcher.inprocess import InProcessMesh, running_mesh
from devtools.redis_server import EmbeddedRedis
from tests.e2e.sse import Frame, TurnResult, stream_turn
from tests.llm_server import ScriptedModel, dspy_fields

pytestmark = pytest.mark.asyncio(loop_scope="module")

STEP = "[[ ## next_thought ## ]]"  # the formatter's ReAct step (which tool next)
ANSWER = "[[ ## formatted_answer ## ]]"  # its answer, after the step
FOLLOW_UP = "[[ ## follow_up_type ## ]]"
FINISH = dspy_fields(next_thought="The summary is enough.", next_tool_name="finish", next_tool_args="{}")
HOLIDAYS_ANSWER = (
    "Estonia has 12 public holidays in 2026. The first is New Year's Day on 1 January. "
    "The last is Boxing Day on 26 December."
)


@pytest.fixture(scope="module")
def model_redis() -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def model() -> AsyncIterator[ScriptedModel]:
    async with ScriptedModel() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mesh(
    model_redis: EmbeddedRedis, model: ScriptedModel, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[InProcessMesh]:
    llm = {
        "llm_model": "openai/scripted",
        "llm_api_base": model.api_base,
        "llm_api_key": "test",
        "dspy_cache_dir": str(tmp_path_factory.mktemp("dspy")),
    }
    async with running_mesh(model_redis.url, tmp_path_factory.mktemp("index"), llm_settings=llm) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(mesh: InProcessMesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=120) as client:
        yield client


async def test_the_first_answer_token_leaves_before_the_model_has_finished(
    edge: httpx.AsyncClient, model: ScriptedModel
) -> None:
    written = asyncio.Event()
    model.reply(when=ANSWER, text=dspy_fields(reasoning="12 rows.", formatted_answer=HOLIDAYS_ANSWER),
                stream=True, chunk_chars=6, hold_last=written)  # fmt: skip
    model.reply(when=STEP, text=FINISH)
    before = model.calls
    frames: list[Frame] = []
    body = {"chatId": str(uuid.uuid4()), "message": "What are the public holidays in Estonia in 2026?"}
    async with edge.stream("POST", "/v1/orchestrate/stream", json=body) as response:
        assert response.status_code == 200
        event = "message"
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                frames.append(Frame(event, json.loads(line.removeprefix("data:").strip())))
                if event == "token" and not written.is_set():
                    # The model still holds back the end of its answer.
                    written.set()
                event = "message"
    turn = TurnResult(frames)
    assert written.is_set(), "no answer token before the model finished"
    assert turn.text("TOKEN_KIND_ANSWER") == HOLIDAYS_ANSWER
    assert turn.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    assert turn.end.data["llmCalls"] == model.calls - before >= 2


async def last_call_written(server: EmbeddedRedis, chat_id: str) -> None:
    client = aioredis.Redis.from_url(server.url, decode_responses=True)
    try:
        for _ in range(1200):  # a generous bound: a loaded machine holds the write back
            if await client.get(f"atc:last:{chat_id}") is not None:
                return
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()
    raise AssertionError(f"atc:last:{chat_id} was never written")


async def test_a_follow_up_is_decided_once_and_every_call_is_counted(
    edge: httpx.AsyncClient, model: ScriptedModel, model_redis: EmbeddedRedis
) -> None:
    chat = str(uuid.uuid4())
    first_before = model.calls
    first = await stream_turn(edge, chat, "What are the public holidays in Estonia in 2026?")
    assert first.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    # Nothing scripted: every step fell back, and the answer is the deterministic one.
    assert "Independence Day" in first.text("TOKEN_KIND_ANSWER")
    assert first.end.data["llmCalls"] == model.calls - first_before
    # L2 is written in the background after the answer: the follow-up needs it.
    await last_call_written(model_redis, chat)
    second_before = model.calls
    decided_before = sum(1 for r in model.received if FOLLOW_UP in r.prompt)
    model.reply(when=FOLLOW_UP, text=dspy_fields(
        follow_up_type="param_update", about_api="get_national_holidays",
        updated_params='{"countryIsoCode": "LV"}'))  # fmt: skip
    second = await stream_turn(edge, chat, "Same for Latvia?")
    assert second.end.data["outcome"] in ("TURN_OUTCOME_ANSWERED", "TURN_OUTCOME_CACHED"), second.frames
    assert sum(1 for r in model.received if FOLLOW_UP in r.prompt) - decided_before == 1
    assert second.end.data["llmCalls"] == model.calls - second_before
