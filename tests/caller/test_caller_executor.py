"""CallExecutor: concurrency, cancellation and the URL's own query."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.egress import GuardedTransport
from caller_svc.endpoint import EndpointSpec, ParamSpec
from caller_svc.executor import BatchOutcome, CallExecutor, PlannedCall, batch_outcome
from caller_svc.http_caller import ApiCaller
from caller_svc.result_store import ResultStore


@pytest.fixture()
async def executor(redis_client, egress_guard):
    async with httpx.AsyncClient(transport=GuardedTransport(egress_guard)) as http:
        caller = ApiCaller(http, CircuitBreaker(redis_client), timeout_seconds=5, guard=egress_guard)
        yield CallExecutor(caller, ResultStore(redis_client), batch_timeout_seconds=5)


async def test_cancelling_the_batch_cancels_http_calls(executor, test_api) -> None:
    slow = PlannedCall(EndpointSpec("slow_api", "GET", f"{test_api.url}/slow?seconds=3"))
    before = test_api.hits["/slow"]
    batch = asyncio.create_task(executor.run([slow, slow], question="q", lang="en", owner_id="o"))
    # The hit counter lives in the server thread: poll it.
    while test_api.hits["/slow"] < before + 2:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    batch.cancel()
    with pytest.raises(asyncio.CancelledError):
        await batch
    leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    assert leftovers == []


async def test_url_query_is_kept_and_reports_keep_order(executor, test_api, redis_client) -> None:
    echo = EndpointSpec("echo", "GET", f"{test_api.url}/echo?format=json", (ParamSpec("q", "string"),))
    broken = EndpointSpec("broken", "GET", f"{test_api.url}/status/500")
    reports = await executor.run(
        [PlannedCall(broken), PlannedCall(echo, {"q": "tere"})], question="q", lang="en", owner_id="o"
    )
    assert [r.endpoint_name for r in reports] == ["broken", "echo"]
    assert reports[1].result.data["query"] == {"format": "json", "q": "tere"}
    assert reports[0].summary == "The call failed: service unavailable (HTTP 500)."
    assert reports[1].result_id and await redis_client.exists(f"agent_result:{reports[1].result_id}")
    assert batch_outcome(reports) == BatchOutcome.ANSWERED
    assert batch_outcome(reports[:1]) == BatchOutcome.FAILED
