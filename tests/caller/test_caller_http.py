"""ApiCaller and CircuitBreaker against real HTTP servers and a real Redis."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
import redis.asyncio as aioredis

from caller_svc.circuit_breaker import BreakerState, CircuitBreaker
from caller_svc.egress import EgressGuard, GuardedTransport
from caller_svc.endpoint import EndpointSpec, ParamSpec
from caller_svc.http_caller import ApiCaller, breaker_key
from caller_svc.messages import FAILURE_MESSAGES, FailureKind
from caller_svc.params import typed_value

HOLIDAY_PARAMS = (
    ParamSpec("countryIsoCode", "string", True),
    ParamSpec("languageIsoCode", "string", False),
    ParamSpec("validFrom", "date", True),
    ParamSpec("validTo", "date", True),
)
TYPED_PARAMS = (
    ParamSpec("count", "integer"),
    ParamSpec("ratio", "number"),
    ParamSpec("flag", "boolean"),
    ParamSpec("word", "string"),
)


@dataclass
class GuardedHttp:
    client: httpx.AsyncClient
    guard: EgressGuard


@pytest.fixture()
async def http(egress_guard: EgressGuard) -> AsyncIterator[GuardedHttp]:
    async with httpx.AsyncClient(transport=GuardedTransport(egress_guard)) as client:
        yield GuardedHttp(client, egress_guard)


class FakeClock:
    """Breaker time that moves only when a test says so (no sleeps, no flakiness under load)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_caller(
    http: GuardedHttp,
    redis: aioredis.Redis | None,
    *,
    threshold: int = 3,
    cooldown: float = 30.0,
    clock: FakeClock | None = None,
    **kw,
) -> tuple[ApiCaller, CircuitBreaker]:
    breaker = CircuitBreaker(
        redis, failure_threshold=threshold, cooldown_seconds=cooldown, clock=clock or FakeClock()
    )
    return ApiCaller(http.client, breaker, guard=http.guard, **kw), breaker


def endpoint(url: str, method: str = "GET", params: tuple[ParamSpec, ...] = TYPED_PARAMS) -> EndpointSpec:
    return EndpointSpec(name="test_endpoint", method=method, url=url, params=params)


# One endpoint whose answer the test chooses: /status/{code} (one breaker key, its URL).
FAIL = {"code": "500"}
RECOVER = {"code": "200"}


def flappy_endpoint(base_url: str) -> EndpointSpec:
    return endpoint(f"{base_url}/status/{{code}}", params=(ParamSpec("code", "string", True, ""),))


async def test_get_holidays_from_the_demo_api(http, redis_client, demo_api_url) -> None:
    caller, _ = make_caller(http, redis_client)
    spec = EndpointSpec("get_national_holidays", "GET", f"{demo_api_url}/PublicHolidays", HOLIDAY_PARAMS)
    result = await caller.call(
        spec,
        {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31", "sneaky": "x"},
        "en",
    )
    assert result.success and result.status_code == 200 and result.error_message is None
    assert len(result.data) == 12
    assert result.data[0]["startDate"] == "2026-01-01"
    assert result.duration_ms >= 0


async def test_get_sends_typed_declared_params_only(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client)
    result = await caller.call(
        endpoint(f"{test_api.url}/echo"),
        {"count": "5", "ratio": "2.5", "flag": "jah", "word": " hello ", "unknown": "dropped", "extra": ""},
        "en",
    )
    assert result.success
    assert result.data["query"] == {"count": "5", "ratio": "2.5", "flag": "true", "word": "hello"}


async def test_post_sends_a_typed_json_body(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client)
    result = await caller.call(
        endpoint(f"{test_api.url}/echo", "POST"),
        {"count": "2026", "ratio": "0.5", "flag": "false", "word": "tere", "unknown": "dropped"},
        "en",
    )
    assert result.success
    assert result.data["method"] == "POST"
    assert result.data["json"] == {"count": 2026, "ratio": 0.5, "flag": False, "word": "tere"}
    assert result.data["query"] == {}


def test_typed_values() -> None:
    assert typed_value("2026", "integer") == 2026
    assert typed_value("2026.0", "integer") == 2026
    assert typed_value("twenty", "integer") == "twenty"
    assert typed_value("1.5", "number") == 1.5
    assert typed_value("inf", "number") == "inf"
    assert typed_value("YES", "boolean") is True
    assert typed_value("ei", "boolean") is False
    assert typed_value("maybe", "boolean") == "maybe"
    assert typed_value("2026-01-01", "date") == "2026-01-01"


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_client_error_keeps_the_body(http, redis_client, demo_api_url, lang) -> None:
    caller, breaker = make_caller(http, redis_client)
    spec = EndpointSpec("get_national_holidays", "GET", f"{demo_api_url}/PublicHolidays", HOLIDAY_PARAMS)
    result = await caller.call(spec, {"countryIsoCode": "EE", "validTo": "2026-12-31"}, lang)
    assert not result.success
    assert result.status_code == 400
    assert result.failure == FailureKind.CLIENT_ERROR
    assert result.error_message == FAILURE_MESSAGES[FailureKind.CLIENT_ERROR][lang]
    assert "validFrom" in result.data["errors"]
    assert await breaker.state(breaker_key(spec.url)) == BreakerState.CLOSED


async def test_server_error(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client)
    result = await caller.call(endpoint(f"{test_api.url}/status/503"), {}, "et")
    assert (result.success, result.status_code, result.data) == (False, 503, "")
    assert result.failure == FailureKind.SERVICE_UNAVAILABLE
    assert result.error_message == "Teenus ei ole praegu kättesaadav. Palun proovige hiljem uuesti."


async def test_timeout(http, redis_client, test_api) -> None:
    # The API answers only after 5 s: the 1 s timeout fires first however loaded the machine.
    caller, _ = make_caller(http, redis_client, timeout_seconds=1)
    result = await caller.call(endpoint(f"{test_api.url}/slow?seconds=5"), {}, "ru")
    assert (result.success, result.status_code, result.failure) == (False, 0, FailureKind.SERVICE_TIMEOUT)
    assert result.error_message == FAILURE_MESSAGES[FailureKind.SERVICE_TIMEOUT]["ru"]


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "The service is currently unavailable. Please try again later."),
        ("et", "Teenus ei ole praegu kättesaadav. Palun proovige hiljem uuesti."),
        ("ru", "Сервис сейчас недоступен. Пожалуйста, попробуйте позже."),
    ],
)
async def test_refused_connection_is_unavailable_not_a_timeout(
    http, redis_client, closed_port_url, lang, message
) -> None:
    caller, _ = make_caller(http, redis_client)
    result = await caller.call(endpoint(f"{closed_port_url}/anything"), {}, lang)
    assert (result.success, result.status_code, result.failure) == (False, 0, FailureKind.SERVICE_UNAVAILABLE)
    assert result.error_message == message


async def test_redirect_is_not_followed(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client)
    echoes_before = test_api.hits["/echo"]
    result = await caller.call(endpoint(f"{test_api.url}/redirect"), {}, "en")
    assert (result.success, result.status_code, result.failure) == (
        False,
        302,
        FailureKind.REDIRECT_NOT_FOLLOWED,
    )
    assert result.data == ""
    assert "redirect" in (result.error_message or "")
    assert test_api.hits["/echo"] == echoes_before


async def test_oversized_response_is_refused(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client, max_response_bytes=10_000)
    result = await caller.call(endpoint(f"{test_api.url}/big?bytes=50000"), {}, "en")
    assert not result.success and result.failure == FailureKind.RESPONSE_TOO_LARGE
    small = await caller.call(endpoint(f"{test_api.url}/big?bytes=2000"), {}, "en")
    assert small.success and len(small.data) == 1001


async def test_plain_text_body(http, redis_client, test_api) -> None:
    caller, _ = make_caller(http, redis_client)
    result = await caller.call(endpoint(f"{test_api.url}/text"), {}, "en")
    assert result.success and result.data == "plain hello"


async def test_breaker_opens_then_half_opens_then_closes(http, redis_client, test_api) -> None:
    clock = FakeClock()
    caller, breaker = make_caller(http, redis_client, threshold=2, cooldown=30, clock=clock)
    flappy = flappy_endpoint(test_api.url)
    key = breaker_key(flappy.url)
    hits_before = test_api.hits["/status/500"]
    for _ in range(2):
        assert (await caller.call(flappy, FAIL, "en")).failure == FailureKind.SERVICE_UNAVAILABLE
    assert await breaker.state(key) == BreakerState.OPEN
    assert await redis_client.hget(f"atc:breaker:{key}", "state") == "OPEN"
    # Keyed by the endpoint's URL: another endpoint on the same host is not blocked.
    assert (await caller.call(endpoint(f"{test_api.url}/echo"), {}, "en")).success

    blocked = await caller.call(flappy, FAIL, "et")
    assert (blocked.status_code, blocked.failure) == (0, FailureKind.CIRCUIT_BREAKER_OPEN)
    assert blocked.error_message == FAILURE_MESSAGES[FailureKind.CIRCUIT_BREAKER_OPEN]["et"]
    assert test_api.hits["/status/500"] == hits_before + 2

    clock.advance(31)
    # The probe after the cooldown fails: straight back to OPEN.
    assert (await caller.call(flappy, FAIL, "en")).failure == FailureKind.SERVICE_UNAVAILABLE
    assert test_api.hits["/status/500"] == hits_before + 3
    assert (await caller.call(flappy, FAIL, "en")).failure == FailureKind.CIRCUIT_BREAKER_OPEN

    clock.advance(31)
    probe = await caller.call(flappy, RECOVER, "en")
    assert probe.success
    assert await breaker.state(key) == BreakerState.CLOSED
    assert (await caller.call(flappy, RECOVER, "en")).success


async def test_client_errors_never_trip_the_breaker(http, redis_client, test_api) -> None:
    caller, breaker = make_caller(http, redis_client, threshold=2)
    for _ in range(4):
        result = await caller.call(endpoint(f"{test_api.url}/status/404"), {}, "en")
        assert result.failure == FailureKind.CLIENT_ERROR
        assert result.data == {"error": "status 404", "detail": "as requested"}
    assert await breaker.state(breaker_key(f"{test_api.url}/status/404")) == BreakerState.CLOSED


async def test_a_success_resets_the_failure_count(http, redis_client, test_api) -> None:
    caller, breaker = make_caller(http, redis_client, threshold=2)
    flappy = flappy_endpoint(test_api.url)
    await caller.call(flappy, {"code": "502"}, "en")
    await caller.call(flappy, RECOVER, "en")
    await caller.call(flappy, {"code": "502"}, "en")
    assert await breaker.state(breaker_key(flappy.url)) == BreakerState.CLOSED


async def test_replicas_share_the_breaker(http, redis_client, test_api) -> None:
    first, _ = make_caller(http, redis_client, threshold=2)
    second, _ = make_caller(http, redis_client, threshold=2)
    flappy = flappy_endpoint(test_api.url)
    await first.call(flappy, FAIL, "en")
    await second.call(flappy, FAIL, "en")
    blocked = await first.call(flappy, RECOVER, "en")
    assert blocked.failure == FailureKind.CIRCUIT_BREAKER_OPEN


async def test_half_open_lets_one_probe_through(redis_client) -> None:
    now = [1000.0]
    breaker = CircuitBreaker(redis_client, failure_threshold=1, cooldown_seconds=10, clock=lambda: now[0])
    await breaker.record_failure("api.example")
    assert not await breaker.allow("api.example")
    now[0] += 11
    assert await breaker.allow("api.example")
    assert await breaker.state("api.example") == BreakerState.HALF_OPEN
    assert not await breaker.allow("api.example")
    # A probe that never reports back frees the next one after another cooldown.
    now[0] += 11
    assert await breaker.allow("api.example")


async def test_breaker_falls_back_to_process_memory(http, test_api, closed_port_url, caplog) -> None:
    dead_redis = aioredis.Redis.from_url(
        closed_port_url.replace("http", "redis") + "/0", socket_connect_timeout=5
    )
    try:
        clock = FakeClock()
        caller, breaker = make_caller(http, dead_redis, threshold=2, cooldown=30, clock=clock)
        with caplog.at_level(logging.WARNING, logger="atc.caller.breaker"):
            flappy = flappy_endpoint(test_api.url)
            for _ in range(2):
                assert (await caller.call(flappy, FAIL, "en")).status_code == 500
            blocked = await caller.call(flappy, RECOVER, "en")
        assert blocked.failure == FailureKind.CIRCUIT_BREAKER_OPEN
        assert "redis_fallback=True" in caplog.text
        clock.advance(31)
        assert (await caller.call(flappy, RECOVER, "en")).success
        assert await breaker.state(breaker_key(flappy.url)) == BreakerState.CLOSED
    finally:
        await dead_redis.aclose()


ERROR_TABLE = [
    # (path, failure, status_code or None for "the real code", body kept)
    ("/status/404", FailureKind.CLIENT_ERROR, 404, True),
    ("/status/422", FailureKind.CLIENT_ERROR, 422, True),
    ("/status/500", FailureKind.SERVICE_UNAVAILABLE, 500, False),
    ("/status/503", FailureKind.SERVICE_UNAVAILABLE, 503, False),
    ("/redirect", FailureKind.REDIRECT_NOT_FOLLOWED, 302, False),
    ("/slow?seconds=3", FailureKind.SERVICE_TIMEOUT, 0, False),
    ("/big?bytes=4096", FailureKind.RESPONSE_TOO_LARGE, 200, False),
]


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_the_seeds_error_table_in_three_languages(http, test_api, closed_port_url, lang) -> None:
    caller, _ = make_caller(http, None, threshold=100, timeout_seconds=1, max_response_bytes=1024)
    for path, failure, status, body_kept in ERROR_TABLE:
        result = await caller.call(endpoint(f"{test_api.url}{path}"), {}, lang)
        assert (result.success, result.failure, result.status_code) == (False, failure, status), path
        assert result.error_message == FAILURE_MESSAGES[failure][lang]
        assert (result.data != "") is body_kept, path
    refused = await caller.call(endpoint(f"{closed_port_url}/x"), {}, lang)
    assert (refused.failure, refused.status_code, refused.data) == (FailureKind.SERVICE_UNAVAILABLE, 0, "")
    open_caller, _ = make_caller(http, None, threshold=1)
    await open_caller.call(flappy_endpoint(test_api.url), FAIL, lang)
    blocked = await open_caller.call(flappy_endpoint(test_api.url), RECOVER, lang)
    assert (blocked.failure, blocked.status_code) == (FailureKind.CIRCUIT_BREAKER_OPEN, 0)
    assert blocked.error_message == FAILURE_MESSAGES[FailureKind.CIRCUIT_BREAKER_OPEN][lang]
