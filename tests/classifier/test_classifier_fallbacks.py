"""RouteTurn's fallbacks through real gRPC servers: the classifier over a scripted
LoopService (a real aio server on port 0) and scripted catalogue/knowledge searches."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import ClassVar

import grpc
import pytest

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import chat_pb2, turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from classifier_svc.candidates import ActiveSession
from classifier_svc.router import Router
from classifier_svc.servicer import ClassifierServicer
from services.language import LanguageDetector
from services.message_bounds import MessageBounds
from services.runtime.server import GrpcServer, ServiceMount
from tests.classifier.layer_support import Scripted, Sessions, cand, matcher, passage
from tests.classifier.test_classifier_layers import POLICY

KNOWLEDGE = {
    "renew my id card": [
        passage(
            "id-card.en",
            0.93,
            title="Renewing an ID card",
            section="How to apply",
            text="Renew your ID card in the self-service portal of the PPA.",
        )
    ]
}
ABANDONED = turn_event_pb2.TurnEvent(
    end=turn_event_pb2.End(
        outcome=turn_event_pb2.TURN_OUTCOME_ABANDONED,
        workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
        fallback_query="How do I renew my ID card?",
        llm_calls=2,
    )
)


def token(text: str) -> turn_event_pb2.TurnEvent:
    return turn_event_pb2.TurnEvent(
        token=turn_event_pb2.Token(text=text, kind=turn_event_pb2.TOKEN_KIND_ANSWER)
    )


class ScriptedLoop(loop_pb2_grpc.LoopServiceServicer):
    """Each message names the events the loop streams back."""

    SCRIPTS: ClassVar[dict[str, list[turn_event_pb2.TurnEvent]]] = {
        "no": [ABANDONED],
        "nothing known": [
            turn_event_pb2.TurnEvent(
                end=turn_event_pb2.End(
                    outcome=turn_event_pb2.TURN_OUTCOME_ABANDONED, fallback_query="Who won the world cup?"
                )
            )
        ],
        # An older loop that already told the user it stopped: it owns the turn.
        "already said": [token("OK, I stopped."), ABANDONED],
        "A1234567": [
            turn_event_pb2.TurnEvent(
                progress=turn_event_pb2.Progress(
                    stage="calling", workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING
                )
            ),
            token("Ready for pickup."),
            turn_event_pb2.TurnEvent(
                end=turn_event_pb2.End(
                    outcome=turn_event_pb2.TURN_OUTCOME_ANSWERED,
                    workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
                )
            ),
        ],
    }

    async def RunTurn(self, request, context):  # type: ignore[no-untyped-def]
        for event in self.SCRIPTS[request.turn.message]:
            yield loop_pb2.RunTurnResponse(event=event)


@dataclass
class Mesh:
    classifier: classifier_pb2_grpc.ClassifierServiceStub

    async def turn(self, chat_id: str, message: str) -> list[turn_event_pb2.TurnEvent]:
        call = self.classifier.RouteTurn(
            classifier_pb2.RouteTurnRequest(turn=chat_pb2.ChatTurn(chat_id=chat_id, message=message)),
            timeout=30,
        )
        return [response.event async for response in call]


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


@pytest.fixture()
async def mesh(detector: LanguageDetector) -> AsyncIterator[Mesh]:
    loop_server = grpc.aio.server()
    loop_pb2_grpc.add_LoopServiceServicer_to_server(ScriptedLoop(), loop_server)
    loop_port = loop_server.add_insecure_port("127.0.0.1:0")
    await loop_server.start()
    sessions = Sessions(
        {
            "api": ActiveSession("api", ("get_national_holidays",), "en"),
            "svc": ActiveSession("svc", ("check_document_application_status",), "en", is_service=True),
        }
    )
    router = Router(
        matcher(Scripted({"holidays": [cand("get_national_holidays", 0.9)]})),
        sessions,
        detector,
        POLICY,
        knowledge=Scripted(KNOWLEDGE),
    )
    broken = Router(matcher(Scripted()), Sessions(fail=True), detector, POLICY, knowledge=Scripted(KNOWLEDGE))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{loop_port}") as loop_channel:
        loop = loop_pb2_grpc.LoopServiceStub(loop_channel)
        add = classifier_pb2_grpc.add_ClassifierServiceServicer_to_server
        # The services' own server skeleton: its interceptor maps what the servicer raises.
        classifier_server = GrpcServer(
            [ServiceMount.of(classifier_pb2, "ClassifierService", add, ClassifierServicer(router, loop, 30))]
        )
        broken_server = GrpcServer(
            [ServiceMount.of(classifier_pb2, "ClassifierService", add, ClassifierServicer(broken, loop, 30))]
        )
        port = await classifier_server.start()
        broken_port = await broken_server.start()
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel,
            grpc.aio.insecure_channel(f"127.0.0.1:{broken_port}") as broken_channel,
        ):
            mesh = Mesh(classifier_pb2_grpc.ClassifierServiceStub(channel))
            mesh.broken = Mesh(classifier_pb2_grpc.ClassifierServiceStub(broken_channel))  # type: ignore[attr-defined]
            yield mesh
        await classifier_server.stop(0)
        await broken_server.stop(0)
    await loop_server.stop(0)


def kinds(events: list[turn_event_pb2.TurnEvent]) -> list[str]:
    return [str(e.WhichOneof("kind")) for e in events]


def text(events: list[turn_event_pb2.TurnEvent]) -> str:
    return "".join(e.token.text for e in events if e.HasField("token"))


async def test_an_abandoned_loop_falls_back_to_rag_with_the_original_query(mesh: Mesh) -> None:
    # Max turns reached or "no" to the continuation question: the loop ends ABANDONED
    # with the session's original query and no answer of its own.
    events = await mesh.turn("api", "no")
    assert kinds(events)[-2:] == ["sources", "end"]
    fallback = [e.progress for e in events if e.HasField("progress")]
    assert [p.stage for p in fallback] == ["classified", "fallback"]
    assert fallback[1].workflow == turn_event_pb2.WORKFLOW_RAG
    assert "the loop gave up" in fallback[1].detail
    sources = next(e.sources for e in events if e.HasField("sources"))
    assert [(s.title, s.url) for s in sources.sources] == [
        ("Renewing an ID card", "https://example.test/id-card.en")
    ]
    assert "self-service portal" in text(events)
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert events[-1].end.workflow == turn_event_pb2.WORKFLOW_RAG
    assert events[-1].end.llm_calls == 2  # the loop's calls still count
    assert kinds(events).count("end") == 1


async def test_an_abandoned_loop_with_nothing_in_the_knowledge_base_is_out_of_domain(mesh: Mesh) -> None:
    events = await mesh.turn("api", "nothing known")
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_OUT_OF_DOMAIN
    assert text(events).startswith("I'm sorry")


async def test_a_loop_that_already_answered_owns_the_turn(mesh: Mesh) -> None:
    events = await mesh.turn("api", "already said")
    assert text(events) == "OK, I stopped."
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ABANDONED
    assert "sources" not in kinds(events)


async def test_a_service_turn_is_reported_as_the_service_workflow(mesh: Mesh) -> None:
    events = await mesh.turn("svc", "A1234567")
    assert {e.progress.workflow for e in events if e.HasField("progress")} == {
        turn_event_pb2.WORKFLOW_SERVICE
    }
    assert events[-1].end.workflow == turn_event_pb2.WORKFLOW_SERVICE
    assert text(events) == "Ready for pickup."


async def test_a_classifier_error_is_answered_from_the_knowledge_base(mesh: Mesh) -> None:
    events = await mesh.broken.turn("any", "How do I renew my ID card?")  # type: ignore[attr-defined]
    assert events[0].progress.workflow == turn_event_pb2.WORKFLOW_RAG
    assert "classifier error" in events[0].progress.detail
    assert "self-service portal" in text(events)
    assert events[-1].end.workflow == turn_event_pb2.WORKFLOW_RAG


class SessionsDown(loop_pb2_grpc.LoopServiceServicer):
    """A loop whose session store does not answer (Redis stopped or hung)."""

    async def ChatState(self, request, context):  # type: ignore[no-untyped-def]
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the session store is unavailable")


async def test_a_failed_session_lookup_is_try_again_never_no_session(detector: LanguageDetector) -> None:
    """Turn 2 of a chat under way while valkey was stopped got the out-of-domain reply:
    an unknown session was read as none. Now it is the localized "try again"."""
    from classifier_svc.adapters import LoopSessionDirectory
    from services.clients import LoopClient
    from services.runtime.citizen import TEMPORARILY_UNAVAILABLE

    loop_server = GrpcServer(
        [
            ServiceMount.of(
                loop_pb2, "LoopService", loop_pb2_grpc.add_LoopServiceServicer_to_server, SessionsDown()
            )
        ]
    )
    await loop_server.start()
    try:
        async with grpc.aio.insecure_channel(loop_server.address) as loop_channel:
            loop = loop_pb2_grpc.LoopServiceStub(loop_channel)
            router = Router(
                matcher(Scripted()),
                LoopSessionDirectory(LoopClient(loop_channel), 5),
                detector,
                POLICY,
                knowledge=Scripted(KNOWLEDGE),
            )
            add = classifier_pb2_grpc.add_ClassifierServiceServicer_to_server
            server = GrpcServer(
                [
                    ServiceMount.of(
                        classifier_pb2, "ClassifierService", add, ClassifierServicer(router, loop, 30)
                    )
                ]
            )
            await server.start()
            try:
                async with grpc.aio.insecure_channel(server.address) as channel:
                    mesh = Mesh(classifier_pb2_grpc.ClassifierServiceStub(channel))
                    events = await mesh.turn("chat-under-way", "Jah, 12. märts sobib mulle hästi")
            finally:
                await server.stop(0)
    finally:
        await loop_server.stop(0)
    text = "".join(e.token.text for e in events if e.HasField("token"))
    assert text == TEMPORARILY_UNAVAILABLE["et"]
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED
    assert not any(
        e.end.outcome == turn_event_pb2.TURN_OUTCOME_OUT_OF_DOMAIN for e in events if e.HasField("end")
    )
    assert "session" not in events[-2].error.message and "UNAVAILABLE" not in events[-2].error.message


async def test_text_past_the_mesh_bounds_is_refused_naming_the_field(mesh: Mesh) -> None:
    """The edge's bounds (services.message_bounds) hold for a client that skips the edge:
    INVALID_ARGUMENT with reason TOO_LONG before any reader sees the text."""
    from grpc_status import _async as rpc_status_async

    from services.runtime.status import error_info

    bounds = MessageBounds()
    long_message = chat_pb2.ChatTurn(
        chat_id="long", message="holidays " * (bounds.max_message_chars // 9 + 1)
    )
    long_history = chat_pb2.ChatTurn(chat_id="long", message="holidays")
    long_history.conversation_history.add(role=chat_pb2.CHAT_ROLE_USER, content="hi")
    long_history.conversation_history.add(
        role=chat_pb2.CHAT_ROLE_ASSISTANT, content="x" * (bounds.max_history_item_chars + 1)
    )
    for turn, field in [
        (long_message, "turn.message"),
        (long_history, "turn.conversation_history[1].content"),
    ]:
        call = mesh.classifier.RouteTurn(classifier_pb2.RouteTurnRequest(turn=turn), timeout=30)
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            async for _ in call:
                pass
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        status = await rpc_status_async.from_call(call)
        info = error_info(status) if status is not None else None
        assert info is not None and info.reason == "TOO_LONG" and info.metadata["field"] == field
