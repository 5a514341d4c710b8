"""The response-cache read path for a new turn (seed Part 8, `_compute_loop_step`):
L1 → L2 → follow-up detection → an answer from a cached response, a direct call
with merged params, seeds for the loop, or nothing (the normal loop)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from loop_svc.cache import LastCallContext, ResponseCache, param_hash
from loop_svc.follow_up import FollowUp, FollowUpDetector, FollowUpKind
from loop_svc.loop import ParamExtractor
from loop_svc.schema import EndpointSpec
from loop_svc.shapes import ShapeReader, for_param_update, for_response_question
from loop_svc.turns import TurnRequest
from services import answer_shape
from services.answer_shape import PLAIN, AnswerShape
from services.language import Lang, parse_lang
from services.runtime.telemetry import DomainTelemetry, NoTelemetry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CachedAnswer:
    endpoint: EndpointSpec
    params: dict[str, str]
    response: object
    source: str  # "L1" or "L2"
    # Whether the answer may become the chat's last call (not for a narrowed list).
    remember: bool = True
    # What the question asks of the response (a follow-up's filters, selection, …).
    shape: AnswerShape = PLAIN


@dataclass(frozen=True)
class DirectCall:
    endpoint: EndpointSpec
    params: dict[str, str]
    original_query: str
    shape: AnswerShape = PLAIN


@dataclass(frozen=True)
class Seeded:
    params: dict[str, str] = field(default_factory=dict)


Plan = CachedAnswer | DirectCall | Seeded | None


def cacheable(endpoint: EndpointSpec) -> bool:
    return bool(endpoint.payload.get("cacheable", True))


def cache_ttl(endpoint: EndpointSpec) -> int | None:
    value = endpoint.payload.get("cache_ttl_seconds")
    return int(value) if value else None


def _outcome_name(planned: DirectCall | Seeded | None) -> str:
    if isinstance(planned, DirectCall):
        return "direct_call"
    if isinstance(planned, Seeded):
        return "seeded"
    return "miss"


def _missing(endpoint: EndpointSpec, params: dict[str, str]) -> list[str]:
    return [name for name in endpoint.required_names if not params.get(name)]


class CachePlanner:
    def __init__(
        self,
        cache: ResponseCache,
        extractor: ParamExtractor,
        detector: FollowUpDetector,
        *,
        enabled: bool = True,
        telemetry: DomainTelemetry | None = None,
        shapes: ShapeReader | None = None,
    ) -> None:
        self._telemetry = telemetry or NoTelemetry()
        self._shapes = shapes
        self._cache = cache
        self._extractor = extractor
        self._detector = detector
        self.enabled = enabled

    async def follow_up(self, chat_id: str, owner_id: str, message: str, language: Lang) -> FollowUp:
        """The classifier's question: is this message about the last call? Fails open."""
        if not self.enabled:
            return FollowUp(FollowUpKind.NEW_INTENT)
        contexts = await self._cache.get_l2(chat_id, owner_id)
        if not contexts:
            return FollowUp(FollowUpKind.NEW_INTENT)
        try:
            return await asyncio.to_thread(self._detector.detect, message, contexts, language)
        except Exception:  # fail-open: a broken detector never blocks the user
            log.exception("follow-up detection failed for chat %s", chat_id)
            return FollowUp(FollowUpKind.NEW_INTENT)

    async def plan(self, request: TurnRequest, language: Lang) -> Plan:
        """What the cache makes of this turn; counted as `loop_cache_plans{outcome}` where
        outcome is the tier that answered (L1, L2), a direct call, seeds, or a miss."""
        if not self.enabled or request.resume or len(request.endpoints) != 1:
            return None
        if not cacheable(request.endpoints[0]):
            return None
        with self._telemetry.span("loop.cache") as span:
            planned = await self._plan(request, request.endpoints[0], language)
            outcome = planned.source if isinstance(planned, CachedAnswer) else _outcome_name(planned)
            span.set_attribute("outcome", outcome)
        self._telemetry.increment("loop_cache_plans", outcome=outcome)
        return planned

    async def _plan(self, request: TurnRequest, endpoint: EndpointSpec, language: Lang) -> Plan:
        message = request.message.strip()
        given = await asyncio.to_thread(self._extractor.extract, message, endpoint.params, language=language)
        if not _missing(endpoint, given):
            hit = await self._cache.get_l1(request.chat_id, endpoint.name, given, request.owner_id)
            if hit is not None:
                return CachedAnswer(endpoint, given, hit, "L1", shape=self._shape(message, language))
        contexts = await self._cache.get_l2(request.chat_id, request.owner_id)
        matching = [c for c in contexts if c.api_name == endpoint.name]
        if not matching:
            if contexts:
                # Another intent: the last call's context no longer applies.
                await self._cache.invalidate_l2(request.chat_id)
            return None
        follow = await self.follow_up(request.chat_id, request.owner_id, message, language)
        if follow.kind is FollowUpKind.RESPONSE_QUESTION and follow.context is not None:
            # Answered from the stored response by the caller's answer operations.
            shape = for_response_question(
                self._previous_shape(follow.context), self._shape(message, language)
            )
            return CachedAnswer(
                endpoint, follow.context.collected_params, follow.context.raw_response, "L2", False, shape
            )
        if follow.kind is FollowUpKind.PARAM_UPDATE and follow.context is not None:
            shape = for_param_update(self._previous_shape(follow.context), self._shape(message, language))
            return await self._param_update(request, endpoint, follow.context, follow.updated_params, shape)
        return None

    def _shape(self, message: str, language: Lang) -> AnswerShape:
        return self._shapes.read(message, language) if self._shapes is not None else PLAIN

    def _previous_shape(self, context: LastCallContext) -> AnswerShape:
        if context.shape:
            return answer_shape.from_dict(context.shape)
        language = parse_lang(context.language) or "en"
        return self._shape(context.original_query, language) if context.original_query else PLAIN

    async def _param_update(
        self,
        request: TurnRequest,
        endpoint: EndpointSpec,
        last: LastCallContext,
        updated: dict[str, str],
        shape: AnswerShape = PLAIN,
    ) -> Plan:
        merged = {**last.collected_params, **updated}
        if _missing(endpoint, merged):
            return Seeded(merged)
        if param_hash(merged) == param_hash(last.collected_params):
            hit = await self._cache.get_l1(request.chat_id, endpoint.name, merged, request.owner_id)
            if hit is not None:
                return CachedAnswer(endpoint, merged, hit, "L1", shape=shape)
            return CachedAnswer(endpoint, merged, last.raw_response, "L2", shape=shape)
        hit = await self._cache.get_l1(request.chat_id, endpoint.name, merged, request.owner_id)
        if hit is not None:
            return CachedAnswer(endpoint, merged, hit, "L1", shape=shape)
        # "Same for Latvia?" answers the original question with the new values.
        return DirectCall(endpoint, merged, last.original_query or request.message, shape)
