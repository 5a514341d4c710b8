"""Runs a batch of endpoint calls concurrently (or answers from results already in the
result store, named by the response cache), keeps each new body in the result store and
reports one outcome per call. A cached result that is gone is a miss: the call is made.
A batch timeout caps the whole batch; calls still running then are cancelled
and reported as timeouts, so the caller always gets one report per call."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from caller_svc.endpoint import EndpointSpec
from caller_svc.guardrails import clean_data, guarded_summary
from caller_svc.http_caller import ApiCaller, ApiCallResult
from caller_svc.messages import FailureKind, failure_message
from caller_svc.near_match import NearMatch, asked_words, found_nothing, nearest
from caller_svc.params import looking_ahead
from caller_svc.result_store import KeptResult, ResultStore
from caller_svc.summary import summarize
from services.answer_shape import PLAIN, AnswerShape, Kind
from services.language import Lang
from services.result_sketch import EMPTY, ResultSketch, sketch_of

log = logging.getLogger("atc.caller.executor")


@dataclass(frozen=True)
class NearResult(ApiCallResult):
    """A broader call's rows nearest to what the call asked, which found nothing itself."""


@dataclass(frozen=True)
class PlannedCall:
    endpoint: EndpointSpec
    params: Mapping[str, str] = field(default_factory=dict)
    # A result the loop's response cache names (this store's id): formatted, not fetched.
    cached_result_id: str = ""
    # What the question asks of this call's result.
    shape: AnswerShape = PLAIN
    # Broader values tried in order when the call finds nothing (caller_svc.near_match).
    broader: tuple[Mapping[str, str], ...] = ()

    @property
    def cached(self) -> bool:
        return bool(self.cached_result_id)


@dataclass(frozen=True)
class CallReport:
    endpoint_name: str
    result: ApiCallResult
    cached: bool
    result_id: str | None
    summary: str
    # Seconds the stored result has left (0: not stored), and what its rows carry.
    ttl_seconds: int = 0
    sketch: ResultSketch = EMPTY
    # The rows are the nearest to what was asked, found by a broader call (none matched it).
    near_match: bool = False


class BatchOutcome(StrEnum):
    ANSWERED = "ANSWERED"
    CACHED = "CACHED"
    FAILED = "FAILED"


def batch_outcome(reports: Sequence[CallReport]) -> BatchOutcome:
    if not any(r.result.success for r in reports):
        return BatchOutcome.FAILED
    if all(r.cached for r in reports):
        return BatchOutcome.CACHED
    return BatchOutcome.ANSWERED


def _failure_summary(result: ApiCallResult) -> str:
    status = f" (HTTP {result.status_code})" if result.status_code else ""
    kind = (result.failure or FailureKind.SERVICE_UNAVAILABLE).value.lower().replace("_", " ")
    return f"The call failed: {kind}{status}."


class CallExecutor:
    def __init__(
        self,
        caller: ApiCaller,
        store: ResultStore,
        *,
        batch_timeout_seconds: float = 30.0,
        near_match: NearMatch | None = None,
        yes_no_lookahead_days: int = 0,
    ) -> None:
        self._caller = caller
        self._store = store
        self._batch_timeout = batch_timeout_seconds
        self._near_match = near_match or NearMatch()
        self._lookahead_days = yes_no_lookahead_days

    def _sent_params(self, call: PlannedCall) -> Mapping[str, str]:
        """What the call sends: a yes/no question about a period asks for the days after
        it too, so a "no" can name the first row after it."""
        if call.shape.kind is Kind.YES_NO:
            return looking_ahead(call.endpoint, call.params, self._lookahead_days)
        return call.params

    async def run(
        self,
        calls: Sequence[PlannedCall],
        *,
        question: str,
        lang: Lang,
        owner_id: str,
        chat_id: str = "",
        timeout_seconds: float | None = None,
    ) -> list[CallReport]:
        """One report per call, in order. Cancelling this cancels every HTTP call in flight."""
        budget = self._batch_timeout if timeout_seconds is None else min(self._batch_timeout, timeout_seconds)
        results: list[ApiCallResult | None] = [None] * len(calls)
        tasks: dict[asyncio.Task[ApiCallResult], int] = {}
        started = time.perf_counter()
        kept = await asyncio.gather(*(self._kept(call, owner_id) for call in calls))
        try:
            for index, call in enumerate(calls):
                found = kept[index]
                if found is not None:
                    results[index] = ApiCallResult(True, 0, found.result.response, None, 0)
                else:
                    task = asyncio.create_task(self._fetched(call, lang, chat_id, owner_id))
                    tasks[task] = index
            if tasks:
                done, pending = await asyncio.wait(tasks, timeout=budget)
                for task in done:
                    results[tasks[task]] = self._result_of(task, calls[tasks[task]], lang)
                for task in pending:
                    log.warning("batch timeout: %s cancelled", calls[tasks[task]].endpoint.name)
                    elapsed = int((time.perf_counter() - started) * 1000)
                    results[tasks[task]] = ApiCallResult(
                        False,
                        0,
                        "",
                        failure_message(FailureKind.SERVICE_TIMEOUT, lang),
                        elapsed,
                        FailureKind.SERVICE_TIMEOUT,
                    )
        finally:
            pending_tasks = [t for t in tasks if not t.done()]
            for task in pending_tasks:
                task.cancel()
            if pending_tasks:
                await asyncio.gather(*pending_tasks, return_exceptions=True)
        finished = [r for r in results if r is not None]
        return list(
            await asyncio.gather(
                *(
                    self._report(call, result, question, owner_id)
                    if found is None
                    else self._cached_report(call, result, found)
                    for call, result, found in zip(calls, finished, kept, strict=True)
                )
            )
        )

    async def _fetched(self, call: PlannedCall, lang: Lang, chat_id: str, owner_id: str) -> ApiCallResult:
        """The call's result; when it finds nothing, the nearest rows of the first broader call
        that finds any (tried one after another, each only if the one before found nothing)."""
        result = await self._caller.call(
            call.endpoint, self._sent_params(call), lang, chat_id=chat_id, author_id=owner_id
        )
        if not call.broader or not result.success or not found_nothing(result.data):
            return result
        for broader in call.broader:
            params = {**call.params, **broader}
            wider = await self._caller.call(call.endpoint, params, lang, chat_id=chat_id, author_id=owner_id)
            if not wider.success or found_nothing(wider.data):
                continue
            rows = nearest(wider.data, asked_words(call.params, broader), self._near_match)
            if rows is None:
                continue
            return NearResult(True, wider.status_code, rows, None, result.duration_ms + wider.duration_ms)
        return result

    async def _kept(self, call: PlannedCall, owner_id: str) -> KeptResult | None:
        if not call.cached_result_id:
            return None
        return await self._store.find(call.cached_result_id, owner_id, call.endpoint.name)

    @staticmethod
    async def _cached_report(call: PlannedCall, result: ApiCallResult, found: KeptResult) -> CallReport:
        """A cache hit: the stored result again, under its own id (nothing is stored twice)."""
        return CallReport(
            call.endpoint.name,
            result,
            True,
            found.result.result_id,
            found.result.summary,
            found.ttl_seconds,
            sketch_of(found.result.response),
        )

    @staticmethod
    def _result_of(task: asyncio.Task[ApiCallResult], call: PlannedCall, lang: Lang) -> ApiCallResult:
        error = asyncio.CancelledError() if task.cancelled() else task.exception()
        if error is None:
            return task.result()
        # ApiCaller reports HTTP trouble as results; anything raised is our bug, not the API's.
        log.error("call to %s raised", call.endpoint.name, exc_info=error)
        return ApiCallResult(
            False,
            0,
            "",
            failure_message(FailureKind.SERVICE_UNAVAILABLE, lang),
            0,
            FailureKind.SERVICE_UNAVAILABLE,
        )

    async def _report(
        self, call: PlannedCall, result: ApiCallResult, question: str, owner_id: str
    ) -> CallReport:
        if not result.has_body:
            return CallReport(call.endpoint.name, result, False, None, _failure_summary(result))
        # Summaries reach logs, the LLM context and the call_outcome events users' pages get.
        # Markup goes before the summary clips anything (a cut tag would survive cleaning),
        # and the summary passes the answer's guardrails (caller_svc.guardrails).
        summary = guarded_summary(summarize(clean_data(result.data)), result.data)
        if not result.success:
            summary = f"{_failure_summary(result)} {summary}"
        result_id = await self._store.save(
            endpoint_name=call.endpoint.name,
            question=question,
            summary=summary,
            response=result.data,
            owner_id=owner_id,
            query={
                "method": call.endpoint.method,
                "url": call.endpoint.url,
                "params": dict(self._sent_params(call)),
            },
        )
        return CallReport(
            call.endpoint.name,
            result,
            False,
            result_id,
            summary,
            self._store.ttl_seconds if result_id else 0,
            sketch_of(result.data) if result.success else EMPTY,
            near_match=isinstance(result, NearResult),
        )
