"""Hands complete calls to caller_svc and relays its stream, then:

- writes the response cache (L1 per call, L2 for the turn) after the answer and before
  the turn's End: the next message may be a follow-up on this answer, and a client may
  send it the moment End arrives (a write left running behind End lost that race under
  load, and the follow-up was routed as a new question). The cache holds the result ids
  of the call outcomes, with what the caller streamed beside each (`CachedResult`: the
  result's lifetime and the sketch of its rows); no body is read back for it;
- on a 4xx whose body names a parameter (by name, or by the value we sent), stops
  relaying, reopens the session without that value and asks for it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass

import grpc

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import turn_event_pb2
from loop_svc import convert, questions
from loop_svc.cache import LastCallContext, ResponseCache
from loop_svc.cache_plan import cache_ttl, cacheable
from loop_svc.extraction.addresses import broader_addresses
from loop_svc.schema import Concept, EndpointSpec
from loop_svc.session import Session
from loop_svc.turns import TurnRunner
from services import answer_shape, result_sketch
from services.answer_shape import PLAIN, AnswerShape
from services.errors import Unavailable
from services.language import Lang, to_proto
from services.runtime.relay import BrokenStream, failure_events, relay_events

log = logging.getLogger(__name__)
_CACHED_DETAIL = "answering from the response cache for "
_COMPLETE_DETAIL = "all parameters collected for "


@dataclass(frozen=True)
class Call:
    endpoint: EndpointSpec
    params: dict[str, str]
    # A result the cache names (caller_svc's result store): formatted without an HTTP call.
    cached_result_id: str = ""
    # What the question asks of the result (caller_svc answers by it).
    shape: AnswerShape = PLAIN

    @property
    def cached(self) -> bool:
        return bool(self.cached_result_id)


@dataclass(frozen=True)
class Kept:
    """What the caller streamed beside an outcome (its CachedResult), and when it came."""

    result: caller_pb2.CachedResult
    received: float  # time.monotonic()

    def seconds_left(self) -> int:
        """What the stored result has left now: the answer was written since the outcome
        came (by a model, for seconds), and a second is kept back for the way here."""
        granted = (
            self.result.ttl.ToTimedelta().total_seconds()
            if self.result.HasField("ttl")
            else self.result.ttl_seconds  # a caller of the previous release
        )
        return int(granted - (time.monotonic() - self.received)) - 1


@dataclass(frozen=True)
class Succeeded:
    """A call that answered: its result id, and what the caller said of that result."""

    call: Call
    result_id: str
    kept: Kept | None


@dataclass(frozen=True)
class Turn:
    chat_id: str
    owner_id: str
    language: Lang
    # The question the answer addresses (the session's original query).
    user_query: str
    llm_calls: int = 0
    # Whether successful calls become the chat's cached last call.
    remember: bool = True
    # The completed session, so a 4xx can reopen it.
    finished: Session | None = None


def broader_params(call: Call) -> list[caller_pb2.BroaderParams]:
    """Broader values for the caller to try when the call finds nothing, in order: an
    address almost as the register has it (extraction.addresses.broader_addresses)."""
    if call.cached:
        return []
    found: list[caller_pb2.BroaderParams] = []
    for param in call.endpoint.params:
        value = call.params.get(param.name, "")
        if param.concept is Concept.ADDRESS and value:
            found.extend(caller_pb2.BroaderParams(params={param.name: v}) for v in broader_addresses(value))
    return found


def rejected_params(body: str, call: Call) -> list[str]:
    """Parameters a 4xx body names: as a key or word ("errors": {"regNr": [...]}),
    or by the value we sent ("No vehicle is registered with the number 'XYZ123'")."""
    lowered = body.lower()
    named = []
    for param in call.endpoint.params:
        value = call.params.get(param.name, "")
        if param.name.lower() in lowered or (len(value) >= 3 and value.lower() in lowered):
            named.append(param.name)
    return named


def only(session: Session, endpoint_name: str) -> Session:
    """The completed session with only the endpoint whose value was refused: after a
    two-part answer, the part that was answered is not called again."""
    if len(session.endpoints) < 2:
        return session
    kept = [e for e in session.endpoints if e.name == endpoint_name]
    if not kept:
        return session
    return session.model_copy(
        update={
            "endpoints": kept,
            "collected": {k: v for k, v in session.collected.items() if k == endpoint_name},
        },
        deep=True,
    )


class CallRelay:
    def __init__(
        self,
        caller: caller_pb2_grpc.CallerServiceStub,
        cache: ResponseCache | None,
        runner: TurnRunner,
        *,
        timeout: Callable[[], float | None],
        background: set[asyncio.Task[None]],
    ) -> None:
        self._caller = caller
        self._cache = cache
        self._runner = runner
        self._timeout = timeout
        # Owned by the servicer, which outlives this relay: running cache writes stay referenced.
        self._background = background

    async def run(self, calls: list[Call], turn: Turn) -> AsyncIterator[turn_event_pb2.TurnEvent]:
        names = [c.endpoint.name for c in calls]
        cached = all(c.cached for c in calls)
        yield turn_event_pb2.TurnEvent(
            progress=turn_event_pb2.Progress(
                stage="cache_hit" if cached else "params_complete",
                detail=(_CACHED_DETAIL if cached else _COMPLETE_DETAIL) + ", ".join(names),
                workflow=convert.WORKFLOW,
                endpoint_names=names,
            )
        )
        execute = caller_pb2.ExecuteCallsRequest(
            calls=[
                caller_pb2.EndpointCall(
                    endpoint=convert.endpoint_to_proto(c.endpoint),
                    params=c.params,
                    cached_result_id=c.cached_result_id,
                    shape=answer_shape.to_proto(c.shape),
                    broader=broader_params(c),
                )
                for c in calls
            ],
            user_query=turn.user_query,
            language=to_proto(turn.language),
            owner_id=turn.owner_id,
            chat_id=turn.chat_id,
        )
        stream = self._caller.ExecuteCalls(execute, timeout=self._timeout())
        succeeded: list[Succeeded] = []
        # What the caller streamed beside each outcome's result id (its lifetime, its sketch).
        kept: dict[str, Kept] = {}

        def keep(response: caller_pb2.ExecuteCallsResponse) -> None:
            if response.HasField("cached_result") and response.event.call_outcome.result_id:
                kept[response.event.call_outcome.result_id] = Kept(response.cached_result, time.monotonic())

        unmatched = list(calls)
        # After a refused value: the caller's explanation of the refusal is relayed, then
        # the question for the value again instead of the caller's End.
        question: list[turn_event_pb2.TurnEvent] | None = None
        # Leaving `events` cancels the call: a client that went away must not leave the
        # APIs being called for nobody.
        try:
            async with aclosing(relay_events(stream, "caller_svc", on_response=keep)) as events:
                async for event in events:
                    if event.HasField("call_outcome"):
                        outcome = event.call_outcome
                        # Outcomes come in the calls' order; one endpoint may be called once per
                        # value listed ("Finland and Latvia"): each outcome is its own call's.
                        call = next((c for c in unmatched if c.endpoint.name == outcome.endpoint_name), None)
                        if call is not None:
                            unmatched.remove(call)
                        if call is not None and outcome.success and outcome.result_id:
                            succeeded.append(Succeeded(call, outcome.result_id, kept.get(outcome.result_id)))
                        # A refused value is asked again, in a two-part turn too (for the
                        # part that was refused; the other part's answer stands).
                        if (
                            call is not None
                            and turn.finished is not None
                            and question is None
                            and 400 <= outcome.http_status < 500
                        ):
                            question = await self._reask(call, outcome.result_id, turn)
                    if question is not None and event.HasField("end"):
                        await self._remember_before_end(succeeded, turn)
                        for asked in question:
                            yield asked
                        return
                    if event.HasField("end"):
                        event.end.llm_calls += turn.llm_calls
                        await self._remember_before_end(succeeded, turn)
                    yield event
        except BrokenStream as broken:
            log.warning("chat %s: %s", turn.chat_id, broken.message)
            await self._keep_for_retry(turn)
            for event in failure_events(
                Unavailable(broken.message, reason="CALLER_UNAVAILABLE"),
                turn.language,
                workflow=convert.WORKFLOW,
                llm_calls=turn.llm_calls,
                where="loop → caller",
            ):
                yield event
            return

    async def _keep_for_retry(self, turn: Turn) -> None:
        """The calls could not be made (the caller is away): the chat is told to try again,
        so its completed session is stored back — sending the answer again resumes it
        instead of reaching a chat that forgot its question."""
        if turn.finished is None:
            return
        try:
            await self._runner.reask(turn.finished, [])
        except Exception as error:  # the store may be away too: the turn still ends politely
            log.warning("chat %s: session not kept for a retry: %r", turn.chat_id, error)

    async def _remember_before_end(self, succeeded: list[Succeeded], turn: Turn) -> None:
        """The cache written before End goes out. In a task of its own, shielded: a reader
        that goes away while it runs (a hop above cancels) does not cut the write off."""
        if succeeded and turn.remember and self._cache is not None:
            task = asyncio.create_task(self._remember(self._cache, list(succeeded), turn))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
            await asyncio.shield(task)

    async def _stored(self, result_id: str, owner_id: str) -> caller_pb2.StoredResult | None:
        try:
            response = await self._caller.GetResult(
                caller_pb2.GetResultRequest(result_id=result_id, owner_id=owner_id), timeout=self._timeout()
            )
        except grpc.aio.AioRpcError as error:
            log.warning("result %s not readable: %s", result_id, error.code().name)
            return None
        return response.result

    async def _reask(self, call: Call, result_id: str, turn: Turn) -> list[turn_event_pb2.TurnEvent] | None:
        if not result_id or turn.finished is None:
            return None
        stored = await self._stored(result_id, turn.owner_id)
        rejected = rejected_params(stored.response_json, call) if stored is not None else []
        if not rejected:
            return None
        # A two-part turn asks again only for the part whose value was refused.
        finished = only(turn.finished, call.endpoint.name)
        missing = [p for p in finished.params if p.name in rejected]
        body = stored.response_json if stored is not None else ""
        # What the service can take instead: the description's examples, the enum, or values
        # its error names ("applies from 2025"); the first one is offered, a "yes" takes it.
        choices = {p.name: questions.available_values(p, call.params.get(p.name, ""), body) for p in missing}
        offered = {name: values[0] for name, values in choices.items() if values}
        await self._runner.reask(finished, rejected, offered)
        # The caller's answer has explained the refusal from the API's own error.
        text = "\n\n" + questions.after_refusal(missing, choices, turn.language)
        events = [
            turn_event_pb2.TurnEvent(
                question=turn_event_pb2.Question(endpoint_names=[call.endpoint.name], missing_params=rejected)
            ),
            *convert.token_events(text, turn_event_pb2.TOKEN_KIND_QUESTION),
            convert.end_event(turn_event_pb2.TURN_OUTCOME_NEEDS_INPUT, turn.llm_calls),
        ]
        return events

    async def _remember(self, cache: ResponseCache, succeeded: list[Succeeded], turn: Turn) -> None:
        """L1 for every new cacheable result, then one L2 write for the turn; no entry
        outlives the result it names (a result of unknown lifetime is not cached)."""
        try:
            contexts: list[LastCallContext] = []
            lifetimes: list[int] = []
            for done in succeeded:
                call, kept = done.call, done.kept
                left = kept.seconds_left() if kept is not None else 0
                if kept is None or left <= 0 or not cacheable(call.endpoint):
                    continue
                if done.result_id != call.cached_result_id:
                    # A new result (a cache hit keeps the id it was sent, already in L1).
                    await cache.set_l1(
                        turn.chat_id,
                        call.endpoint,
                        call.params,
                        done.result_id,
                        turn.owner_id,
                        cache_ttl(call.endpoint),
                        result_ttl_seconds=left,
                    )
                lifetimes.append(left)
                contexts.append(
                    LastCallContext(
                        api_name=call.endpoint.name,
                        endpoint=call.endpoint,
                        collected_params=call.params,
                        result_id=done.result_id,
                        sketch=result_sketch.from_proto(kept.result.sketch),
                        original_query=turn.user_query,
                        owner_id=turn.owner_id,
                        language=turn.language,
                        shape=answer_shape.to_dict(call.shape),
                    )
                )
            if contexts:
                await cache.set_l2(turn.chat_id, contexts, result_ttl_seconds=min(lifetimes))
        except Exception:  # the cache is an optimisation: never fail a turn over it
            log.exception("response cache write failed for chat %s", turn.chat_id)
