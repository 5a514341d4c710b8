"""The response cache's parts: param hashing, L1/L2 in a real Redis, rule-based
follow-up detection in three languages and the shapes of questions about a stored list."""

from __future__ import annotations

import json
import time
from datetime import date

import pytest
import redis.asyncio as aioredis
from google.protobuf import duration_pb2

from atc.caller.v1 import caller_pb2
from loop_svc.cache import LastCallContext, ResponseCache, param_hash
from loop_svc.cache_plan import CachedAnswer, CachePlanner
from loop_svc.execution import Kept
from loop_svc.extraction import RuleExtractor
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.schema import EndpointSpec
from loop_svc.settings import LoopSettings
from loop_svc.shapes import RuleShapeReader
from loop_svc.turns import TurnRequest
from services.answer_shape import Months, Weekdays
from services.result_sketch import sketch_of

YEAR_END = "2027-12-31"
TOMORROW = "2026-03-11"  # conftest's today is 2026-03-10
HOLIDAYS_2026 = {"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"}


def test_param_hash_normalises_like_the_seed() -> None:
    assert param_hash({"year": "2026", "country": "EE"}) == param_hash({"country": "ee", "year": 2026})
    assert param_hash({"country": " EE "}) == param_hash({"country": "ee"})
    assert param_hash({"country": "EE"}) != param_hash({"country": "LV"})
    assert len(param_hash({"a": "b"})) == 16


async def test_l1_and_l2_are_scoped_to_chat_and_owner(
    redis_client: aioredis.Redis, holidays: EndpointSpec
) -> None:
    cache = ResponseCache(redis_client, default_ttl_seconds=600, last_call_ttl_seconds=900)
    await cache.set_l1("chat-1", holidays, HOLIDAYS_2026, "result-1", "owner-a")
    assert await cache.get_l1("chat-1", holidays.name, HOLIDAYS_2026, "owner-a") == "result-1"
    assert await cache.get_l1("chat-1", holidays.name, HOLIDAYS_2026, "owner-b") is None
    assert await cache.get_l1("chat-2", holidays.name, HOLIDAYS_2026, "owner-a") is None
    key = ResponseCache.l1_key("chat-1", holidays.name, HOLIDAYS_2026)
    assert key.startswith("atc:cache:chat-1:get_public_holidays:")
    assert 590 <= await redis_client.ttl(key) <= 600

    context = LastCallContext(
        api_name=holidays.name, endpoint=holidays, collected_params=HOLIDAYS_2026, owner_id="owner-a"
    )
    await cache.set_l2("chat-1", [context])
    assert [c.api_name for c in await cache.get_l2("chat-1", "owner-a")] == [holidays.name]
    assert await cache.get_l2("chat-1", "owner-b") == []
    assert 890 <= await redis_client.ttl("atc:last:chat-1") <= 900
    assert await cache.invalidate_l2("chat-1") is True
    assert await cache.get_l2("chat-1", "owner-a") == []
    assert await cache.get_l1("chat-1", holidays.name, HOLIDAYS_2026, "owner-a") is not None


@pytest.mark.parametrize(("own", "left", "expected"), [(600, 120, 120), (600, 3600, 600), (None, 60, 60)])
async def test_no_entry_outlives_the_result_it_names(
    redis_client: aioredis.Redis, holidays: EndpointSpec, own: int | None, left: int, expected: int
) -> None:
    """Both tiers hold a result id of caller_svc's store: each write is cut to the seconds
    the result has left there (the endpoint's own TTL, or the default, when shorter)."""
    cache = ResponseCache(redis_client, default_ttl_seconds=600, last_call_ttl_seconds=600)
    await cache.set_l1("chat-t", holidays, HOLIDAYS_2026, "result-t", "o", own, result_ttl_seconds=left)
    key = ResponseCache.l1_key("chat-t", holidays.name, HOLIDAYS_2026)
    assert expected - 10 <= await redis_client.ttl(key) <= expected
    context = LastCallContext(api_name=holidays.name, endpoint=holidays, result_id="result-t", owner_id="o")
    await cache.set_l2("chat-t", [context], result_ttl_seconds=left)
    assert min(600, left) - 10 <= await redis_client.ttl(ResponseCache.l2_key("chat-t")) <= min(600, left)


async def test_a_result_with_no_time_left_is_not_cached(
    redis_client: aioredis.Redis, holidays: EndpointSpec
) -> None:
    cache = ResponseCache(redis_client)
    context = LastCallContext(api_name=holidays.name, endpoint=holidays, result_id="r", owner_id="o")
    await cache.set_l2("chat-z", [context])
    await cache.set_l1("chat-z", holidays, HOLIDAYS_2026, "r", "o", result_ttl_seconds=0)
    await cache.set_l2("chat-z", [context], result_ttl_seconds=0)
    assert await cache.get_l1("chat-z", holidays.name, HOLIDAYS_2026, "o") is None
    assert await cache.get_l2("chat-z", "o") == []


async def test_an_entry_holding_a_body_from_before_is_a_miss(
    redis_client: aioredis.Redis, holidays: EndpointSpec
) -> None:
    """L1 entries written before result ids held the body: read as a miss, not as an id."""
    key = ResponseCache.l1_key("chat-old", holidays.name, HOLIDAYS_2026)
    await redis_client.set(key, json.dumps({"owner_id": "o", "response": [{"name": "x"}]}))
    assert await ResponseCache(redis_client).get_l1("chat-old", holidays.name, HOLIDAYS_2026, "o") is None


@pytest.mark.parametrize(
    ("message", "language", "kind", "updated"),
    [
        ("Same for Latvia?", "en", FollowUpKind.PARAM_UPDATE, {"countryIsoCode": "LV"}),
        ("And in Finland?", "en", FollowUpKind.PARAM_UPDATE, {"countryIsoCode": "FI"}),
        ("Aga Soomes?", "et", FollowUpKind.PARAM_UPDATE, {"countryIsoCode": "FI"}),
        ("A mis homme?", "et", FollowUpKind.PARAM_UPDATE, {"validFrom": TOMORROW, "validTo": TOMORROW}),
        ("А в Латвии?", "ru", FollowUpKind.PARAM_UPDATE, {"countryIsoCode": "LV"}),
        ("And in 2027?", "en", FollowUpKind.PARAM_UPDATE, {"validFrom": "2027-01-01", "validTo": YEAR_END}),
        ("Which of those is a bank holiday?", "en", FollowUpKind.RESPONSE_QUESTION, {}),
        ("Millised neist on detsembris?", "et", FollowUpKind.RESPONSE_QUESTION, {}),
        ("Какие из них в декабре?", "ru", FollowUpKind.RESPONSE_QUESTION, {}),
        ("What is the vehicle tax for my car in Tallinn this month?", "en", FollowUpKind.NEW_INTENT, {}),
        ("Same for Estonia?", "en", FollowUpKind.NEW_INTENT, {}),
    ],
)
def test_rule_follow_up_detection(
    extractor: RuleExtractor,
    holidays: EndpointSpec,
    message: str,
    language: str,
    kind: FollowUpKind,
    updated: dict[str, str],
) -> None:
    context = LastCallContext(api_name=holidays.name, endpoint=holidays, collected_params=HOLIDAYS_2026)
    follow = RuleFollowUpDetector(extractor).detect(message, [context], language)  # type: ignore[arg-type]
    assert follow.kind is kind
    assert follow.updated_params == updated


@pytest.mark.parametrize(
    ("message", "language", "condition"),
    [
        ("Which of those are in December?", "en", Months((12,))),
        ("Millised neist on detsembris?", "et", Months((12,))),
        ("Какие из них выпадают на понедельник?", "ru", Weekdays((1,))),
    ],
)
async def test_a_response_question_carries_its_shape_to_the_caller(
    redis_client: aioredis.Redis,
    extractor: RuleExtractor,
    holidays: EndpointSpec,
    message: str,
    language: str,
    condition: object,
) -> None:
    """The stored result's id goes to caller_svc, with the follow-up's filter: the
    caller's answer operations narrow the stored rows (no list surgery in the loop)."""
    cache = ResponseCache(redis_client)
    stored = [{"startDate": "2026-12-24", "name": [{"language": "EN", "text": "Christmas Eve"}]}]
    context = LastCallContext(
        api_name=holidays.name,
        endpoint=holidays,
        collected_params=HOLIDAYS_2026,
        result_id="result-holidays",
        sketch=sketch_of(stored),
    )
    await cache.set_l2("chat-shape", [context])
    shapes = RuleShapeReader(lambda: date(2026, 12, 1))
    planner = CachePlanner(cache, extractor, RuleFollowUpDetector(extractor, shapes), shapes=shapes)
    plan = await planner.plan(TurnRequest("chat-shape", message, [holidays]), language)  # type: ignore[arg-type]
    assert isinstance(plan, CachedAnswer)
    assert plan.result_id == "result-holidays"
    assert [f.condition for f in plan.shape.filters] == [condition]


async def test_the_master_switch_turns_every_read_off(
    redis_client: aioredis.Redis,
    extractor: RuleExtractor,
    holidays: EndpointSpec,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = ResponseCache(redis_client)
    await cache.set_l1("chat-off", holidays, HOLIDAYS_2026, "result-off", "")
    context = LastCallContext(api_name=holidays.name, endpoint=holidays, collected_params=HOLIDAYS_2026)
    await cache.set_l2("chat-off", [context])
    planner = CachePlanner(cache, extractor, RuleFollowUpDetector(extractor), enabled=False)
    request = TurnRequest("chat-off", "Holidays in Estonia in 2026", [holidays])
    assert await planner.plan(request, "en") is None
    assert (await planner.follow_up("chat-off", "", "Same for Latvia?", "en")).kind is FollowUpKind.NEW_INTENT
    enabled = CachePlanner(cache, extractor, RuleFollowUpDetector(extractor))
    assert isinstance(await enabled.plan(request, "en"), CachedAnswer)

    monkeypatch.setenv("ATC_RESPONSE_CACHE_ENABLED", "false")
    assert LoopSettings().response_cache_enabled is False


@pytest.mark.parametrize(
    ("message", "language", "updated"),
    [
        ("sorry, what i actually meant was the holidays of latvia", "en", {"countryIsoCode": "LV"}),
        ("no no, I was asking about the year 2027 of course", "en",
         {"validFrom": "2027-01-01", "validTo": YEAR_END}),
        ("ei, tegelikult mõtlesin ma hoopis Läti pühasid", "et", {"countryIsoCode": "LV"}),
        ("vabandust, ma pidasin silmas ikka 2027. aastat", "et",
         {"validFrom": "2027-01-01", "validTo": YEAR_END}),
        ("ой нет, я имела в виду вообще-то праздники в Латвии", "ru", {"countryIsoCode": "LV"}),
        ("не, я спрашивал про 2027 год, а не про этот", "ru",
         {"validFrom": "2027-01-01", "validTo": YEAR_END}),
    ],
)  # fmt: skip
def test_a_correction_of_any_length_updates_the_last_call(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str, updated: dict[str, str]
) -> None:
    context = LastCallContext(api_name=holidays.name, endpoint=holidays, collected_params=HOLIDAYS_2026)
    follow = RuleFollowUpDetector(extractor).detect(message, [context], language)  # type: ignore[arg-type]
    assert follow.kind is FollowUpKind.PARAM_UPDATE, message
    assert follow.updated_params == updated, message


@pytest.mark.parametrize(
    "granted",
    [
        caller_pb2.CachedResult(ttl=duration_pb2.Duration(seconds=600)),
        # a caller of the previous release sets only the deprecated whole seconds
        caller_pb2.CachedResult(ttl_seconds=600),
    ],
    ids=["duration", "previous_release"],
)
def test_a_kept_result_has_what_its_ttl_grants_less_the_time_since(granted: caller_pb2.CachedResult) -> None:
    kept = Kept(granted, received=time.monotonic() - 100)
    # 600 s granted, 100 s gone, a second kept back (and however long this test ran)
    assert 490 <= kept.seconds_left() <= 499
