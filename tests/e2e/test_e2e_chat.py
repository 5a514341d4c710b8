"""A chat through the edge with every service running as a real gRPC server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from zoneinfo import ZoneInfo

import grpc
import httpx
import jwt
import pytest
import pytest_asyncio

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from edge_svc.identity import CHAT_TOKEN_COOKIE
from tests.e2e.conftest import Mesh
from tests.e2e.sse import stream_turn
from tests.support import metric_reaching, metric_value

pytestmark = pytest.mark.asyncio(loop_scope="module")
TALLINN = ZoneInfo("Europe/Tallinn")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(mesh: Mesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=30) as client:
        yield client


def owner_of(edge: httpx.AsyncClient) -> str:
    """The anonymous owner the edge gave this client (its chat token cookie)."""
    return str(jwt.decode(edge.cookies[CHAT_TOKEN_COOKIE], options={"verify_signature": False})["sub"])


async def session_params(
    mesh: Mesh, chat_id: str, edge: httpx.AsyncClient
) -> dict[str, dict[str, str]] | None:
    async with grpc.aio.insecure_channel(mesh.address("loop")) as channel:
        try:
            response = await loop_pb2_grpc.LoopServiceStub(channel).GetSession(
                loop_pb2.GetSessionRequest(chat_id=chat_id, owner_id=owner_of(edge))
            )
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND
            return None
    return {name: dict(params.values) for name, params in response.session.collected.items()}


async def test_vehicle_tax_in_two_turns_in_english(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    first = await stream_turn(edge, chat_id, "How much is the vehicle tax for my car?")
    assert first.end.data["content"] == "END"
    assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
    (question,) = first.of("question")
    assert question.data["missingParams"] == ["regNr"]
    assert "registration number" in first.text("TOKEN_KIND_QUESTION").lower()
    # The tax year a citizen means without saying it: this year (loop_svc/defaults.py).
    this_year = str(datetime.now(TALLINN).year)
    assert await session_params(mesh, chat_id, edge) == {
        "get_vehicle_tax_info": {"calculationYear": this_year}
    }

    second = await stream_turn(edge, chat_id, "123ABC")
    assert second.end.data["content"] == "END"
    assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    (outcome,) = second.of("call_outcome")
    assert outcome.data["success"] is True and outcome.data["endpointName"] == "get_vehicle_tax_info"
    assert "123ABC" in second.text("TOKEN_KIND_ANSWER")
    assert len(second.of("token")) > 10, "the answer streams token by token"
    assert await session_params(mesh, chat_id, edge) is None, "a completed session is gone"


async def test_holidays_without_a_period_are_the_coming_year_then_the_year_asked(
    mesh: Mesh, edge: httpx.AsyncClient
) -> None:
    """No period said: the holidays from today for a year (the README's "Try it"); a period
    said next calls the API again for it."""
    chat_id = str(uuid.uuid4())
    first = await stream_turn(edge, chat_id, "What are the public holidays in Estonia?")
    assert first.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    (outcome,) = first.of("call_outcome")
    assert outcome.data["success"] is True and outcome.data["endpointName"] == "get_national_holidays"
    answer = first.text("TOKEN_KIND_ANSWER")
    today = datetime.now(TALLINN).date()
    assert str(today.year) in answer and "Estonia" in answer
    assert await session_params(mesh, chat_id, edge) is None

    second = await stream_turn(edge, chat_id, "2026-01-01 to 2026-12-31")
    assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    answer = second.text("TOKEN_KIND_ANSWER")
    for holiday in ("New Year", "Independence Day", "Christmas"):
        assert holiday in answer


async def test_vehicle_tax_in_two_turns_in_estonian(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    first = await stream_turn(edge, chat_id, "Kui suur on minu auto sõidukimaks?")
    assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
    question = first.text("TOKEN_KIND_QUESTION")
    assert "registreerimisnumber" in question.lower(), question

    second = await stream_turn(edge, chat_id, "123ABC")
    assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    answer = second.text("TOKEN_KIND_ANSWER")
    assert "123ABC" in answer and "Mootorsõidukimaks" in answer, answer


async def test_a_fresh_chat_never_sees_another_chats_params(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    await stream_turn(edge, one, "How much is the vehicle tax for my car in 2027?")
    await stream_turn(edge, two, "How much is the vehicle tax for my car in 2026?")
    assert await session_params(mesh, one, edge) == {"get_vehicle_tax_info": {"calculationYear": "2027"}}
    assert await session_params(mesh, two, edge) == {"get_vehicle_tax_info": {"calculationYear": "2026"}}

    # A brand-new chat that only gives a plate has no session to complete: whatever it is
    # answered, nothing of the other chats' values (2027) reaches it.
    stranger = str(uuid.uuid4())
    reply = await stream_turn(edge, stranger, "456DEF")
    assert "2027" not in reply.text()
    for outcome in reply.of("call_outcome"):
        assert "2027" not in outcome.data["summary"], outcome.data
    assert await session_params(mesh, stranger, edge) is None

    answer = await stream_turn(edge, two, "456DEF")
    assert answer.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    assert "456DEF" in answer.text() and "2026" in answer.text()
    assert await session_params(mesh, one, edge) == {"get_vehicle_tax_info": {"calculationYear": "2027"}}


async def test_out_of_domain_answer_is_localized(edge: httpx.AsyncClient) -> None:
    reply = await stream_turn(edge, str(uuid.uuid4()), "Какой рецепт борща самый вкусный?")
    assert reply.end.data["outcome"] == "TURN_OUTCOME_OUT_OF_DOMAIN"
    assert "Извините" in reply.text()


async def test_json_endpoint_returns_the_whole_answer(edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    first = await edge.post(
        "/v1/orchestrate", json={"chatId": chat_id, "message": "How much is the vehicle tax for my car?"}
    )
    assert first.status_code == 200, first.text
    assert first.json()["outcome"] == "needs_input"
    second = await edge.post("/v1/orchestrate", json={"chatId": chat_id, "message": "123ABC"})
    assert second.status_code == 200, second.text
    body = second.json()
    assert body["outcome"] == "answered"
    assert "123ABC" in body["content"]


async def test_complete_first_message_is_answered_at_once(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    reply = await stream_turn(edge, chat_id, "What is the vehicle tax for 123ABC in 2026?")
    assert reply.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    (outcome,) = reply.of("call_outcome")
    assert outcome.data["endpointName"] == "get_vehicle_tax_info" and outcome.data["success"] is True
    assert "123ABC" in reply.text("TOKEN_KIND_ANSWER")
    assert await session_params(mesh, chat_id, edge) is None


async def test_endpoint_without_required_params_is_called_without_a_session(
    mesh: Mesh, edge: httpx.AsyncClient
) -> None:
    chat_id = str(uuid.uuid4())
    reply = await stream_turn(edge, chat_id, "Show me the latest Riigikogu votings")
    assert reply.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    assert [f.data["endpointName"] for f in reply.of("call_outcome")] == ["get_parliament_votings"]
    assert await session_params(mesh, chat_id, edge) is None


async def test_two_intents_in_one_message_call_both_endpoints(edge: httpx.AsyncClient) -> None:
    reply = await stream_turn(
        edge,
        str(uuid.uuid4()),
        "Find the address Viru 4 Tallinn and also calculate the vehicle tax for 123ABC in 2026",
    )
    assert reply.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    called = {f.data["endpointName"]: f.data["success"] for f in reply.of("call_outcome")}
    assert called == {"search_address": True, "get_vehicle_tax_info": True}
    answer = reply.text("TOKEN_KIND_ANSWER")
    assert "Viru tn 4" in answer and "123ABC" in answer


@pytest.mark.parametrize(
    "message",
    [
        "Leia aadress Viru 4 Tallinn ja arvuta ka mu sõidukimaks numbrile 123ABC 2026. aastaks",
        "Найди адрес Viru 4 Tallinn и посчитай налог на машину 123ABC за 2026 год",
    ],
)
async def test_two_intents_in_estonian_and_russian_reach_both_endpoints(
    mesh: Mesh, edge: httpx.AsyncClient, message: str
) -> None:
    chat_id = str(uuid.uuid4())
    reply = await stream_turn(edge, chat_id, message)
    assert set(reply.of("progress")[0].data["endpointNames"]) == {"search_address", "get_vehicle_tax_info"}
    outcome = reply.end.data["outcome"]
    if outcome == "TURN_OUTCOME_ANSWERED":
        assert {f.data["endpointName"] for f in reply.of("call_outcome")} == {
            "search_address",
            "get_vehicle_tax_info",
        }
    else:
        # The loop asks for what either endpoint still needs, keeping both in the session.
        assert outcome == "TURN_OUTCOME_NEEDS_INPUT"
        assert set(await session_params(mesh, chat_id) or {}) <= {"search_address", "get_vehicle_tax_info"}


async def test_a_new_intent_mid_session_switches_endpoint(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    first = await stream_turn(edge, chat_id, "Can you look up an address for me?")
    assert first.end.data["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
    switched = await stream_turn(edge, chat_id, "How much is the vehicle tax for my car 456DEF?")
    assert switched.of("progress")[0].data["endpointNames"] == ["get_vehicle_tax_info"]
    # The plate given and the tax year this year: answered at once, the address question dropped.
    assert switched.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    assert [f.data["endpointName"] for f in switched.of("call_outcome")] == ["get_vehicle_tax_info"]
    assert await session_params(mesh, chat_id, edge) is None


async def test_a_conversation_moves_the_domain_counters_of_every_service(
    mesh: Mesh, edge: httpx.AsyncClient
) -> None:
    """Layer decisions (classifier), the cache plan (loop), the API call (caller) and the
    searches and embedding calls (indexer) are counted by each service's own registry."""

    def value(service: str, name: str, **labels: str) -> float:
        return metric_value(mesh.servers[service].telemetry, name, {"service": service, **labels})

    def snapshot() -> dict[str, float]:
        return {
            "decided": value(
                "classifier",
                "atc_classifier_decisions_total",
                workflow="API_TOOL_CALLING",
                reason="SESSION_RESUME",
            ),
            "cache_miss": value("loop", "atc_loop_cache_plans_total", outcome="miss"),
            "called": value("caller", "atc_api_calls_total", outcome="OK"),
            "searched": value("indexer", "atc_searches_total", collection="endpoint"),
            "embedded": value(
                "indexer", "atc_embedding_model_calls_total", priority="foreground", batched="false"
            ),
        }

    before = snapshot()
    chat_id = str(uuid.uuid4())
    # A question no other test asks: its embedding is not cached anywhere yet.
    await stream_turn(edge, chat_id, "Please work out the motor vehicle tax on my car.")
    second = await stream_turn(edge, chat_id, "789GHI")
    assert second.end.data["outcome"] == "TURN_OUTCOME_ANSWERED"
    after = snapshot()
    assert after["decided"] == before["decided"] + 1  # the second turn resumed the session
    assert after["cache_miss"] == before["cache_miss"] + 1  # the first turn: nothing cached
    assert after["called"] == before["called"] + 1
    assert after["searched"] > before["searched"]
    assert after["embedded"] > before["embedded"]


async def test_each_turn_reads_the_chat_from_the_loop_once(mesh: Mesh, edge: httpx.AsyncClient) -> None:
    """The classifier reads a chat once per turn (ChatState: the session, else the verdict
    on a follow-up of the last call) and hands the turn to the loop once (RunTurn); it made
    up to four loop RPCs a turn (GetSession, DetectFollowUp, DeleteSession, RunTurn)."""
    loop = mesh.servers["loop"].telemetry

    def served(method: str) -> float:
        labels = {"service": "loop", "method": f"/atc.loop.v1.LoopService/{method}", "code": "OK"}
        return metric_value(loop, "atc_rpc_requests_total", labels)

    async def reaching(method: str, expected: float) -> float:
        labels = {"service": "loop", "method": f"/atc.loop.v1.LoopService/{method}", "code": "OK"}
        return await metric_reaching(loop, "atc_rpc_requests_total", labels, expected)

    methods = ("ChatState", "RunTurn", "GetSession", "DetectFollowUp", "DeleteSession")
    chat_id = str(uuid.uuid4())
    turns = [
        ("What is the vehicle tax for my car?", "TURN_OUTCOME_NEEDS_INPUT"),  # opens a session
        ("123ABC", "TURN_OUTCOME_ANSWERED"),  # resumes it
        ("and for 2027?", "TURN_OUTCOME_ANSWERED"),  # a follow-up of the last call
    ]
    for message, outcome in turns:
        before = {m: served(m) for m in methods}
        reply = await stream_turn(edge, chat_id, message)
        assert reply.end.data["outcome"] == outcome, message
        assert await reaching("RunTurn", before["RunTurn"] + 1) == before["RunTurn"] + 1
        assert await reaching("ChatState", before["ChatState"] + 1) == before["ChatState"] + 1
        assert {m: served(m) - before[m] for m in methods[2:]} == dict.fromkeys(methods[2:], 0), message
