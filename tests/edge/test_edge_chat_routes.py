"""The edge app against real in-process gRPC stand-ins (see conftest.py)."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from atc.common.v1 import chat_pb2
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE


def parse_sse(text: str) -> list[tuple[str, dict]]:
    frames = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        frames.append((fields["event"], json.loads(fields["data"])))
    return frames


def body(message: str, **extra: object) -> dict:
    return {"chatId": f"chat-{uuid.uuid4().hex[:8]}", "message": message, **extra}


async def test_stream_sends_one_frame_per_event_and_ends_with_END(
    http: httpx.AsyncClient, mesh, scripts
) -> None:
    request = body("holidays", language="et", conversationHistory=[{"role": "bot", "content": "Tere!"}])
    response = await http.post("/v1/orchestrate/stream", json=request)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = parse_sse(response.text)
    expected = [event.WhichOneof("kind") for event in scripts["holidays"]]
    assert [name for name, _ in frames] == expected
    assert all(data["type"] == name and data["chatId"] == request["chatId"] for name, data in frames)
    assert frames[-1][1]["content"] == "END"
    assert frames[-1][1]["outcome"] == "TURN_OUTCOME_NEEDS_INPUT"
    tokens = [data for name, data in frames if name == "token"]
    assert "".join(t["content"] for t in tokens) == "Which country?"
    assert {t["kind"] for t in tokens} == {"TOKEN_KIND_QUESTION"}
    # The turn reached the classifier as sent.
    (turn,) = mesh.classifier.turns
    assert (turn.chat_id, turn.message, turn.language) == (
        request["chatId"],
        "holidays",
        chat_pb2.LANGUAGE_ET,
    )
    assert [(m.role, m.content) for m in turn.conversation_history] == [
        (chat_pb2.CHAT_ROLE_ASSISTANT, "Tere!")
    ]


async def test_request_id_is_taken_from_header_and_forwarded(http: httpx.AsyncClient, mesh) -> None:
    response = await http.post(
        "/v1/orchestrate/stream", json=body("Estonia"), headers={"x-request-id": "req-abc.123"}
    )
    assert response.headers["x-request-id"] == "req-abc.123"
    assert mesh.classifier.turns[0].request_id == "req-abc.123"
    assert mesh.classifier.request_ids == ["req-abc.123"]


async def test_request_id_is_generated_when_absent(http: httpx.AsyncClient, mesh) -> None:
    response = await http.post("/v1/orchestrate", json=body("Estonia", authorId="user-7"))
    generated = response.headers["x-request-id"]
    assert len(generated) >= 16
    assert mesh.classifier.turns[0].request_id == generated
    # The owner is the edge's anonymous owner, never the body's authorId.
    assert mesh.classifier.turns[0].owner_id.startswith("anon:")


async def test_json_endpoint_concatenates_tokens(http: httpx.AsyncClient) -> None:
    request = body("Estonia")
    response = await http.post("/v1/orchestrate", json=request)
    assert response.status_code == 200
    result = response.json()
    assert result["chatId"] == request["chatId"]
    assert result["content"] == "Estonia has 12 public holidays."
    assert result["outcome"] == "answered"
    assert result["workflow"] == "api_tool_calling"
    assert result["question"] is None
    assert result["llmCalls"] == 2
    assert [c["endpointName"] for c in result["callOutcomes"]] == ["get_national_holidays"]
    assert result["callOutcomes"][0]["httpStatus"] == 200


async def test_json_endpoint_reports_the_question(http: httpx.AsyncClient) -> None:
    result = (await http.post("/v1/orchestrate", json=body("holidays"))).json()
    assert result["outcome"] == "needs_input"
    assert result["question"] == {
        "endpointNames": ["get_national_holidays"],
        "missingParams": ["countryIsoCode"],
        "text": "Which country?",
    }


@pytest.mark.parametrize("path", ["/v1/orchestrate/stream", "/v1/orchestrate"])
@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"chatId": "c1", "message": "   "}, "message"),
        ({"chatId": "c1", "message": ""}, "message"),
        ({"chatId": "c1", "message": "hi", "temperature": 2}, "temperature"),
        ({"message": "hi"}, "chatId"),
        ({"chatId": "c1", "message": "hi", "language": "de"}, "language"),
        (
            {"chatId": "c1", "message": "hi", "conversationHistory": [{"role": "system", "content": "x"}]},
            "conversationHistory.0.role",
        ),
    ],
)
async def test_invalid_body_is_400_naming_the_field_and_nothing_is_forwarded(
    http: httpx.AsyncClient, mesh, path: str, payload: dict, field: str
) -> None:
    response = await http.post(path, json=payload)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field
    assert error["message"]
    assert mesh.classifier.turns == []


async def test_non_json_body_is_400(http: httpx.AsyncClient, mesh) -> None:
    response = await http.post(
        "/v1/orchestrate/stream", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]["message"]
    assert mesh.classifier.turns == []


@pytest.mark.parametrize("path", ["/v1/orchestrate/stream", "/v1/orchestrate"])
async def test_classifier_invalid_argument_is_400_with_its_field(http: httpx.AsyncClient, path: str) -> None:
    response = await http.post(path, json=body("reject"))
    assert response.status_code == 400
    assert response.json()["error"] == {
        "message": "message is too long",
        "field": "turn.message",
        "reason": "INVALID_ARGUMENT",
    }


@pytest.mark.parametrize("path", ["/v1/orchestrate/stream", "/v1/orchestrate"])
async def test_classifier_unavailable_is_503(http: httpx.AsyncClient, path: str) -> None:
    response = await http.post(path, json=body("down"))
    assert response.status_code == 503
    error = response.json()["error"]
    # An outage reads the same whatever hop failed: no service name, address or status.
    assert error["message"] == TEMPORARILY_UNAVAILABLE["en"] and "loop_svc" not in response.text
    assert error["reason"] == "TEMPORARILY_UNAVAILABLE" and error["requestId"]


async def test_failure_after_stream_start_becomes_error_frame_then_end(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/orchestrate/stream", json=body("break"))
    assert response.status_code == 200
    frames = parse_sse(response.text)
    names = [name for name, _ in frames]
    assert names[0] == "token" and names[-2:] == ["error", "end"] and set(names[:-2]) == {"token"}
    # After what was streamed, the localized "try again" as text, then the error.
    text = "".join(data["content"] for name, data in frames[1:-2])
    assert text == TEMPORARILY_UNAVAILABLE["en"]
    assert frames[-2][1]["content"] == TEMPORARILY_UNAVAILABLE["en"]
    assert "caller_svc" not in response.text
    assert frames[-1][1]["content"] == "END"
    assert frames[-1][1]["outcome"] == "TURN_OUTCOME_FAILED"


async def test_json_endpoint_maps_mid_stream_abort_to_503(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/orchestrate", json=body("break"))
    assert response.status_code == 503
    assert response.json()["error"]["message"] == TEMPORARILY_UNAVAILABLE["en"]
    assert "caller_svc" not in response.text


async def test_unreachable_classifier_is_503_and_readyz_says_not_ready(mesh) -> None:
    from devtools.redis_server import free_port
    from edge_svc.app import create_app
    from edge_svc.settings import EdgeSettings
    from services.clients import ClassifierClient, IndexerClient
    from services.runtime.channels import open_channel

    # Nothing listens there: connections are refused quickly.
    dead = f"127.0.0.1:{free_port()}"
    settings = EdgeSettings(request_timeout_seconds=5, readiness_timeout_seconds=1)
    classifier, indexer = ClassifierClient(open_channel(dead)), IndexerClient(open_channel(dead))
    app = create_app(settings, classifier, indexer)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://edge"
        ) as client:
            response = await client.post("/v1/orchestrate/stream", json=body("Estonia"))
            assert response.status_code == 503
            assert response.json()["error"]["reason"] == "TEMPORARILY_UNAVAILABLE"
            assert "127.0.0.1" not in response.text
            ready = await client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json() == {"status": "not_ready", "classifier": "UNAVAILABLE"}
    finally:
        await classifier.close()
        await indexer.close()


async def test_health_ready_and_page(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    ready = await http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "classifier": "SERVING"}
    page = await http.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "/v1/orchestrate/stream" in html
    assert "sessionStorage" in html and "getReader" in html
    assert "http://" not in html and "https://" not in html  # no external assets
