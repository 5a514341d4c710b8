"""services.clients against real in-process gRPC stand-ins."""

from __future__ import annotations

import asyncio

import pytest

from atc.common.v1 import chat_pb2, turn_event_pb2
from services.clients import ChatTurnInput, ClassifierClient, HistoryMessage, IndexerClient
from services.errors import InvalidArgument, NotFound, Unavailable
from services.runtime.channels import open_channel


def test_chat_turn_input_to_proto() -> None:
    turn = ChatTurnInput(
        chat_id="c1",
        message="Tere",
        language="et",
        history=(HistoryMessage(role="user", content="a"), HistoryMessage(role="assistant", content="b")),
        owner_id="u1",
        request_id="r1",
    ).to_proto()
    assert (turn.chat_id, turn.message, turn.language, turn.owner_id, turn.request_id) == (
        "c1",
        "Tere",
        chat_pb2.LANGUAGE_ET,
        "u1",
        "r1",
    )
    assert [m.role for m in turn.conversation_history] == [
        chat_pb2.CHAT_ROLE_USER,
        chat_pb2.CHAT_ROLE_ASSISTANT,
    ]
    assert ChatTurnInput(chat_id="c", message="x").to_proto().language == chat_pb2.LANGUAGE_UNSPECIFIED


async def test_route_turn_streams_events_and_sends_request_id(mesh) -> None:
    client = ClassifierClient(open_channel(mesh.server.address))
    try:
        events = [
            e async for e in client.route_turn(ChatTurnInput(chat_id="c", message="Estonia", request_id="rq"))
        ]
    finally:
        await client.close()
    assert events[-1].WhichOneof("kind") == "end"
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert mesh.classifier.request_ids == ["rq"]


async def test_closing_the_iterator_between_events_cancels_the_call(mesh) -> None:
    client = ClassifierClient(open_channel(mesh.server.address))
    try:
        events = client.route_turn(ChatTurnInput(chat_id="c", message="hang"))
        first = await anext(events)
        assert first.progress.stage == "hanging"
        await asyncio.wait_for(mesh.classifier.streaming.wait(), 10)
        await events.aclose()
        await asyncio.wait_for(mesh.classifier.cancelled.wait(), 10)
    finally:
        await client.close()


async def test_cancelling_the_consumer_task_cancels_the_call(mesh) -> None:
    client = ClassifierClient(open_channel(mesh.server.address))

    async def consume() -> None:
        async for _ in client.route_turn(ChatTurnInput(chat_id="c", message="hang")):
            pass

    try:
        task = asyncio.create_task(consume())
        await asyncio.wait_for(mesh.classifier.streaming.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(mesh.classifier.cancelled.wait(), 10)
    finally:
        await client.close()


async def test_rpc_errors_become_mesh_errors(mesh) -> None:
    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        with pytest.raises(InvalidArgument) as invalid:
            async for _ in classifier.route_turn(ChatTurnInput(chat_id="c", message="reject")):
                pass
        assert (invalid.value.field, invalid.value.message) == ("turn.message", "message is too long")
        with pytest.raises(Unavailable):
            async for _ in classifier.route_turn(ChatTurnInput(chat_id="c", message="down")):
                pass
        with pytest.raises(NotFound):
            await indexer.get_endpoint("nope")
        classification = await classifier.classify(ChatTurnInput(chat_id="c", message="x"))
        assert classification.confidence == pytest.approx(0.5)
        assert await classifier.health() == "SERVING"
        assert await indexer.health() == "SERVING"
    finally:
        await classifier.close()
        await indexer.close()
