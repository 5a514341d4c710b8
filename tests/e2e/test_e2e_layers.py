"""The issue's verification through the whole mesh (edge → classifier → indexer/loop →
caller → demo APIs): knowledge questions in three languages answered by RAG with
sources, the application-status service over two turns, out-of-domain kept out."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from tests.e2e.conftest import Mesh
from tests.e2e.sse import stream_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(mesh: Mesh) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=mesh.edge_url, timeout=60) as client:
        yield client


async def ask(edge: httpx.AsyncClient, message: str, chat_id: str | None = None) -> dict:
    response = await edge.post(
        "/v1/orchestrate", json={"chatId": chat_id or str(uuid.uuid4()), "message": message}
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    ("question", "title", "words"),
    [
        ("How do I renew my ID card?", "Renewing an ID card", "self-service portal"),
        ("Kuidas registreerida oma elukoht?", "Elukoha registreerimine", "elukohateade"),
        ("Как получить родительское пособие?", "Родительское пособие", "самообслуживании"),
    ],
)
async def test_knowledge_questions_are_answered_by_rag_with_sources(
    edge: httpx.AsyncClient, question: str, title: str, words: str
) -> None:
    body = await ask(edge, question)
    assert (body["workflow"], body["outcome"]) == ("rag", "answered")
    assert body["sources"] and body["sources"][0]["title"] == title
    assert body["sources"][0]["url"].startswith("https://")
    assert words in body["content"].lower()


async def test_the_stream_carries_a_sources_event(edge: httpx.AsyncClient) -> None:
    reply = await stream_turn(edge, str(uuid.uuid4()), "How do I renew my ID card?")
    (sources,) = reply.of("sources")
    assert sources.data["sources"][0]["title"] == "Renewing an ID card"
    assert reply.end.data["workflow"] == "WORKFLOW_RAG"


async def test_the_application_status_service_asks_for_the_number_then_answers(
    edge: httpx.AsyncClient,
) -> None:
    chat_id = str(uuid.uuid4())
    first = await ask(edge, "What is the status of my ID card application?", chat_id)
    assert (first["workflow"], first["outcome"]) == ("service", "needs_input")
    assert first["question"]["missingParams"] == ["applicationNumber"]
    second = await ask(edge, "A1234567", chat_id)
    assert (second["workflow"], second["outcome"]) == ("service", "answered")
    assert "A1234567" in second["content"] and "Status" in second["content"]
    assert second["callOutcomes"][0]["endpointName"] == "check_document_application_status"


async def test_out_of_domain_stays_out(edge: httpx.AsyncClient) -> None:
    body = await ask(edge, "Who won the 2018 world cup?")
    assert (body["workflow"], body["outcome"]) == ("ood", "out_of_domain")
    assert body["sources"] == []


async def test_api_questions_still_reach_the_api_layer(edge: httpx.AsyncClient) -> None:
    body = await ask(edge, "How much is the vehicle tax for my car?")
    assert (body["workflow"], body["outcome"]) == ("api_tool_calling", "needs_input")
    # No period said: the holidays from today for a year, answered at once.
    body = await ask(edge, "What are the public holidays in Estonia?")
    assert (body["workflow"], body["outcome"]) == ("api_tool_calling", "answered")


async def test_declining_to_continue_falls_back_to_the_knowledge_base(edge: httpx.AsyncClient) -> None:
    """The seed's fallback: a "no" to the continuation question → the router answers the
    original query from the knowledge base (which has no page on electricity prices: it
    says it cannot help), never an API call."""
    chat_id = str(uuid.uuid4())
    first = await ask(edge, "What are the electricity prices?", chat_id)
    assert (first["workflow"], first["outcome"]) == ("api_tool_calling", "needs_input")
    for _ in range(5):  # replies with no dates until the loop asks whether to go on
        reply = await ask(edge, "hmm, not sure", chat_id)
        if reply["outcome"] != "needs_input" or not reply["question"]["missingParams"]:
            break
        if "continue" in reply["content"].lower():
            break
    assert "continue" in reply["content"].lower(), reply
    final = await ask(edge, "no", chat_id)
    assert (final["workflow"], final["outcome"]) in {("rag", "answered"), ("ood", "out_of_domain")}, final
    assert final["callOutcomes"] == []
    assert "sorry" in final["content"].lower() or final["sources"], final


async def test_running_out_of_turns_falls_back_to_the_knowledge_base(edge: httpx.AsyncClient) -> None:
    chat_id = str(uuid.uuid4())
    await ask(edge, "Millised on elektri hinnad?", chat_id)
    outcomes = []
    for reply_text in ["ei tea", "ei tea", "jah", "ei tea", "ei tea", "ei tea"]:
        reply = await ask(edge, reply_text, chat_id)
        outcomes.append(reply["outcome"])
        if reply["outcome"] != "needs_input":
            break
    assert "needs_input" in outcomes and outcomes[-1] != "needs_input", outcomes
    assert (reply["workflow"], reply["outcome"]) in {("rag", "answered"), ("ood", "out_of_domain")}, reply
    assert reply["callOutcomes"] == []
    assert "Vabandust" in reply["content"] or reply["sources"], reply
