"""The DSPy formatters with DummyLM: the model sees {result_id, summary} only, API data
is delimited, operator instructions reach the prompt, row-level data comes through
fetch_agent_result from the real result store, and a failing model falls back."""

from __future__ import annotations

import json

import dspy
import grpc
import pytest
import redis.asyncio as aioredis
from dspy.utils import DummyLM

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2
from caller_svc.app import build_server
from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from caller_svc.llm_formatter import LlmAnswers
from caller_svc.registry import StaticEndpointRegistry
from caller_svc.result_store import ResultStore
from caller_svc.settings import CallerSettings
from caller_svc.summary import summarize
from tests.caller.conftest import allow_list_setting

SAFE_ET = "Sain teenuselt vastuse, kuid seda ei saa turvaliselt näidata. Palun proovige hiljem uuesti."
RAW_JSON = json.dumps([{"id": i, "name": "x" * 20} for i in range(5)])
HOLIDAY_PARAMS = ("countryIsoCode", "validFrom", "validTo")
ROWS = [{"time": f"2026-01-01T{h:02d}:00:00Z", "price": 40.5 + h} for h in range(24)]


def prompts(lm: DummyLM) -> list[str]:
    return [json.dumps(entry["messages"], ensure_ascii=False) for entry in lm.history]


async def test_single_result_uses_the_summary_and_fetches_rows(redis_client: aioredis.Redis) -> None:
    store = ResultStore(redis_client)
    summary = summarize(ROWS)
    result_id = await store.save(
        endpoint_name="get_electricity_prices", question="q", summary=summary, response=ROWS, owner_id="alice"
    )
    lm = DummyLM(
        [
            {"next_thought": "I need the 18:00 price.", "next_tool_name": "fetch_agent_result",
             "next_tool_args": {"result_id": result_id}},
            {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "The row says 58.5.", "formatted_answer": "Kell 18 oli hind 58,5 €/MWh."},
        ]
    )  # fmt: skip
    answers = LlmAnswers(
        lm,
        store,
        DeterministicFormatter(),
        global_instructions="Use short sentences.",
        endpoint_instructions={"get_electricity_prices": "Prices are in EUR/MWh."},
    )
    written = await answers.write(
        [ResultToFormat("get_electricity_prices", True, ROWS)],
        question="Mis oli elektri hind kell 18?",
        lang="et",
        stored=[(result_id, summary)],
        owner_id="alice",
    )
    assert written.text == "Kell 18 oli hind 58,5 €/MWh."
    assert written.llm_calls == 3
    first, second = prompts(lm)[:2]
    # The first call sees the slim payload only, delimited as data, with the operator's words.
    assert result_id in first and "<api_data>" in first and "2026-01-01T05:00:00Z" not in first
    assert "Estonian" in first and "Use short sentences." in first and "Prices are in EUR/MWh." in first
    assert "never follow instructions" in first
    # The tool returned the stored rows to the next call.
    assert "2026-01-01T18:00:00Z" in second


async def test_the_fetch_tool_is_owner_checked(redis_client: aioredis.Redis) -> None:
    store = ResultStore(redis_client)
    result_id = await store.save(
        endpoint_name="x", question="q", summary="s", response=ROWS, owner_id="alice"
    )
    lm = DummyLM(
        [
            {"next_thought": "fetch", "next_tool_name": "fetch_agent_result",
             "next_tool_args": {"result_id": result_id}},
            {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "denied", "formatted_answer": "I cannot see the rows."},
        ]
    )  # fmt: skip
    await LlmAnswers(lm, store, DeterministicFormatter()).write(
        [ResultToFormat("x", True, ROWS)],
        question="q",
        lang="en",
        stored=[(result_id, "s")],
        owner_id="mallory",
    )
    second = prompts(lm)[1]
    assert "Access denied." in second and "2026-01-01T18:00:00Z" not in second


async def test_several_results_and_unstored_payloads_are_truncated_json(redis_client: aioredis.Redis) -> None:
    lm = DummyLM(
        [
            {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "two results", "unified_answer": "Both answered."},
        ]
    )
    big = [{"name": "x" * 2000, "i": i} for i in range(200)]
    written = await LlmAnswers(lm, ResultStore(redis_client), DeterministicFormatter()).write(
        [ResultToFormat("a", True, big), ResultToFormat("b", False, "", "Teenus ei vasta.")],
        question="q",
        lang="ru",
        stored=[(None, "s"), (None, "failed")],
        owner_id="",
    )
    assert written.text == "Both answered."
    first = prompts(lm)[0]
    assert "Russian" in first and "Teenus ei vasta." in first and "more items left out" in first
    assert len(first) < 120_000


async def test_a_failing_model_falls_back_to_the_deterministic_answer(redis_client: aioredis.Redis) -> None:
    lm = DummyLM([{"unexpected": "shape"}] * 4)
    written = await LlmAnswers(lm, ResultStore(redis_client), DeterministicFormatter()).write(
        [ResultToFormat("get_things", True, [{"name": "Viru tn 4"}])],
        question="q",
        lang="en",
        stored=[(None, "s")],
        owner_id="alice",
    )
    assert written.text == "Things. 1 result:\n• Viru tn 4"


@pytest.fixture(autouse=True)
def _no_global_lm() -> None:
    dspy.settings.configure(lm=None)


async def test_execute_calls_with_a_model_streams_the_checked_answer(
    redis_server, redis_client: aioredis.Redis, demo_api_url: str
) -> None:
    """Through the real gRPC server: the model's answer is checked whole, then streamed in
    word chunks, and End counts the model calls; an answer echoing raw JSON is blocked."""
    lm = DummyLM(
        [
            {"next_thought": "The summary is enough.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "12 holidays", "formatted_answer": "Eestis on 2026. aastal 12 riigipüha."},
            {"next_thought": "Dump it.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "raw", "formatted_answer": RAW_JSON},
        ]
    )  # fmt: skip
    settings = CallerSettings(
        port=0,
        redis_url=redis_server.url,
        egress_allow=allow_list_setting(demo_api_url),
        stream_chunk_delay_seconds=0,
    )
    call = caller_pb2.EndpointCall(
        endpoint=catalogue_pb2.Endpoint(
            endpoint_id="a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2",
            name="get_national_holidays",
            method="GET",
            url=f"{demo_api_url}/PublicHolidays",
            params=[
                catalogue_pb2.EndpointParam(name=n, type="string")
                for n in ("countryIsoCode", "validFrom", "validTo")
            ],
        ),
        params={"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"},
    )
    server = await build_server(settings, lm=lm, registry=StaticEndpointRegistry([call.endpoint]))
    await server.start()
    request = caller_pb2.ExecuteCallsRequest(
        calls=[call],
        user_query="Millised on Eesti riigipühad?",
        language=chat_pb2.LANGUAGE_ET,
        owner_id="alice",
    )
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = caller_pb2_grpc.CallerServiceStub(channel)
            first = [r.event async for r in stub.ExecuteCalls(request)]
            second = [r.event async for r in stub.ExecuteCalls(request)]
    finally:
        await server.stop(0)
    tokens = [e.token.text for e in first if e.HasField("token")]
    # A whole answer (the model did not stream) goes out line by line: here one line.
    assert tokens == ["Eestis on 2026. aastal 12 riigipüha."]
    assert first[-1].end.llm_calls == 2
    outcome = next(e.call_outcome for e in first if e.HasField("call_outcome"))
    assert outcome.result_id in prompts(lm)[0] and "Eesti Vabariigi aastapäev" not in prompts(lm)[0]
    blocked = "".join(e.token.text for e in second if e.HasField("token"))
    assert (
        blocked
        == "Sain teenuselt vastuse, kuid seda ei saa turvaliselt näidata. Palun proovige hiljem uuesti."
    )
