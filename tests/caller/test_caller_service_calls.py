"""Bürokratt service calls and OpenAPI path parameters, against real HTTP servers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.egress import EgressGuard, GuardedTransport
from caller_svc.endpoint import SERVICE_KIND, EndpointSpec, ParamSpec
from caller_svc.http_caller import ApiCaller, fill_path


@pytest.fixture()
async def caller(egress_guard: EgressGuard) -> AsyncIterator[ApiCaller]:
    # The test servers are on loopback: allow-listed exactly, as the demo's are.
    async with httpx.AsyncClient(transport=GuardedTransport(egress_guard)) as client:
        yield ApiCaller(client, CircuitBreaker(None), guard=egress_guard)


async def test_a_service_gets_chat_author_and_entities_in_param_order(caller: ApiCaller, test_api) -> None:
    spec = EndpointSpec(
        "some_service",
        "POST",
        f"{test_api.url}/echo",
        (ParamSpec("first", "string", True), ParamSpec("count", "integer")),
        kind=SERVICE_KIND,
    )
    result = await caller.call(spec, {"count": "3", "first": "A1"}, "en", chat_id="chat-9", author_id="u-1")
    assert result.success
    assert result.data["json"] == {"chatId": "chat-9", "authorId": "u-1", "input": ["A1", 3]}


async def test_the_demo_status_service_answers_in_three_languages(caller: ApiCaller, demo_api_url) -> None:
    spec = EndpointSpec(
        "check_document_application_status",
        "POST",
        f"{demo_api_url}/services/document-application-status",
        (ParamSpec("applicationNumber", "string", True),),
        kind=SERVICE_KIND,
    )
    result = await caller.call(spec, {"applicationNumber": "a 1234-567"}, "et", chat_id="c")
    assert result.success
    assert result.data["applicationNumber"] == "A1234567"
    assert {e["language"] for e in result.data["status"]} == {"EN", "ET", "RU"}
    assert result.data["statusCode"] in {"received", "in_processing", "ready_for_pickup"}
    bad = await caller.call(spec, {"applicationNumber": "not a number"}, "en", chat_id="c")
    assert bad.status_code == 400 and "application number" in str(bad.data)


def test_path_parameters_are_filled_and_quoted() -> None:
    values: dict[str, object] = {"id": "a/b c", "q": "x"}
    assert fill_path("https://api.test/items/{id}/parts", values) == "https://api.test/items/a%2Fb%20c/parts"
    # The value is taken out of the query/body; unknown placeholders stay as they are.
    assert values == {"q": "x"}
    assert fill_path("https://api.test/{missing}", {}) == "https://api.test/{missing}"


async def test_a_path_parameter_reaches_the_path_not_the_query(caller: ApiCaller, test_api) -> None:
    spec = EndpointSpec(
        "status_by_code", "GET", f"{test_api.url}/status/{{code}}", (ParamSpec("code", "integer", True),)
    )
    result = await caller.call(spec, {"code": "404"}, "en")
    assert result.status_code == 404
