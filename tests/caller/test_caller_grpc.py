"""CallerService through a real in-process gRPC server, real HTTP APIs and Redis."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis
from google.protobuf import json_format
from grpc_status import rpc_status

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from caller_svc.app import build_server
from caller_svc.registry import StaticEndpointRegistry
from caller_svc.settings import CallerSettings
from devtools.demo_apis.catalogue import load_catalogue
from devtools.redis_server import EmbeddedRedis
from services.runtime.status import error_info
from tests.caller.conftest import allow_list_setting


class CatalogueIndexer(indexer_pb2_grpc.IndexerServiceServicer):
    """A real IndexerService answering GetEndpoint from the demo catalogue (no embeddings needed)."""

    def __init__(self, base_url: str) -> None:
        self._endpoints = {
            body["endpointId"]: json_format.ParseDict(
                body, catalogue_pb2.Endpoint(), ignore_unknown_fields=True
            )
            for body in load_catalogue(base_url)
        }

    def register(self, **fields: Any) -> catalogue_pb2.Endpoint:
        """Add an endpoint of the test's own (an id is made up when it has none)."""
        endpoint = catalogue_pb2.Endpoint(**fields)
        if not endpoint.endpoint_id:
            endpoint.endpoint_id = str(uuid.uuid4())
        self._endpoints[endpoint.endpoint_id] = endpoint
        return endpoint

    async def ListEndpoints(self, request, context):  # type: ignore[no-untyped-def]
        # One page: the caller lists the catalogue at start (its cache for indexer outages).
        return indexer_pb2.ListEndpointsResponse(endpoints=list(self._endpoints.values()))

    async def GetEndpoint(self, request, context):  # type: ignore[no-untyped-def]
        endpoint = self._endpoints.get(request.endpoint_id)
        if endpoint is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, "no such endpoint")
        return indexer_pb2.GetEndpointResponse(endpoint=endpoint)


@pytest.fixture()
def catalogue(demo_api_url) -> CatalogueIndexer:
    return CatalogueIndexer(demo_api_url)


@pytest.fixture()
async def indexer_target(catalogue: CatalogueIndexer) -> AsyncIterator[str]:
    server = grpc.aio.server()
    indexer_pb2_grpc.add_IndexerServiceServicer_to_server(catalogue, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)


@pytest.fixture()
async def stub(
    redis_server: EmbeddedRedis,
    redis_client: aioredis.Redis,
    indexer_target: str,
    demo_api_url: str,
    test_api,
    closed_port_url: str,
) -> AsyncIterator[caller_pb2_grpc.CallerServiceStub]:
    settings = CallerSettings(
        port=0,
        redis_url=redis_server.url,
        http_timeout_seconds=5,
        # Long enough for the demo API on a loaded machine; the slow test API outlasts it.
        batch_timeout_seconds=2,
        breaker_failure_threshold=3,
        egress_allow=allow_list_setting(demo_api_url, test_api.url, closed_port_url),
        indexer_target=indexer_target,
        stream_chunk_delay_seconds=0,
    )
    server = await build_server(settings)
    await server.start()
    channel = grpc.aio.insecure_channel(server.address)
    try:
        yield caller_pb2_grpc.CallerServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(0)


def catalogue_endpoint(base_url: str, name: str) -> catalogue_pb2.Endpoint:
    """The endpoint as the catalogue has it (labels included), as the loop sends it."""
    body = next(b for b in load_catalogue(base_url) if b["name"] == name)
    return json_format.ParseDict(body, catalogue_pb2.Endpoint(), ignore_unknown_fields=True)


def holidays_call(base_url: str, **overrides: str) -> caller_pb2.EndpointCall:
    params = {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31", **overrides}
    return caller_pb2.EndpointCall(
        endpoint=catalogue_endpoint(base_url, "get_national_holidays"), params=params
    )


async def collect(stub: caller_pb2_grpc.CallerServiceStub, **request: Any) -> list[turn_event_pb2.TurnEvent]:
    return [r.event async for r in stub.ExecuteCalls(caller_pb2.ExecuteCallsRequest(**request))]


def kinds(events: list[turn_event_pb2.TurnEvent]) -> list[str]:
    collapsed: list[str] = []
    for event in events:
        kind = event.WhichOneof("kind")
        if not collapsed or collapsed[-1] != kind:
            collapsed.append(kind)
    return collapsed


def answer(events: list[turn_event_pb2.TurnEvent]) -> str:
    return "".join(e.token.text for e in events if e.WhichOneof("kind") == "token")


async def test_execute_calls_streams_progress_outcomes_tokens_end(stub, demo_api_url) -> None:
    votings = caller_pb2.EndpointCall(endpoint=catalogue_endpoint(demo_api_url, "get_parliament_votings"))
    events = await collect(
        stub,
        calls=[holidays_call(demo_api_url), votings],
        user_query="Public holidays in Estonia and the latest votings?",
        language=chat_pb2.LANGUAGE_ET,
        owner_id="alice",
        chat_id="chat-1",
    )
    assert kinds(events) == ["progress", "call_outcome", "token", "end"]
    progress = events[0].progress
    assert progress.stage == "calling"
    assert list(progress.endpoint_names) == ["get_national_holidays", "get_parliament_votings"]
    assert progress.workflow == turn_event_pb2.WORKFLOW_API_TOOL_CALLING
    outcomes = [e.call_outcome for e in events if e.WhichOneof("kind") == "call_outcome"]
    assert [o.endpoint_name for o in outcomes] == ["get_national_holidays", "get_parliament_votings"]
    assert all(o.success and o.http_status == 200 and o.result_id for o in outcomes)
    assert outcomes[0].summary.startswith("The API returned a list. 12 items, each with ")
    assert "Dates range from 2026-01-01" in outcomes[0].summary
    assert all(e.token.kind == turn_event_pb2.TOKEN_KIND_ANSWER for e in events if e.HasField("token"))
    text = answer(events)
    assert text.startswith("Siin on vastused teie 2 päringule:")
    assert "1. Riigipühad — Eesti, 2026. 12 tulemust:" in text
    assert "• uusaasta — 1. jaanuar 2026" in text
    assert "2. Riigikogu hääletused." in text and "poolt 53, vastu 38" in text
    end = events[-1].end
    assert end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert end.workflow == turn_event_pb2.WORKFLOW_API_TOOL_CALLING
    assert end.llm_calls == 0


async def test_result_ids_lead_to_stored_results(stub, demo_api_url) -> None:
    events = await collect(
        stub,
        calls=[holidays_call(demo_api_url)],
        user_query="Holidays?",
        language=chat_pb2.LANGUAGE_EN,
        owner_id="alice",
    )
    outcome = next(e.call_outcome for e in events if e.HasField("call_outcome"))
    stored = (
        await stub.GetResult(caller_pb2.GetResultRequest(result_id=outcome.result_id, owner_id="alice"))
    ).result
    assert stored.endpoint_name == "get_national_holidays"
    assert stored.question == "Holidays?"
    assert stored.summary == outcome.summary
    assert stored.owner_id == "alice"
    assert len(json.loads(stored.response_json)) == 12

    with pytest.raises(grpc.aio.AioRpcError) as denied:
        await stub.GetResult(caller_pb2.GetResultRequest(result_id=outcome.result_id, owner_id="mallory"))
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error_info(rpc_status.from_call(denied.value)).reason == "RESULT_ACCESS_DENIED"


async def test_get_result_not_found(stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await stub.GetResult(
            caller_pb2.GetResultRequest(result_id="7d0f3c9e-8a41-4b2e-9c55-0e6f1a2b3c4d", owner_id="alice")
        )
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == "Result expired. Ask the user to re-run the query."
    assert error_info(rpc_status.from_call(missing.value)).reason == "RESULT_EXPIRED"


async def test_empty_calls_are_invalid(stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await collect(stub, calls=[], user_query="?")
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(rpc_status.from_call(invalid.value))
    assert info.metadata["field"] == "calls"


async def test_endpoint_without_url_or_method_is_invalid(catalogue, stub, demo_api_url) -> None:
    no_url = caller_pb2.EndpointCall(endpoint=catalogue.register(name="no_url", method="GET"))
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await collect(stub, calls=[holidays_call(demo_api_url), no_url])
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(rpc_status.from_call(invalid.value)).metadata["field"] == "calls[1].endpoint.url"

    no_method = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="no_method", url=f"{demo_api_url}/x")
    )
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await collect(stub, calls=[no_method])
    assert error_info(rpc_status.from_call(invalid.value)).metadata["field"] == "calls[0].endpoint.method"


async def test_execute_calls_calls_only_registered_endpoints(catalogue, stub, demo_api_url, test_api) -> None:
    """ExecuteCalls (the path chats use) resolves every call by endpoint_id: the request's
    URL is never called (a stored session's old port neither), an unknown id is refused,
    and a private endpoint is only for a signed-in owner."""
    hijacked = holidays_call(demo_api_url)
    hijacked.endpoint.url = f"{test_api.url}/echo"
    before = test_api.hits["/echo"]
    events = await collect(stub, calls=[hijacked], language=chat_pb2.LANGUAGE_EN)
    outcome = next(e.call_outcome for e in events if e.HasField("call_outcome"))
    assert outcome.success and outcome.http_status == 200
    assert test_api.hits["/echo"] == before

    for call, code, reason in (
        (
            caller_pb2.EndpointCall(
                endpoint=catalogue_pb2.Endpoint(
                    endpoint_id=str(uuid.uuid4()), name="x", method="GET", url=f"{test_api.url}/echo"
                )
            ),
            grpc.StatusCode.NOT_FOUND,
            "ENDPOINT_NOT_REGISTERED",
        ),
        (
            caller_pb2.EndpointCall(
                endpoint=catalogue_pb2.Endpoint(name="x", method="GET", url=f"{test_api.url}/echo")
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await collect(stub, calls=[call])
        assert refused.value.code() == code
        assert error_info(rpc_status.from_call(refused.value)).reason == reason
    assert test_api.hits["/echo"] == before

    private = caller_pb2.EndpointCall(
        endpoint=catalogue.register(
            name="my_data", method="GET", url=f"{test_api.url}/echo", visibility="private"
        )
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await collect(stub, calls=[private], owner_id="anon:someone")
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error_info(rpc_status.from_call(refused.value)).reason == "ENDPOINT_PRIVATE"
    assert test_api.hits["/echo"] == before
    events = await collect(stub, calls=[private], owner_id="user:alice")
    assert next(e.call_outcome for e in events if e.HasField("call_outcome")).success
    assert test_api.hits["/echo"] == before + 1


async def test_partial_failure_still_answers(catalogue, stub, demo_api_url, test_api) -> None:
    broken = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="get_weather", method="GET", url=f"{test_api.url}/status/503")
    )
    events = await collect(
        stub, calls=[holidays_call(demo_api_url), broken], language=chat_pb2.LANGUAGE_EN, owner_id="bob"
    )
    outcomes = [e.call_outcome for e in events if e.HasField("call_outcome")]
    assert [(o.success, o.http_status) for o in outcomes] == [(True, 200), (False, 503)]
    assert outcomes[1].result_id == ""
    text = answer(events)
    assert "1. Public holidays — Estonia, 2026. 12 results:" in text
    assert "2. Weather: The service is currently unavailable. Please try again later." in text
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED


async def test_all_failed(catalogue, stub, test_api) -> None:
    broken = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="get_weather", method="GET", url=f"{test_api.url}/status/500")
    )
    events = await collect(stub, calls=[broken], language=chat_pb2.LANGUAGE_RU)
    assert answer(events) == "Результат запроса: Сервис сейчас недоступен. Пожалуйста, попробуйте позже."
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_FAILED


async def test_batch_timeout_reports_a_timeout(catalogue, stub, demo_api_url, test_api) -> None:
    slow = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="slow_api", method="GET", url=f"{test_api.url}/slow?seconds=6")
    )
    events = await collect(stub, calls=[slow, holidays_call(demo_api_url)], language=chat_pb2.LANGUAGE_EN)
    outcomes = [e.call_outcome for e in events if e.HasField("call_outcome")]
    assert [(o.endpoint_name, o.success, o.http_status) for o in outcomes] == [
        ("slow_api", False, 0),
        ("get_national_holidays", True, 200),
    ]
    assert "The service did not respond in time." in answer(events)


async def test_a_short_incoming_deadline_still_delivers_every_outcome(
    redis_server: EmbeddedRedis, redis_client: aioredis.Redis, demo_api_url, test_api, catalogue
) -> None:
    # The batch setting is generous; the caller's deadline (6 s) is what limits the calls,
    # and the service keeps a share of it (here 40 %, at least 1 s) to report them: the
    # demo API has 3.6 s to answer, the slow one never answers in time.
    settings = CallerSettings(
        port=0,
        redis_url=redis_server.url,
        batch_timeout_seconds=30,
        egress_allow=allow_list_setting(demo_api_url, test_api.url),
        reply_margin_fraction=0.4,
        reply_margin_min_seconds=1,
        stream_chunk_delay_seconds=0,
    )
    slow = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="slow_api", method="GET", url=f"{test_api.url}/slow?seconds=10")
    )
    registry = StaticEndpointRegistry([slow.endpoint, holidays_call(demo_api_url).endpoint])
    server = await build_server(settings, registry=registry)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            request = caller_pb2.ExecuteCallsRequest(
                calls=[slow, holidays_call(demo_api_url)], language=chat_pb2.LANGUAGE_EN
            )
            call = caller_pb2_grpc.CallerServiceStub(channel).ExecuteCalls(request, timeout=6)
            events = [r.event async for r in call]
    finally:
        await server.stop(0)
    outcomes = [
        (e.call_outcome.endpoint_name, e.call_outcome.success) for e in events if e.HasField("call_outcome")
    ]
    assert outcomes == [("slow_api", False), ("get_national_holidays", True)]
    assert events[-1].HasField("end")


def _echo_call(catalogue, test_api, **fields: Any) -> caller_pb2.EndpointCall:
    endpoint = catalogue.register(
        name="echo_api", method="GET", url=f"{test_api.url}/echo", answer_titles={"en": "Echo"}
    )
    return caller_pb2.EndpointCall(endpoint=endpoint, **fields)


async def _responses(stub, **request: Any) -> list[caller_pb2.ExecuteCallsResponse]:
    return [r async for r in stub.ExecuteCalls(caller_pb2.ExecuteCallsRequest(**request))]


def _outcome(responses: list[caller_pb2.ExecuteCallsResponse]) -> caller_pb2.ExecuteCallsResponse:
    return next(r for r in responses if r.event.HasField("call_outcome"))


async def test_a_cached_result_is_answered_from_the_store(catalogue, stub, test_api, redis_client) -> None:
    """A response cache hit names a result this caller stored (cached_result_id): no HTTP
    call, the same result id back (nothing stored twice), the answer reported as cached."""
    first = await _responses(
        stub, calls=[_echo_call(catalogue, test_api)], language=chat_pb2.LANGUAGE_EN, owner_id="alice"
    )
    hits = test_api.hits["/echo"]
    live = _outcome(first)
    result_id = live.event.call_outcome.result_id
    assert live.event.call_outcome.success and result_id
    # Beside the outcome: the stored result's lifetime and its rows' sketch, not its body.
    assert 3590 <= live.cached_result.ttl.seconds <= 3600
    # the deprecated field still says the same for a loop of the previous release
    assert live.cached_result.ttl_seconds == live.cached_result.ttl.seconds
    assert {"method", "query"} <= set(live.cached_result.sketch.keys)

    call = _echo_call(catalogue, test_api, cached_result_id=result_id)
    again = await _responses(stub, calls=[call], language=chat_pb2.LANGUAGE_EN, owner_id="alice")
    assert test_api.hits["/echo"] == hits
    events = [r.event for r in again]
    assert events[0].progress.stage == "cached"
    hit = _outcome(again)
    assert hit.event.call_outcome.success and hit.event.call_outcome.result_id == result_id
    assert 0 < hit.cached_result.ttl.seconds <= live.cached_result.ttl.seconds
    assert answer(events) == answer([r.event for r in first])
    assert events[-1].end.outcome == turn_event_pb2.TURN_OUTCOME_CACHED
    assert len([k async for k in redis_client.scan_iter("agent_result:*")]) == 1


@pytest.mark.parametrize("case", ["another_owner", "expired", "another_endpoint", "old_body_field"])
async def test_a_cached_result_that_cannot_be_used_is_a_miss(
    case: str, catalogue, stub, test_api, redis_client, demo_api_url
) -> None:
    """A result id of another owner, one that expired, one of another endpoint — or the
    deprecated cached_response_json (no longer read) — is a miss, never an error nor
    someone else's body: the call is made, under a new result id of the asking owner."""
    owner = "alice"
    if case == "another_owner":
        first = await _responses(stub, calls=[_echo_call(catalogue, test_api)], owner_id="mallory")
        named = _outcome(first).event.call_outcome.result_id
    elif case == "expired":
        named = str(uuid.uuid4())
    elif case == "another_endpoint":
        first = await _responses(stub, calls=[holidays_call(demo_api_url)], owner_id=owner)
        named = _outcome(first).event.call_outcome.result_id
    else:
        named = ""
    fields: dict[str, Any] = (
        {"cached_result_id": named} if named else {"cached_response_json": '{"forged": 1}'}
    )
    hits = test_api.hits["/echo"]
    responses = await _responses(stub, calls=[_echo_call(catalogue, test_api, **fields)], owner_id=owner)
    outcome = _outcome(responses).event.call_outcome
    assert test_api.hits["/echo"] == hits + 1
    assert outcome.success and outcome.result_id and outcome.result_id != named
    assert responses[-1].event.end.outcome == turn_event_pb2.TURN_OUTCOME_ANSWERED
    assert "forged" not in answer([r.event for r in responses])
    stored = await stub.GetResult(caller_pb2.GetResultRequest(result_id=outcome.result_id, owner_id=owner))
    assert json.loads(stored.result.response_json)["method"] == "GET"


async def test_call_endpoint_refuses_a_cached_result(catalogue, stub, test_api) -> None:
    call = _echo_call(catalogue, test_api, cached_result_id=str(uuid.uuid4()))
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=call, owner_id="alice"))
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(rpc_status.from_call(invalid.value)).metadata["field"] == "call.cached_result_id"


async def test_call_endpoint(stub, demo_api_url) -> None:
    call = caller_pb2.EndpointCall(
        endpoint=catalogue_endpoint(demo_api_url, "get_vehicle_tax_info"),
        params={"regNr": "123ABC", "calculationYear": "2026"},
    )
    response = await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=call, owner_id="alice"))
    assert response.outcome.success and response.outcome.http_status == 200
    body = json.loads(response.response_json)
    assert body["regNr"] == "123ABC" and body["calculationYear"] == 2026
    assert response.error_message == ""
    stored = await stub.GetResult(
        caller_pb2.GetResultRequest(result_id=response.outcome.result_id, owner_id="alice")
    )
    assert json.loads(stored.result.response_json) == body


async def test_call_endpoint_client_error_keeps_body(stub, demo_api_url) -> None:
    call = caller_pb2.EndpointCall(
        endpoint=catalogue_endpoint(demo_api_url, "get_vehicle_tax_info"),
        params={"regNr": "ABC", "calculationYear": "2026"},
    )
    response = await stub.CallEndpoint(
        caller_pb2.CallEndpointRequest(call=call, language=chat_pb2.LANGUAGE_ET, owner_id="alice")
    )
    assert not response.outcome.success and response.outcome.http_status == 404
    assert json.loads(response.response_json)["title"] == "Vehicle not found"
    assert response.error_message.startswith("Teenus ei saanud päringut töödelda.")
    assert response.outcome.result_id
    # No owner, nothing stored: a result nobody owns could be read by anybody.
    anonymous = await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=call))
    assert anonymous.outcome.http_status == 404 and anonymous.outcome.result_id == ""


async def test_call_endpoint_calls_only_registered_endpoints(stub, demo_api_url, test_api) -> None:
    # A registered id with another URL: the catalogue's URL is called, not the request's.
    hijacked = holidays_call(demo_api_url)
    hijacked.endpoint.url = f"{test_api.url}/echo"
    before = test_api.hits["/echo"]
    response = await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=hijacked, owner_id="alice"))
    assert response.outcome.success and len(json.loads(response.response_json)) == 12
    assert test_api.hits["/echo"] == before

    unregistered = caller_pb2.EndpointCall(
        endpoint=catalogue_pb2.Endpoint(
            endpoint_id="0b6f1f9e-1111-4c1e-9a53-0c8e2f6b1d42",
            name="x",
            method="GET",
            url=f"{test_api.url}/echo",
        )
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=unregistered))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(rpc_status.from_call(refused.value)).reason == "ENDPOINT_NOT_REGISTERED"

    anonymous = caller_pb2.EndpointCall(
        endpoint=catalogue_pb2.Endpoint(name="x", method="GET", url=f"{test_api.url}/echo")
    )
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await stub.CallEndpoint(caller_pb2.CallEndpointRequest(call=anonymous))
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(rpc_status.from_call(invalid.value)).metadata["field"] == "call.endpoint.endpoint_id"
    assert test_api.hits["/echo"] == before


async def test_guardrails_block_injected_instructions_and_strip_markup(catalogue, stub, test_api) -> None:
    injected = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="get_events", method="GET", url=f"{test_api.url}/injection")
    )
    events = await collect(stub, calls=[injected], language=chat_pb2.LANGUAGE_ET, owner_id="alice")
    assert (
        answer(events)
        == "Sain teenuselt vastuse, kuid seda ei saa turvaliselt näidata. Palun proovige hiljem uuesti."
    )
    # The call's summary (what call_outcome events, the result store and an LLM see) is
    # held to the same rules: no verbatim instruction-like text.
    summary = next(e.call_outcome.summary for e in events if e.HasField("call_outcome"))
    assert "Ignore" not in summary and "system prompt" not in summary

    broken = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="get_items", method="GET", url=f"{test_api.url}/broken")
    )
    events = await collect(stub, calls=[broken], language=chat_pb2.LANGUAGE_EN, owner_id="alice")
    shown = answer(events) + next(e.call_outcome.summary for e in events if e.HasField("call_outcome"))
    # Invalid JSON is text: summarised and excerpted, never dumped.
    assert "db.internal" not in shown and '{"items"' not in shown
    assert len(answer(events)) < 600

    marked = caller_pb2.EndpointCall(
        endpoint=catalogue.register(name="get_office", method="GET", url=f"{test_api.url}/markup")
    )
    events = await collect(stub, calls=[marked], language=chat_pb2.LANGUAGE_EN, owner_id="alice")
    text = answer(events)
    assert "Title: Office hours" in text and "closed on Mondays" in text
    assert "<" not in text and "javascript:" not in text and "\x1b" not in text
    summary = next(e.call_outcome.summary for e in events if e.HasField("call_outcome"))
    assert "Office" in summary and "<script" not in summary and "\x1b" not in summary
