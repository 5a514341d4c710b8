"""Hostile bodies: every one is a 4xx naming the problem (and the field when there is
one), nothing reaches the classifier, and nothing internal is in the answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from edge_svc.app import create_app
from edge_svc.limits import json_depth
from edge_svc.settings import EdgeSettings
from services.clients import ClassifierClient, IndexerClient
from services.runtime.channels import open_channel

LIMITS = EdgeSettings()


def raw(text: str) -> bytes:
    return text.encode()


def turn_json(**fields: object) -> bytes:
    return json.dumps({"chatId": "c-1", "message": "Estonia", **fields}).encode()


def history(items: int, chars: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": "x" * chars} for _ in range(items)]


ROWS = [
    # (id, body bytes, status, field)
    ("too-large", b'{"chatId": "c", "message": "' + b"x" * LIMITS.max_body_bytes + b'"}', 413, None),
    (
        "deep-nesting",
        b'{"chatId": "c", "message": "m", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        400,
        None,
    ),
    ("huge-number", raw('{"chatId": "c", "message": "m", "n": ' + "9" * 5000 + "}"), 400, None),
    ("nan", raw('{"chatId": "c", "message": "m", "n": NaN}'), 400, None),
    (
        "lone-surrogate-authorId",
        raw('{"chatId": "c", "message": "m", "authorId": "\\ud800"}'),
        400,
        "authorId",
    ),
    (
        "lone-surrogate-history",
        raw(
            '{"chatId": "c", "message": "m", '
            '"conversationHistory": [{"role": "user", "content": "a\\udfff"}]}'
        ),
        400,
        "conversationHistory[0].content",
    ),
    ("invalid-utf8", b'{"chatId": "c", "message": "\xff\xfe"}', 400, None),
    ("message-too-long", turn_json(message="ж" * (LIMITS.max_message_chars + 1)), 400, "message"),
    (
        "too-many-history-items",
        turn_json(conversationHistory=history(LIMITS.max_history_items + 1, 1)),
        400,
        "conversationHistory",
    ),
    (
        "history-item-too-long",
        turn_json(conversationHistory=history(1, LIMITS.max_history_item_chars + 1)),
        400,
        "conversationHistory[0].content",
    ),
    (
        "history-too-long-in-total",
        turn_json(conversationHistory=history(5, LIMITS.max_history_chars // 5 + 1)),
        400,
        "conversationHistory",
    ),
    ("not-an-object", b"[1, 2]", 400, None),
    ("missing-message", raw('{"chatId": "c"}'), 400, "message"),
]


@pytest.mark.parametrize(("body", "status", "field"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
@pytest.mark.parametrize("route", ["/v1/orchestrate", "/v1/orchestrate/stream"])
async def test_bad_body_is_4xx_and_nothing_is_forwarded(
    http: httpx.AsyncClient, mesh, route: str, body: bytes, status: int, field: str | None
) -> None:
    reply = await http.post(route, content=body, headers={"content-type": "application/json"})
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["field"] == field
    assert "Traceback" not in reply.text and "grpc" not in reply.text.lower()
    assert mesh.classifier.turns == []
    # The edge keeps serving.
    assert (await http.post(route, content=turn_json())).status_code == 200


async def test_body_over_the_limit_is_refused_while_streaming(http: httpx.AsyncClient, mesh) -> None:
    """No Content-Length (chunked): counted as it arrives, refused past the limit."""
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"chatId": "c", "message": "'
        for _ in range(64):  # 64 × 64 KiB = 4 MiB offered
            sent += 1
            yield b"x" * 65536
        yield b'"}'

    reply = await http.post("/v1/orchestrate", content=chunks())
    assert reply.status_code == 413
    assert reply.json()["error"]["reason"] == "BODY_TOO_LARGE"
    assert sent < 64, "the edge stopped reading at the limit"
    assert mesh.classifier.turns == []


async def test_lying_content_length_is_refused_before_reading(http: httpx.AsyncClient, mesh) -> None:
    reply = await http.post(
        "/v1/orchestrate", content=turn_json(), headers={"content-length": str(LIMITS.max_body_bytes + 1)}
    )
    assert reply.status_code == 413


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert json_depth(b'"\\"[[["') == 0
    assert json_depth(b"[" * 50_000 + b"]" * 50_000) == 50_000


async def test_oversized_grpc_message_is_a_clear_413(mesh) -> None:
    """The edge's channel refuses to send a message over its gRPC limit: 413, not 502."""
    classifier = ClassifierClient(open_channel(mesh.server.address, max_message_bytes=4096))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        app = create_app(EdgeSettings(), classifier, indexer)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://edge"
        ) as client:
            for route in ("/v1/orchestrate", "/v1/orchestrate/stream"):
                # A chat of its own per route: each request here starts as a new owner.
                reply = await client.post(route, json={"chatId": f"c{route}", "message": "y" * 8000})
                assert reply.status_code == 413, reply.text
                error = reply.json()["error"]
                assert error["reason"] == "GRPC_MESSAGE_TOO_LARGE"
                assert "larger than" in error["message"]
    finally:
        await classifier.close()
        await indexer.close()
    assert mesh.classifier.turns == []


def test_the_edge_bounds_text_no_looser_than_the_mesh() -> None:
    """The classifier and the loop refuse text past services.message_bounds whoever sends
    it; an edge configured looser would forward turns they refuse, so it cannot be."""
    from pydantic import ValidationError

    from services.message_bounds import MessageBounds

    mesh_bounds = MessageBounds()
    assert EdgeSettings(max_message_chars=500).max_message_chars == 500
    for name in ("max_message_chars", "max_history_items", "max_history_chars", "max_history_item_chars"):
        assert getattr(LIMITS, name) == getattr(mesh_bounds, name)
        with pytest.raises(ValidationError):
            EdgeSettings(**{name: getattr(mesh_bounds, name) + 1})
