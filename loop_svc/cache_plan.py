"""The response-cache read path for a new turn (seed Part 8, `_compute_loop_step`):
L1 → L2 → follow-up detection → an answer from a cached result (its id in caller_svc's
result store), a direct call with merged params, seeds for the loop, or nothing (the
normal loop)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from loop_svc.cache import LastCallContext, ResponseCache, param_hash
from loop_svc.constraints import beyond_horizon, period_days, reads_back, too_long
from loop_svc.extraction.periods import read_as_past
from loop_svc.follow_up import FollowUp, FollowUpDetector, FollowUpKind
from loop_svc.loop import ParamExtractor
from loop_svc.schema import EndpointSpec, date_pairs
from loop_svc.shapes import ShapeReader, compared_with_last, for_param_update, for_response_question
from loop_svc.turns import TurnRequest
from services import answer_shape
from services.answer_shape import PLAIN, AnswerShape, DateRange, Order, RowFilter
from services.language import Lang, parse_lang
from services.runtime.telemetry import DomainTelemetry, NoTelemetry

log = logging.getLogger(__name__)
# A period no question asks about: whether a message compares its period with another one.
_NO_DAY = DateRange(date.min, date.min)


@dataclass(frozen=True)
class CachedAnswer:
    endpoint: EndpointSpec
    params: dict[str, str]
    # The cached result in caller_svc's result store (sent as cached_result_id).
    result_id: str
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


@dataclass(frozen=True)
class DecidedFollowUp:
    """A follow-up decision made earlier in the turn (LoopService.DetectFollowUp, which the
    classifier asked before routing): its kind, the endpoint it named, the changed values."""

    kind: FollowUpKind
    endpoint_name: str = ""
    updated_params: dict[str, str] = field(default_factory=dict)

    def applied_to(self, context: LastCallContext) -> FollowUp:
        """The decision for the routed endpoint's last call. A question about the rows
        shown is about its rows; changed values count only where its schema has them."""
        if self.kind is FollowUpKind.RESPONSE_QUESTION:
            return FollowUp(FollowUpKind.RESPONSE_QUESTION, context)
        if self.kind is FollowUpKind.PARAM_UPDATE:
            names = {p.name for p in context.endpoint.params}
            changed = {
                k: v
                for k, v in self.updated_params.items()
                if k in names and v and context.collected_params.get(k) != v
            }
            if changed:
                return FollowUp(FollowUpKind.PARAM_UPDATE, context, changed)
        return FollowUp(FollowUpKind.NEW_INTENT)


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
        today: Callable[[], date] | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._today = today
        # The citizen's aware local time: merged values past the last day the API has
        # values for go through the loop, which explains it (constraints.beyond_horizon).
        self._now = now
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
        return await self._detect(chat_id, message, contexts, language)

    async def _detect(
        self, chat_id: str, message: str, contexts: list[LastCallContext], language: Lang
    ) -> FollowUp:
        try:
            return await asyncio.to_thread(self._detector.detect, message, contexts, language)
        except Exception:  # fail-open: a broken detector never blocks the user
            log.exception("follow-up detection failed for chat %s", chat_id)
            return FollowUp(FollowUpKind.NEW_INTENT)

    async def plan(
        self, request: TurnRequest, language: Lang, decided: DecidedFollowUp | None = None
    ) -> Plan:
        """What the cache makes of this turn; counted as `loop_cache_plans{outcome}` where
        outcome is the tier that answered (L1, L2), a direct call, seeds, or a miss.
        `decided`: the follow-up decision already made for this message (the classifier's
        DetectFollowUp), so it is not made a second time."""
        if not self.enabled or request.resume or len(request.endpoints) != 1:
            return None
        if not cacheable(request.endpoints[0]):
            return None
        with self._telemetry.span("loop.cache") as span:
            planned = await self._plan(request, request.endpoints[0], language, decided)
            outcome = planned.source if isinstance(planned, CachedAnswer) else _outcome_name(planned)
            span.set_attribute("outcome", outcome)
        self._telemetry.increment("loop_cache_plans", outcome=outcome)
        return planned

    async def _plan(
        self, request: TurnRequest, endpoint: EndpointSpec, language: Lang, decided: DecidedFollowUp | None
    ) -> Plan:
        message = request.message.strip()
        given = await asyncio.to_thread(self._extractor.extract, message, endpoint.params, language=language)
        if not _missing(endpoint, given):
            hit = await self._cache.get_l1(request.chat_id, endpoint.name, given, request.owner_id)
            if hit is not None:
                shape = await self._shape(message, language)
                if compared_with_last(shape, _NO_DAY) is not None:
                    # "so how much cheaper is today" when today was asked before: compared
                    # with the last answer, not today's answer again.
                    for context in await self._cache.get_l2(request.chat_id, request.owner_id):
                        if context.api_name == endpoint.name:
                            compared = self._compared(endpoint, context, given, shape)
                            if compared is not None:
                                return compared
                            break
                return CachedAnswer(endpoint, given, hit, "L1", shape=shape)
        contexts = await self._cache.get_l2(request.chat_id, request.owner_id)
        matching = [c for c in contexts if c.api_name == endpoint.name]
        if not matching:
            if contexts:
                # Another intent: the last call's context no longer applies.
                await self._cache.invalidate_l2(request.chat_id)
            return None
        # The routed endpoint's own last call: after a two-part answer (an address and a
        # vehicle tax), "which of those…" routed to the tax is about the tax's rows.
        if decided is not None:
            follow = decided.applied_to(matching[0])
        else:
            follow = await self._detect(request.chat_id, message, matching, language)
        if follow.kind is FollowUpKind.RESPONSE_QUESTION and follow.context is not None:
            # Answered from the stored response by the caller's answer operations.
            asked = await self._shape(message, language)
            shape = for_response_question(await self._previous_shape(follow.context), asked)
            ahead = self._ahead_of_window(endpoint, follow.context.collected_params, asked)
            if ahead is not None:
                # "when's the next one" after a break that is over: the rows shown end
                # before today, so the next one is looked up from today.
                return DirectCall(endpoint, ahead, message, asked)
            return CachedAnswer(
                endpoint, follow.context.collected_params, follow.context.result_id, "L2", False, shape
            )
        if follow.kind is FollowUpKind.PARAM_UPDATE and follow.context is not None:
            current = await self._shape(message, language)
            compared = self._compared(endpoint, follow.context, follow.updated_params, current)
            if compared is not None:
                return compared
            shape = for_param_update(await self._previous_shape(follow.context), current)
            return await self._param_update(
                request, endpoint, follow.context, follow.updated_params, shape, language
            )
        return None

    def _ahead_of_window(
        self, endpoint: EndpointSpec, params: dict[str, str], asked: AnswerShape
    ) -> dict[str, str] | None:
        """The last call's values with its period from today for a year, when the message
        asks for rows still to come (the next one, those still ahead) and the period the
        last call searched ended before today: its rows cannot hold them. None otherwise."""
        if self._today is None:
            return None
        today = self._today()
        wants_ahead = (asked.selection is not None and asked.selection.order is Order.NEXT) or any(
            isinstance(f.condition, DateRange)
            and not f.negate
            and f.condition.start is not None
            and f.condition.start >= today
            and f.condition.end is None
            for f in asked.filters
        )
        if not wants_ahead:
            return None
        for start, end in date_pairs(endpoint.params):
            last = _day_of(params.get(end.name, ""))
            if last is None or last >= today:
                return None
            return {**params, start.name: today.isoformat(), end.name: _a_year_after(today).isoformat()}
        return None

    async def _shape(self, message: str, language: Lang) -> AnswerShape:
        # Off the event loop: with a model, reading a shape is a request to the model.
        if self._shapes is None:
            return PLAIN
        return await asyncio.to_thread(self._shapes.read, message, language)

    async def _previous_shape(self, context: LastCallContext) -> AnswerShape:
        if context.shape:
            return answer_shape.from_dict(context.shape)
        language = parse_lang(context.language) or "en"
        return await self._shape(context.original_query, language) if context.original_query else PLAIN

    async def _param_update(
        self,
        request: TurnRequest,
        endpoint: EndpointSpec,
        last: LastCallContext,
        updated: dict[str, str],
        shape: AnswerShape = PLAIN,
        language: Lang = "en",
    ) -> Plan:
        merged = {**last.collected_params, **updated}
        if _missing(endpoint, merged):
            return Seeded(merged)
        if self._now is not None and beyond_horizon(endpoint.params, merged, self._now()) is not None:
            merged = await self._read_back(request.message, endpoint, last, merged, language)
        if too_long(endpoint.params, merged) is not None or (
            self._now is not None and beyond_horizon(endpoint.params, merged, self._now()) is not None
        ):
            # More than the API serves: the loop says so and offers what it does.
            return Seeded(merged)
        shape = _days_within(shape, endpoint, merged)
        if param_hash(merged) == param_hash(last.collected_params):
            hit = await self._cache.get_l1(request.chat_id, endpoint.name, merged, request.owner_id)
            if hit is not None:
                return CachedAnswer(endpoint, merged, hit, "L1", shape=shape)
            return CachedAnswer(endpoint, merged, last.result_id, "L2", shape=shape)
        hit = await self._cache.get_l1(request.chat_id, endpoint.name, merged, request.owner_id)
        if hit is not None:
            return CachedAnswer(endpoint, merged, hit, "L1", shape=shape)
        # "Same for Latvia?" answers the original question with the new values.
        return DirectCall(endpoint, merged, last.original_query or request.message, shape)

    def _compared(
        self, endpoint: EndpointSpec, last: LastCallContext, updated: dict[str, str], current: AnswerShape
    ) -> DirectCall | None:
        """A comparison of the follow-up's period with the last answer's ("so how much
        cheaper is today"): one call over both periods, answered as their comparison."""
        zone = self._now().tzinfo if self._now is not None else UTC
        before = period_days(endpoint.params, last.collected_params, zone or UTC)
        if before is None:
            return None
        shape = compared_with_last(current, DateRange(before[0], before[1]))
        if shape is None:
            return None
        merged = {**last.collected_params, **updated}
        for start, end in date_pairs(endpoint.params):
            starts = [v for v in (last.collected_params.get(start.name), merged.get(start.name)) if v]
            ends = [v for v in (last.collected_params.get(end.name), merged.get(end.name)) if v]
            if len(starts) < 2 or len(ends) < 2:
                return None
            merged[start.name], merged[end.name] = min(starts), max(ends)
            break
        if too_long(endpoint.params, merged) is not None or _missing(endpoint, merged):
            return None
        if self._now is not None and beyond_horizon(endpoint.params, merged, self._now()) is not None:
            return None
        return DirectCall(endpoint, merged, current.question, shape)

    async def _read_back(
        self,
        message: str,
        endpoint: EndpointSpec,
        last: LastCallContext,
        merged: dict[str, str],
        language: Lang,
    ) -> dict[str, str]:
        """A follow-up to an answer about the past whose new day lies past the last day
        values exist for ("aga teisipäeval?" after last Monday's prices, "а только
        воскресенье?" after last weekend): its bare weekday or month is the last one."""
        assert self._now is not None
        now = self._now()
        days = period_days(endpoint.params, last.collected_params, now.tzinfo or UTC)
        if days is None or days[1] >= now.date():
            return merged  # the last answer was not about the past
        with read_as_past():
            again = await asyncio.to_thread(
                self._extractor.extract, message.strip(), endpoint.params, language=language
            )
        read = {**last.collected_params, **again}
        return read if again and reads_back(endpoint.params, read, now) else merged


def _a_year_after(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day + timedelta(days=365)


def _day_of(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _days_within(shape: AnswerShape, endpoint: EndpointSpec, params: dict[str, str]) -> AnswerShape:
    """The follow-up's day filters, read from its words alone, inside the request's own
    window: a day the extractor placed in the period already asked ("what about the
    23rd" after 24 June is 23 June, not this month's 23rd) is the window's days."""
    for start, end in date_pairs(endpoint.params):
        first, last = _day_of(params.get(start.name, "")), _day_of(params.get(end.name, ""))
        if first is None or last is None:
            continue
        window = DateRange(first, last)
        filters = tuple(
            RowFilter(window, f.negate)
            if isinstance(f.condition, DateRange)
            and f.condition.start is not None
            and f.condition.end is not None
            and not window.overlaps(f.condition.start, f.condition.end)
            else f
            for f in shape.filters
        )
        return dataclasses.replace(shape, filters=filters)
    return shape
