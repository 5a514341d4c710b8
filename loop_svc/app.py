"""The one place loop_svc's parts are built and wired."""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

from atc.caller.v1 import caller_pb2_grpc
from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from loop_svc.cache import ResponseCache
from loop_svc.cache_plan import CachePlanner
from loop_svc.defaults import Defaults
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.combined import RulesThenModel
from loop_svc.extraction.holiday_names import HolidayNames
from loop_svc.extraction.llm import ParamExtractionModule
from loop_svc.follow_up import FollowUpDetector, RuleFollowUpDetector
from loop_svc.follow_up_llm import FollowUpDetectorModule
from loop_svc.loop import TurnLimits, TurnLoop
from loop_svc.questions_llm import DspyQuestionWriter
from loop_svc.servicer import LoopServicer
from loop_svc.session import SessionStore
from loop_svc.settings import LoopSettings
from loop_svc.shapes import RuleShapeReader, ShapeReader
from loop_svc.shapes_llm import ShapeModule
from loop_svc.today import local_now, local_today, utc_now
from loop_svc.turns import TurnRunner
from services.language import LanguageDetector
from services.llm import build_lm
from services.redis_client import connect_redis, redis_answers
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount, service_server
from services.runtime.telemetry import Telemetry


async def build_server(settings: LoopSettings) -> GrpcServer:
    """The LoopService server (not started). Stopping it closes the Redis client
    and the caller_svc channel."""
    telemetry = Telemetry.from_settings("loop", settings)
    redis_client = connect_redis(settings.redis_url)
    store = SessionStore(
        redis_client,
        ttl_seconds=settings.session_ttl_seconds,
        lock_seconds=settings.session_lock_seconds,
        lock_wait_seconds=settings.session_lock_wait_seconds,
    )
    countries, detector, holiday_names = await asyncio.gather(
        asyncio.to_thread(CountryNames),
        asyncio.to_thread(LanguageDetector),
        asyncio.to_thread(HolidayNames, settings.home_country),
    )
    today = local_today(settings.time_zone)
    zone = ZoneInfo(settings.time_zone)

    def citizen_now() -> datetime:
        return utc_now().astimezone(zone)

    extractor = RuleExtractor(countries, today=today, zone=zone, now=utc_now, holidays=holiday_names)
    rule_shapes = RuleShapeReader(today, local_now(settings.time_zone))
    lm = build_lm(settings.llm_config(), cache_dir=settings.dspy_cache_dir, telemetry=telemetry)
    shapes: ShapeReader = ShapeModule(lm, rule_shapes, today) if lm is not None else rule_shapes
    model = ParamExtractionModule(lm) if lm is not None else None
    loop = TurnLoop(
        RulesThenModel(extractor, model, today),
        TurnLimits(
            max_turns=settings.max_turns,
            continuation_turn=settings.continuation_turn,
            multi_max_turns_cap=settings.multi_max_turns_cap,
        ),
        Defaults(today, settings.home_country),
        now=citizen_now,
    )
    caller_channel = open_channel(settings.caller_target)
    cache = ResponseCache(
        redis_client,
        default_ttl_seconds=settings.cache_default_ttl_seconds,
        last_call_ttl_seconds=settings.last_call_ttl_seconds,
    )
    rule_follow_ups = RuleFollowUpDetector(extractor, rule_shapes)
    detector_of_follow_ups: FollowUpDetector = (
        FollowUpDetectorModule(lm, fallback=rule_follow_ups) if lm is not None else rule_follow_ups
    )
    planner = CachePlanner(
        cache,
        extractor,
        detector_of_follow_ups,
        enabled=settings.response_cache_enabled,
        telemetry=telemetry,
        shapes=shapes,
        today=today,
        now=citizen_now,
    )
    servicer = LoopServicer(
        TurnRunner(store, loop, detector),
        caller_pb2_grpc.CallerServiceStub(caller_channel),
        downstream_timeout_seconds=settings.downstream_timeout_seconds,
        planner=planner,
        cache=cache if settings.response_cache_enabled else None,
        shapes=shapes,
        questions=DspyQuestionWriter(lm, detector) if lm is not None else None,
        zone=zone,
    )

    async def close() -> None:
        await servicer.drain()
        await caller_channel.close(None)
        await redis_client.aclose()

    return service_server(
        settings,
        ServiceMount.of(loop_pb2, "LoopService", loop_pb2_grpc.add_LoopServiceServicer_to_server, servicer),
        telemetry=telemetry,
        readiness=[redis_answers(redis_client)],
        on_shutdown=[close],
    )
