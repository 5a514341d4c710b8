"""LoopService through real gRPC servers: the loop server from build_server and a
small in-process CallerService double that reports what it was asked."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
import redis.asyncio as aioredis
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from devtools.redis_server import EmbeddedRedis, free_port
from loop_svc.app import build_server
from loop_svc.settings import LoopSettings
from services import result_sketch
from services.clients import LoopClient
from services.errors import InvalidArgument, PermissionDenied
from services.message_bounds import MessageBounds
from services.result_sketch import sketch_of
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE
from services.runtime.server import GrpcServer, ServiceMount
from services.runtime.status import error_info

HOLIDAYS = catalogue_pb2.Endpoint(
    endpoint_id="a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2",
    name="get_public_holidays",
    description="Fetch national holidays for a specific country.",
    method="GET",
    url="https://openholidaysapi.org/PublicHolidays",
    visibility="public",
    type="custom_endpoint",
    params=[
        catalogue_pb2.EndpointParam(
            name="countryIsoCode",
            type="string",
            required=True,
            description="The 2-letter ISO country code (e.g., EE for Estonia, DE for Germany)",
        ),
        catalogue_pb2.EndpointParam(
            name="languageIsoCode", type="string", description="The 2-letter ISO language code (e.g., ET, EN)"
        ),
        catalogue_pb2.EndpointParam(name="validFrom", type="date", required=True, description="Start date"),
        catalogue_pb2.EndpointParam(name="validTo", type="date", required=True, description="End date"),
    ],
    cacheable=True,
)
VOTINGS = catalogue_pb2.Endpoint(
    name="get_parliament_votings",
    url="https://api.example.org/votings",
    params=[catalogue_pb2.EndpointParam(name="year", type="integer", required=False)],
)
QUESTION_EN = "Which dates should I look up? Please give a start and end date (YYYY-MM-DD)."


class CallerDouble(caller_pb2_grpc.CallerServiceServicer):
    """Streams back one CallOutcome per call, a token with the params it got, and End."""

    def __init__(self) -> None:
        self.requests: list[caller_pb2.ExecuteCallsRequest] = []
        self.hang_after_first_token = False
        self.cancelled = asyncio.Event()
        # A result id on each outcome (with its CachedResult: lifetime and row sketch, as
        # the caller streams them), and a stream that stays open after End until
        # cancelled, as a slow caller's may.
        self.result_id = ""
        self.hold_after_end = False
        # GetResult calls: the loop reads no body back to write its cache.
        self.result_reads = 0

    async def ExecuteCalls(
        self, request: caller_pb2.ExecuteCallsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[caller_pb2.ExecuteCallsResponse]:
        self.requests.append(request)
        for call in request.calls:
            outcome = turn_event_pb2.CallOutcome(
                endpoint_name=call.endpoint.name, success=True, http_status=200, result_id=self.result_id
            )
            kept = (
                caller_pb2.CachedResult(
                    ttl=duration_pb2.Duration(seconds=600),
                    sketch=result_sketch.to_proto(sketch_of({"holidays": 12})),
                )
                if self.result_id
                else None
            )
            yield caller_pb2.ExecuteCallsResponse(
                event=turn_event_pb2.TurnEvent(call_outcome=outcome), cached_result=kept
            )
        received = {c.endpoint.name: dict(c.params) for c in request.calls}
        token = turn_event_pb2.Token(
            text=json.dumps(received, sort_keys=True), kind=turn_event_pb2.TOKEN_KIND_ANSWER
        )
        yield caller_pb2.ExecuteCallsResponse(event=turn_event_pb2.TurnEvent(token=token))
        if self.hang_after_first_token:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        end = turn_event_pb2.End(
            outcome=turn_event_pb2.TURN_OUTCOME_ANSWERED,
            workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
            llm_calls=2,
        )
        yield caller_pb2.ExecuteCallsResponse(event=turn_event_pb2.TurnEvent(end=end))
        if self.hold_after_end:
            await asyncio.Event().wait()

    async def GetResult(
        self, request: caller_pb2.GetResultRequest, context: grpc.aio.ServicerContext
    ) -> caller_pb2.GetResultResponse:
        self.result_reads += 1
        stored = caller_pb2.StoredResult(
            result_id=request.result_id, owner_id=request.owner_id, response_json='{"holidays": 12}'
        )
        return caller_pb2.GetResultResponse(result=stored)


@dataclass
class Mesh:
    loop: loop_pb2_grpc.LoopServiceStub
    caller: CallerDouble
    redis: aioredis.Redis
    client: LoopClient


async def _start_loop(redis_url: str, caller_target: str) -> GrpcServer:
    settings = LoopSettings(
        host="127.0.0.1", port=0, redis_url=redis_url, caller_target=caller_target, grace_seconds=0.5
    )
    server = await build_server(settings)
    await server.start()
    return server


@pytest.fixture()
async def mesh(redis_server: EmbeddedRedis, redis_client: aioredis.Redis) -> AsyncIterator[Mesh]:
    double = CallerDouble()
    caller_server = GrpcServer(
        [
            ServiceMount.of(
                caller_pb2, "CallerService", caller_pb2_grpc.add_CallerServiceServicer_to_server, double
            )
        ],
        grace_seconds=0.5,
    )
    await caller_server.start()
    loop_server = await _start_loop(redis_server.url, caller_server.address)
    channel = grpc.aio.insecure_channel(loop_server.address)
    try:
        yield Mesh(loop_pb2_grpc.LoopServiceStub(channel), double, redis_client, LoopClient(channel))
    finally:
        await channel.close()
        await loop_server.stop(0.5)
        await caller_server.stop(0.5)


def _turn(
    chat_id: str,
    message: str,
    *endpoints: catalogue_pb2.Endpoint,
    resume: bool = False,
    language: int = chat_pb2.LANGUAGE_UNSPECIFIED,
) -> loop_pb2.RunTurnRequest:
    return loop_pb2.RunTurnRequest(
        turn=chat_pb2.ChatTurn(chat_id=chat_id, message=message, owner_id="citizen-1", request_id="req-1"),
        endpoints=list(endpoints),
        language=language,
        resume_session=resume,
    )


async def _events(stub: loop_pb2_grpc.LoopServiceStub, request: loop_pb2.RunTurnRequest) -> list:
    return [response.event async for response in stub.RunTurn(request)]


def _kinds(events: list) -> list[str]:
    return [e.WhichOneof("kind") for e in events]


async def test_two_turn_holidays_scenario(mesh: Mesh) -> None:
    original = "What are the public holidays in Estonia?"
    first = await _events(mesh.loop, _turn("chat-1", original, HOLIDAYS))

    assert first[0].question.endpoint_names == ["get_public_holidays"]
    assert list(first[0].question.missing_params) == ["validFrom", "validTo"]
    tokens = [e.token for e in first[1:-1]]
    assert len(tokens) > 1 and all(t.kind == turn_event_pb2.TOKEN_KIND_QUESTION for t in tokens)
    assert "".join(t.text for t in tokens) == QUESTION_EN
    assert first[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_NEEDS_INPUT
    assert first[-1].end.workflow == turn_event_pb2.WORKFLOW_API_TOOL_CALLING
    assert first[-1].end.llm_calls == 0
    stored = json.loads(await mesh.redis.get("session:chat-1"))
    assert stored["language"] == "en" and stored["original_query"] == original
    assert stored["collected"] == {"get_public_holidays": {"countryIsoCode": "EE"}}
    assert 0 < await mesh.redis.ttl("session:chat-1") <= 1800

    get = loop_pb2.GetSessionRequest(chat_id="chat-1", owner_id="citizen-1")
    session = (await mesh.loop.GetSession(get)).session
    assert session.state == loop_pb2.SESSION_STATE_COLLECTING_PARAMS
    assert session.language == chat_pb2.LANGUAGE_EN and session.turn_count == 1 and session.max_turns == 5
    assert dict(session.collected["get_public_holidays"].values) == {"countryIsoCode": "EE"}
    assert session.endpoints[0] == HOLIDAYS

    # A fresh chat sees none of chat-1's values (its country is the citizen's own: the
    # description's example names Estonia; the period is still asked).
    other = await _events(mesh.loop, _turn("chat-2", "Which public holidays are there?", HOLIDAYS))
    assert list(other[0].question.missing_params) == ["validFrom", "validTo"]
    other_session = json.loads(await mesh.redis.get("session:chat-2"))
    assert other_session["collected"] == {"get_public_holidays": {"countryIsoCode": "EE"}}

    second = await _events(mesh.loop, _turn("chat-1", "2026-01-01 to 2026-12-31", resume=True))
    assert _kinds(second) == ["progress", "call_outcome", "token", "end"]
    assert second[0].progress.stage == "params_complete"
    assert list(second[0].progress.endpoint_names) == ["get_public_holidays"]
    assert json.loads(second[2].token.text) == {
        "get_public_holidays": {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"}
    }
    assert second[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert second[-1].end.llm_calls == 2  # the caller's, plus none of ours

    (request,) = mesh.caller.requests
    assert request.user_query == original
    assert request.language == chat_pb2.LANGUAGE_EN
    assert request.chat_id == "chat-1" and request.owner_id == "citizen-1"
    assert request.calls[0].endpoint == HOLIDAYS
    assert await mesh.redis.exists("session:chat-1") == 0
    assert await mesh.redis.exists("session:chat-2") == 1


async def test_estonian_session_keeps_its_language_for_short_replies(mesh: Mesh) -> None:
    first = await _events(mesh.loop, _turn("chat-et", "Millised on Eesti riigipühad?", HOLIDAYS))
    question = "".join(e.token.text for e in first if e.HasField("token"))
    assert question == "Milliste kuupäevade kohta otsin? Palun anna algus- ja lõppkuupäev (AAAA-KK-PP)."
    second = await _events(mesh.loop, _turn("chat-et", "2026", resume=True))
    assert second[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    (request,) = mesh.caller.requests
    assert request.language == chat_pb2.LANGUAGE_ET
    assert request.user_query == "Millised on Eesti riigipühad?"
    assert dict(request.calls[0].params) == {
        "countryIsoCode": "EE",
        "validFrom": "2026-01-01",
        "validTo": "2026-12-31",
    }


async def test_endpoint_without_required_params_is_called_at_once(mesh: Mesh) -> None:
    events = await _events(mesh.loop, _turn("chat-fast", "Parliament votings in 2025", VOTINGS))
    assert _kinds(events) == ["progress", "call_outcome", "token", "end"]
    assert json.loads(events[2].token.text) == {"get_parliament_votings": {"year": "2025"}}
    assert await mesh.redis.exists("session:chat-fast") == 0


async def test_declined_continuation_abandons_in_russian(mesh: Mesh) -> None:
    request = _turn("chat-ru", "Какие праздники в Эстонии?", HOLIDAYS, language=chat_pb2.LANGUAGE_RU)
    await _events(mesh.loop, request)
    await _events(mesh.loop, _turn("chat-ru", "не знаю", resume=True))
    third = await _events(mesh.loop, _turn("chat-ru", "потом", resume=True))
    assert "".join(e.token.text for e in third if e.HasField("token")).endswith("Продолжим? (да/нет)")
    session = (
        await mesh.loop.GetSession(loop_pb2.GetSessionRequest(chat_id="chat-ru", owner_id="citizen-1"))
    ).session
    assert session.state == loop_pb2.SESSION_STATE_AWAITING_CONTINUATION
    last = await _events(mesh.loop, _turn("chat-ru", "нет", resume=True))
    assert last[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ABANDONED
    # No answer text: the classifier answers the original query from the knowledge base.
    assert not any(e.HasField("token") for e in last)
    assert last[-1].end.fallback_query == "Какие праздники в Эстонии?"
    assert await mesh.redis.exists("session:chat-ru") == 0
    assert mesh.caller.requests == []


async def _status_of(call) -> tuple[grpc.StatusCode, error_details_pb2.ErrorInfo | None]:  # type: ignore[no-untyped-def]
    from grpc_status import _async as rpc_status_async

    try:
        await call
    except grpc.aio.AioRpcError as error:
        status = await rpc_status_async.from_call(call)
        return error.code(), error_info(status) if status is not None else None
    raise AssertionError("the call succeeded")


async def _stream_status(stub, request):  # type: ignore[no-untyped-def]
    call = stub.RunTurn(request)

    async def drain() -> None:
        async for _ in call:
            pass

    from grpc_status import _async as rpc_status_async

    try:
        await drain()
    except grpc.aio.AioRpcError as error:
        status = await rpc_status_async.from_call(call)
        return error.code(), error_info(status) if status is not None else None
    raise AssertionError("the call succeeded")


async def test_invalid_requests_name_the_field(mesh: Mesh) -> None:
    code, info = await _stream_status(mesh.loop, _turn("chat-v", "   ", HOLIDAYS))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert info is not None and info.reason == "EMPTY_FIELD" and info.metadata["field"] == "turn.message"

    code, info = await _stream_status(mesh.loop, _turn("", "hello", HOLIDAYS))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and info is not None
    assert info.metadata["field"] == "turn.chat_id"

    code, info = await _stream_status(mesh.loop, _turn("chat-v", "holidays in Estonia"))
    assert (
        code == grpc.StatusCode.INVALID_ARGUMENT
        and info is not None
        and info.metadata["field"] == "endpoints"
    )

    code, info = await _stream_status(mesh.loop, _turn("chat-none", "2026", resume=True))
    assert code == grpc.StatusCode.NOT_FOUND and info is not None and info.reason == "SESSION_NOT_FOUND"

    # A role this build does not know (an open enum: a newer client's) is bad input, not INTERNAL.
    unknown_role = _turn("chat-v", "holidays in Estonia", HOLIDAYS)
    unknown_role.turn.conversation_history.add(role=9, content="hi")  # type: ignore[arg-type]
    code, info = await _stream_status(mesh.loop, unknown_role)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and info is not None
    assert info.metadata["field"] == "turn.conversation_history[0].role"

    # Text past the mesh's bounds (services.message_bounds) is refused before any reader
    # sees it, whoever sent it: the edge refuses it too, a client that skips the edge is here.
    bounds = MessageBounds()
    too_long = _turn("chat-v", "holidays in Estonia " * (bounds.max_message_chars // 20 + 1), HOLIDAYS)
    code, info = await _stream_status(mesh.loop, too_long)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and info is not None
    assert info.reason == "TOO_LONG" and info.metadata["field"] == "turn.message"
    long_history = _turn("chat-v", "holidays in Estonia", HOLIDAYS)
    for _ in range(bounds.max_history_items + 1):
        long_history.turn.conversation_history.add(role=chat_pb2.CHAT_ROLE_USER, content="hi")
    code, info = await _stream_status(mesh.loop, long_history)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and info is not None
    assert info.reason == "TOO_LONG" and info.metadata["field"] == "turn.conversation_history"
    long_item = _turn("chat-v", "holidays in Estonia", HOLIDAYS)
    long_item.turn.conversation_history.add(role=chat_pb2.CHAT_ROLE_USER, content="hi")
    long_item.turn.conversation_history.add(
        role=chat_pb2.CHAT_ROLE_ASSISTANT, content="x" * (bounds.max_history_item_chars + 1)
    )
    code, info = await _stream_status(mesh.loop, long_item)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and info is not None
    assert info.metadata["field"] == "turn.conversation_history[1].content"

    code, info = await _status_of(mesh.loop.GetSession(loop_pb2.GetSessionRequest(chat_id="chat-none")))
    assert code == grpc.StatusCode.NOT_FOUND and info is not None and info.reason == "SESSION_NOT_FOUND"
    code, info = await _status_of(mesh.loop.GetSession(loop_pb2.GetSessionRequest(chat_id="")))
    assert (
        code == grpc.StatusCode.INVALID_ARGUMENT and info is not None and info.metadata["field"] == "chat_id"
    )
    code, info = await _status_of(mesh.loop.DeleteSession(loop_pb2.DeleteSessionRequest(chat_id="")))
    assert (
        code == grpc.StatusCode.INVALID_ARGUMENT and info is not None and info.metadata["field"] == "chat_id"
    )


async def test_delete_session(mesh: Mesh) -> None:
    await _events(mesh.loop, _turn("chat-d", "Holidays in Latvia", HOLIDAYS))
    delete = loop_pb2.DeleteSessionRequest(chat_id="chat-d", owner_id="citizen-1")
    assert (await mesh.loop.DeleteSession(delete)).deleted is True
    assert (await mesh.loop.DeleteSession(delete)).deleted is False
    assert await mesh.redis.exists("session:chat-d") == 0


async def test_other_owner_cannot_resume(mesh: Mesh) -> None:
    await _events(mesh.loop, _turn("chat-o", "Holidays in Latvia", HOLIDAYS))
    request = _turn("chat-o", "2026", resume=True)
    request.turn.owner_id = "someone-else"
    code, info = await _stream_status(mesh.loop, request)
    # Refused as another owner's (the edge answers 403), and the session stays theirs.
    assert (
        code == grpc.StatusCode.PERMISSION_DENIED and info is not None and info.reason == "OWNED_BY_ANOTHER"
    )
    assert await mesh.redis.exists("session:chat-o") == 1


async def test_other_owner_cannot_read_or_delete(mesh: Mesh) -> None:
    await _events(mesh.loop, _turn("chat-p", "Holidays in Latvia", HOLIDAYS))
    for owner in ("someone-else", ""):
        for call in (
            mesh.loop.GetSession(loop_pb2.GetSessionRequest(chat_id="chat-p", owner_id=owner)),
            mesh.loop.DeleteSession(loop_pb2.DeleteSessionRequest(chat_id="chat-p", owner_id=owner)),
        ):
            code, info = await _status_of(call)
            assert code == grpc.StatusCode.PERMISSION_DENIED and info is not None
            assert info.reason == "OWNED_BY_ANOTHER"
    assert await mesh.redis.exists("session:chat-p") == 1


async def test_client_cancel_cancels_the_caller(mesh: Mesh) -> None:
    mesh.caller.hang_after_first_token = True
    call = mesh.loop.RunTurn(_turn("chat-c", "Holidays in Estonia in 2026", HOLIDAYS))
    seen = []
    async for response in call:
        seen.append(response.event.WhichOneof("kind"))
        if seen[-1] == "token":
            break
    call.cancel()
    await asyncio.wait_for(mesh.caller.cancelled.wait(), timeout=10)
    assert seen == ["progress", "call_outcome", "token"]


async def test_unreachable_caller_fails_the_turn_politely(
    redis_server: EmbeddedRedis, redis_client: aioredis.Redis
) -> None:
    server = await _start_loop(redis_server.url, f"127.0.0.1:{free_port()}")
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = loop_pb2_grpc.LoopServiceStub(channel)
            events = await _events(
                stub, _turn("chat-f", "Eesti riigipühad 2026", HOLIDAYS, language=chat_pb2.LANGUAGE_ET)
            )
    finally:
        await server.stop(0.5)
    assert _kinds(events)[0] == "progress" and _kinds(events)[-2:] == ["error", "end"]
    apology = "".join(e.token.text for e in events if e.HasField("token"))
    assert apology == TEMPORARILY_UNAVAILABLE["et"]
    assert events[-2].error.code == grpc.StatusCode.UNAVAILABLE.value[0]
    assert error_info(events[-2].error).reason == "TEMPORARILY_UNAVAILABLE"
    assert "caller" not in events[-2].error.message.lower()
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED
    # Kept for a retry: "try again" must find the chat still asking its question.
    assert await redis_client.exists("session:chat-f") == 1


async def test_redis_stopped_mid_conversation_then_back() -> None:
    """Redis goes away between two turns: a localized answer, the session is not
    lost, and the next turn continues once Redis is back on the same port."""
    port = free_port()
    workdir_redis = EmbeddedRedis(port=port).start()
    caller = GrpcServer([], grace_seconds=0.5)
    await caller.start()
    server = await _start_loop(workdir_redis.url, caller.address)
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = loop_pb2_grpc.LoopServiceStub(channel)
            start = _turn("chat-r", "Eesti riigipühad", HOLIDAYS, language=chat_pb2.LANGUAGE_ET)
            first = await _events(stub, start)
            assert first[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_NEEDS_INPUT
            workdir_redis.stop()
            down = await _events(stub, _turn("chat-r", "2026", resume=True))
            assert "".join(e.token.text for e in down if e.HasField("token")) == TEMPORARILY_UNAVAILABLE["en"]
            assert error_info(down[-2].error).reason == "TEMPORARILY_UNAVAILABLE"
            assert down[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED
            workdir_redis = EmbeddedRedis(port=port).start()
            # The embedded server keeps nothing on disk: the chat starts over and works.
            again = await _events(stub, start)
            assert again[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_NEEDS_INPUT
    finally:
        await server.stop(0.5)
        await caller.stop(0.5)
        workdir_redis.stop()


async def test_session_of_another_owner_is_neither_read_nor_deleted(mesh: Mesh) -> None:
    await _events(mesh.loop, _turn("chat-p", "Holidays in Latvia", HOLIDAYS))
    for call in (
        mesh.loop.GetSession(loop_pb2.GetSessionRequest(chat_id="chat-p", owner_id="someone-else")),
        mesh.loop.DeleteSession(loop_pb2.DeleteSessionRequest(chat_id="chat-p", owner_id="someone-else")),
        # The owner in metadata (set by the edge) must match the body's.
        mesh.loop.GetSession(
            loop_pb2.GetSessionRequest(chat_id="chat-p", owner_id="citizen-1"),
            metadata=(("x-atc-owner", "someone-else"),),
        ),
    ):
        code, info = await _status_of(call)
        assert code == grpc.StatusCode.PERMISSION_DENIED and info is not None
        assert info.reason in ("OWNED_BY_ANOTHER", "OWNER_MISMATCH")
    assert await mesh.redis.exists("session:chat-p") == 1


async def test_a_new_turn_never_replaces_another_owners_session(mesh: Mesh) -> None:
    await _events(mesh.loop, _turn("chat-q", "Holidays in Latvia", HOLIDAYS))
    before = await mesh.redis.get("session:chat-q")
    request = _turn("chat-q", "Holidays in Estonia", HOLIDAYS)
    request.turn.owner_id = "someone-else"
    code, info = await _stream_status(mesh.loop, request)
    assert code == grpc.StatusCode.PERMISSION_DENIED and info is not None
    assert info.reason == "OWNED_BY_ANOTHER"
    assert await mesh.redis.get("session:chat-q") == before


async def test_chat_state_is_the_session_else_the_follow_up_verdict_in_one_read(mesh: Mesh) -> None:
    """The classifier's one read of a chat per turn: the session under way; with none, the
    verdict on the message about the chat's last call; no session is no error here."""
    empty = await mesh.loop.ChatState(loop_pb2.ChatStateRequest(chat_id="chat-s", owner_id="citizen-1"))
    assert not empty.HasField("session") and not empty.HasField("follow_up")

    # The last call answered (its context cached), no session: the message gets a verdict.
    mesh.caller.result_id = "result-s"
    await _events(mesh.loop, _turn("chat-s", "holidays 2026-01-01 2026-12-31 EE", HOLIDAYS))
    state = await mesh.loop.ChatState(
        loop_pb2.ChatStateRequest(
            chat_id="chat-s", owner_id="citizen-1", message="and in Latvia?", language=chat_pb2.LANGUAGE_EN
        )
    )
    assert not state.HasField("session")
    assert state.follow_up.kind == loop_pb2.FOLLOW_UP_KIND_PARAM_UPDATE
    assert state.follow_up.endpoint.name == "get_public_holidays"
    assert state.follow_up.updated_params["countryIsoCode"] == "LV"

    # A session under way is the state, and no verdict is made beside it.
    await _events(mesh.loop, _turn("chat-s2", "Holidays in Latvia", HOLIDAYS))
    state = await mesh.loop.ChatState(
        loop_pb2.ChatStateRequest(chat_id="chat-s2", owner_id="citizen-1", message="2027")
    )
    assert state.session.endpoints[0] == HOLIDAYS and not state.HasField("follow_up")

    # Another owner's chat is refused, and a missing chat id named.
    code, info = await _status_of(
        mesh.loop.ChatState(loop_pb2.ChatStateRequest(chat_id="chat-s2", owner_id="someone-else"))
    )
    assert (
        code == grpc.StatusCode.PERMISSION_DENIED and info is not None and info.reason == "OWNED_BY_ANOTHER"
    )
    code, info = await _status_of(mesh.loop.ChatState(loop_pb2.ChatStateRequest(chat_id=" ", message="x")))
    assert (
        code == grpc.StatusCode.INVALID_ARGUMENT and info is not None and info.metadata["field"] == "chat_id"
    )


async def test_the_typed_client_returns_domain_answers_and_raises_mesh_errors(mesh: Mesh) -> None:
    assert await mesh.client.get_session("chat-c", owner_id="citizen-1") is None
    await _events(mesh.loop, _turn("chat-c", "Holidays in Latvia", HOLIDAYS))
    session = await mesh.client.get_session("chat-c", owner_id="citizen-1")
    assert session is not None and session.endpoints[0] == HOLIDAYS
    state = await mesh.client.chat_state("chat-c", owner_id="citizen-1", message="2027", language="en")
    assert state.session.chat_id == "chat-c"
    with pytest.raises(PermissionDenied):
        await mesh.client.chat_state("chat-c", owner_id="someone-else")
    with pytest.raises(InvalidArgument) as bad:
        await mesh.client.delete_session("", owner_id="citizen-1")
    assert bad.value.field == "chat_id"
    assert await mesh.client.delete_session("chat-c", owner_id="citizen-1") is True
    assert await mesh.client.delete_session("chat-c", owner_id="citizen-1") is False


async def test_the_cache_is_written_when_end_arrives(mesh: Mesh) -> None:
    # The next message may be a follow-up on this answer, sent the moment End arrives:
    # the turn's cache is written before End goes out (a write still running behind End
    # lost that race under load). Every hop above the loop stops reading at End and may
    # cancel; the caller's stream may stay open a while after End.
    mesh.caller.result_id = "result-1"
    mesh.caller.hold_after_end = True
    call = mesh.loop.RunTurn(_turn("chat-cache", "holidays 2026-01-01 2026-12-31 EE", HOLIDAYS))
    async for response in call:
        if response.event.HasField("end"):
            break
    stored = json.loads(await mesh.redis.get("atc:last:chat-cache") or "[]")
    l2_ttl = await mesh.redis.ttl("atc:last:chat-cache")
    call.cancel()
    assert [c["api_name"] for c in stored] == ["get_public_holidays"]
    # The result's id and the sketch of its rows, never its body (nor a GetResult to read it).
    assert stored[0]["result_id"] == "result-1" and "raw_response" not in stored[0]
    assert stored[0]["sketch"]["keys"] == ["holidays"] and stored[0]["sketch"]["has_numbers"]
    assert mesh.caller.result_reads == 0
    # Neither tier outlives the result it names (600 s left in the caller's store).
    assert 0 < l2_ttl <= 600
    (l1_key,) = [k async for k in mesh.redis.scan_iter("atc:cache:chat-cache:*")]
    assert json.loads(await mesh.redis.get(l1_key))["result_id"] == "result-1"
    assert 0 < await mesh.redis.ttl(l1_key) <= 600


async def test_each_endpoint_reads_its_own_part_of_a_two_request_message(mesh: Mesh) -> None:
    """RunTurnRequest.endpoint_queries: the day of the prices' part is not the holidays'."""
    prices = catalogue_pb2.Endpoint(
        name="get_electricity_prices",
        params=[
            catalogue_pb2.EndpointParam(name="start", type="datetime", required=True, description="Start"),
            catalogue_pb2.EndpointParam(name="end", type="datetime", required=True, description="End"),
        ],
    )
    tomorrow = "the electricity prices tomorrow"
    holiday = "is 24 dec a public holiday in latvia"
    request = _turn("chat-two", f"{tomorrow}, and {holiday}?", prices, HOLIDAYS)
    request.endpoint_queries.extend([tomorrow, holiday])
    events = await _events(mesh.loop, request)
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    (sent,) = mesh.caller.requests
    params = {c.endpoint.name: dict(c.params) for c in sent.calls}
    holidays = params["get_public_holidays"]
    assert holidays["countryIsoCode"] == "LV"
    # The yes/no about one day asks for the week around it (the nearest rows when none is on it).
    assert holidays["validFrom"].endswith("-12-17") and holidays["validTo"].endswith("-12-31")
    assert "-12-24" not in params["get_electricity_prices"]["start"]  # tomorrow's, in the citizen's day


VOTINGS_LIMITED = catalogue_pb2.Endpoint(
    name="get_parliament_votings",
    url="https://api.example.org/votings",
    params=[
        catalogue_pb2.EndpointParam(
            name="limit",
            type="integer",
            required=False,
            description="How many of the most recent votings to return (1-100, default 10)",
        )
    ],
)


@pytest.mark.parametrize(
    "message",
    ["give me the {n} latest votes", "näita {n} viimast hääletust", "выведи {n} последних голосований"],
)
@pytest.mark.parametrize("n", [0, 101, 150, 500, 999])
async def test_a_count_past_the_range_is_explained_and_the_nearest_end_called(
    mesh: Mesh, message: str, n: int
) -> None:
    """A number past the documented 1–100 is brought to the nearest end and the range is
    said before the answer, in the turn's stream (it once failed the whole turn as
    'temporarily unavailable')."""
    events = await _events(mesh.loop, _turn(f"chat-clamp-{n}", message.format(n=n), VOTINGS_LIMITED))
    kinds = _kinds(events)
    assert kinds[-1] == "end" and "error" not in kinds
    text = "".join(e.token.text for e in events if e.WhichOneof("kind") == "token")
    assert "1" in text and "100" in text and str(n) in text
    assert mesh.caller.requests[-1].calls[0].params["limit"] == ("1" if n < 1 else "100")
