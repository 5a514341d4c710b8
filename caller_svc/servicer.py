"""atc.caller.v1.CallerService: proto ⇄ domain. Domain errors are raised; the server's
interceptor (services.runtime.interceptors) turns them into statuses."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import grpc
from google.protobuf import duration_pb2

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, turn_event_pb2
from caller_svc.answer_stream import SentenceGuard
from caller_svc.answers import AnswerWriter, WrittenAnswer
from caller_svc.endpoint import SERVICE_KIND, EndpointSpec, ParamSpec
from caller_svc.executor import BatchOutcome, CallExecutor, CallReport, PlannedCall, batch_outcome
from caller_svc.formatter import ResultToFormat
from caller_svc.guardrails import SAFE_MESSAGES, check_answer, data_strings, presentable
from caller_svc.labels import FieldLabel, LabelBook
from caller_svc.pacing import Sleep, paced_chunks
from caller_svc.registry import EndpointRegistry
from caller_svc.result_store import ResultStore
from services import answer_shape, result_sketch
from services.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from services.field_terms import split_words
from services.language import DEFAULT_LANG, Lang, from_proto
from services.llm import counting_llm_calls
from services.runtime.channels import downstream_timeout
from services.runtime.owner import acting_owner

log = logging.getLogger("atc.caller")

_METHODS = frozenset({"GET", "POST"})
_OUTCOMES = {
    BatchOutcome.ANSWERED: turn_event_pb2.TURN_OUTCOME_ANSWERED,
    BatchOutcome.CACHED: turn_event_pb2.TURN_OUTCOME_CACHED,
    BatchOutcome.FAILED: turn_event_pb2.TURN_OUTCOME_FAILED,
}


def label_book(endpoint: catalogue_pb2.Endpoint) -> LabelBook:
    return LabelBook(
        fields={
            label.field: FieldLabel(
                labels=dict(label.labels),
                values={value.value: dict(value.labels) for value in label.values},
                units=dict(label.units),
            )
            for label in endpoint.response_labels
        },
        titles=dict(endpoint.answer_titles),
    )


# Where a description's lists end: "... spring and summer breaks", "... for, against or abstained".
_LIST_END = re.compile(r",?\s+(?:and|or)\s+(\w+)", re.I)


def _listed_words(description: str) -> set[str]:
    """The words a description lists, three or more ("autumn, Christmas, winter, spring
    and summer breaks"): each list's last comma-separated run before "and"/"or" and the
    word after it. One pass over the text per list end."""
    out: set[str] = set()
    for m in _LIST_END.finditer(description):
        before = description[max(0, m.start() - 300) : m.start()]
        items = re.split(r",\s*", before)
        run = []
        for item in reversed(items):
            parts = item.split()
            if not parts:
                break
            run.append(parts[-1])
            if len(parts) > 1:
                break  # the list's first item ends a longer phrase ("holidays (autumn")
        if len(run) >= 2:
            out.update(w for item in [*run, m.group(1)] for w in split_words(item))
    return out


def endpoint_words(endpoint: EndpointSpec) -> frozenset[str]:
    """Words of what the endpoint is (its name, description, parameter descriptions and
    answer titles), which a question repeats to say which service it asks. The words a
    description lists as the kinds of its rows ("autumn, Christmas, winter, spring and
    summer breaks") name rows, not the service: a question saying one picks those rows."""
    texts = [endpoint.name, endpoint.description, *(p.description for p in endpoint.params)]
    texts.extend(endpoint.labels.titles.values())
    words = {w for text in texts for w in split_words(text) if len(w) >= 3}
    listed = _listed_words(endpoint.description)
    named_elsewhere = {
        w for text in (endpoint.name, *endpoint.labels.titles.values()) for w in split_words(text)
    }
    return frozenset(words - (listed - named_elsewhere - {"and", "or"}))


def endpoint_spec(endpoint: catalogue_pb2.Endpoint) -> EndpointSpec:
    return EndpointSpec(
        name=endpoint.name,
        method=endpoint.method.upper(),
        url=endpoint.url,
        params=tuple(
            ParamSpec(p.name, p.type or "string", p.required, p.description) for p in endpoint.params
        ),
        description=endpoint.description,
        kind=SERVICE_KIND if endpoint.type == SERVICE_KIND else "endpoint",
        endpoint_id=endpoint.endpoint_id,
        labels=label_book(endpoint),
    )


def planned_call(call: caller_pb2.EndpointCall, field: str) -> PlannedCall:
    """Validate one EndpointCall; `field` is its path in the request, for error details."""
    endpoint = call.endpoint
    shape = answer_shape.from_proto(call.shape) if call.HasField("shape") else answer_shape.PLAIN
    if not endpoint.url:
        raise InvalidArgument("the endpoint has no url", field=f"{field}.endpoint.url")
    parts = urlsplit(endpoint.url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidArgument(
            "the endpoint url must be an absolute http(s) URL", field=f"{field}.endpoint.url"
        )
    if not endpoint.method:
        raise InvalidArgument("the endpoint has no method", field=f"{field}.endpoint.method")
    if endpoint.method.upper() not in _METHODS:
        raise InvalidArgument(
            f"method {endpoint.method!r} is not supported (GET or POST)", field=f"{field}.endpoint.method"
        )
    # A cache hit is still a callable endpoint: a result gone from the store is a miss.
    return PlannedCall(
        endpoint_spec(endpoint),
        dict(call.params),
        cached_result_id=call.cached_result_id,
        shape=shape,
        broader=tuple(dict(b.params) for b in call.broader if b.params),
    )


@dataclass(frozen=True)
class ReplyMargin:
    """Time kept back from the incoming deadline for storing, formatting and streaming
    after the calls: a share of what is left, within bounds. Without it a short
    deadline loses even the calls that succeeded; a fixed 0.25 s lost them under load."""

    fraction: float = 0.2
    min_seconds: float = 0.25
    max_seconds: float = 3.0

    def seconds(self, remaining: float | None) -> float:
        if remaining is None:
            return 0.0
        return max(self.min_seconds, min(self.max_seconds, remaining * self.fraction))


def _language(value: int) -> Lang:
    return from_proto(value) or DEFAULT_LANG


def _response_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def cached_result(report: CallReport) -> caller_pb2.CachedResult | None:
    """What a response cache keeps of a successful call's stored result instead of its body."""
    if not report.result_id or not report.result.success:
        return None
    return caller_pb2.CachedResult(
        ttl=duration_pb2.Duration(seconds=report.ttl_seconds),
        ttl_seconds=report.ttl_seconds,
        sketch=result_sketch.to_proto(report.sketch),
    )


def call_outcome(report: CallReport) -> turn_event_pb2.CallOutcome:
    return turn_event_pb2.CallOutcome(
        endpoint_name=report.endpoint_name,
        success=report.result.success,
        http_status=report.result.status_code,
        result_id=report.result_id or "",
        summary=report.summary,
        duration_ms=report.result.duration_ms,
    )


def _event(cached: caller_pb2.CachedResult | None = None, **kind: Any) -> caller_pb2.ExecuteCallsResponse:
    return caller_pb2.ExecuteCallsResponse(event=turn_event_pb2.TurnEvent(**kind), cached_result=cached)


class CallerServicer(caller_pb2_grpc.CallerServiceServicer):
    def __init__(
        self,
        executor: CallExecutor,
        store: ResultStore,
        answers: AnswerWriter,
        *,
        batch_timeout_seconds: float,
        registry: EndpointRegistry | None = None,
        reply_margin: ReplyMargin | None = None,
        chunk_delay_seconds: float = 0.0,
        sleep: Sleep | None = None,
    ) -> None:
        self._executor = executor
        self._store = store
        self._answers = answers
        self._batch_timeout = batch_timeout_seconds
        self._registry = registry
        self._margin = reply_margin or ReplyMargin()
        self._chunk_delay = chunk_delay_seconds
        self._sleep = sleep

    def _call_budget(self, context: grpc.aio.ServicerContext) -> float:
        remaining = context.time_remaining()
        reserve = self._margin.seconds(None if remaining is None else float(remaining))
        return downstream_timeout(context, self._batch_timeout, reserve=reserve)

    async def ExecuteCalls(
        self, request: caller_pb2.ExecuteCallsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[caller_pb2.ExecuteCallsResponse]:
        owner = acting_owner(request.owner_id)
        if not request.calls:
            raise InvalidArgument("at least one call is required", field="calls")
        # Registered endpoints only, as the catalogue has them now (URL, method, labels):
        # never the URL a request carries, nor one a stored session kept from before a restart.
        calls = [
            await self._registered(call, f"calls[{i}]", owner, context, cached_allowed=True)
            for i, call in enumerate(request.calls)
        ]
        lang = _language(request.language)
        names = [call.endpoint.name for call in calls]
        fetching = sum(1 for call in calls if not call.cached)
        yield _event(
            progress=turn_event_pb2.Progress(
                stage="calling" if fetching else "cached",
                detail=f"calling {fetching} endpoint(s)" if fetching else "formatting cached responses",
                workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
                endpoint_names=names,
            )
        )
        reports = await self._executor.run(
            calls,
            question=request.user_query,
            lang=lang,
            owner_id=request.owner_id,
            chat_id=request.chat_id,
            timeout_seconds=self._call_budget(context),
        )
        for report in reports:
            yield _event(cached_result(report), call_outcome=call_outcome(report))
        results = [
            ResultToFormat(
                r.endpoint_name,
                r.result.success,
                presentable(r.result.data),
                r.result.error_message,
                params=dict(call.params),
                param_types={p.name: p.type for p in call.endpoint.params},
                labels=call.endpoint.labels,
                shape=call.shape,
                known_words=endpoint_words(call.endpoint),
                status_code=r.result.status_code,
                param_specs=call.endpoint.params,
                description=call.endpoint.description,
                near_match=r.near_match,
            )
            for call, r in zip(calls, reports, strict=True)
        ]
        api_texts = [text for r in reports for text in data_strings(r.result.data)]
        with counting_llm_calls() as llm_calls:
            async for piece in self._answer(results, request, lang, reports, api_texts):
                yield _event(token=turn_event_pb2.Token(text=piece, kind=turn_event_pb2.TOKEN_KIND_ANSWER))
        yield _event(
            end=turn_event_pb2.End(
                outcome=_OUTCOMES[batch_outcome(reports)],
                workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
                llm_calls=llm_calls.count,
            )
        )

    async def _answer(
        self,
        results: list[ResultToFormat],
        request: caller_pb2.ExecuteCallsRequest,
        lang: Lang,
        reports: list[CallReport],
        api_texts: list[str],
    ) -> AsyncIterator[str]:
        """The answer's text as it may leave. A model's one-result answer streams as the
        model writes it, sentence by sentence once each is checked (a withheld sentence never
        leaves); a whole answer (deterministic, several results, a model that does not
        stream) is checked whole first, then sent at once (or paced, for demos)."""
        sentences = SentenceGuard(api_texts)
        written: WrittenAnswer | None = None
        async with aclosing(
            self._answers.stream(
                results,
                question=request.user_query,
                lang=lang,
                stored=[(r.result_id, r.summary) for r in reports],
                owner_id=request.owner_id,
            )
        ) as pieces:
            async for piece in pieces:
                if isinstance(piece, WrittenAnswer):
                    written = piece
                    break
                for sentence in sentences.feed(piece):
                    yield sentence
        if written is None:
            raise RuntimeError("the answer stream ended without its answer")
        if written.streamed or written.partial:
            for sentence in sentences.finish():
                yield sentence
            if written.streamed:
                if not sentences.sent.strip():
                    # Every sentence was withheld: the citizen is told, never shown any of it.
                    yield SAFE_MESSAGES[lang]
                return
        # A whole answer (or the deterministic one after a model that failed mid-answer).
        verdict = check_answer(written.text, api_texts, lang)
        sleep = self._sleep or asyncio.sleep
        lead = "\n\n" if sentences.sent.strip() else ""
        async for piece in paced_chunks(lead + verdict.text, self._chunk_delay, sleep):
            yield piece

    async def CallEndpoint(
        self, request: caller_pb2.CallEndpointRequest, context: grpc.aio.ServicerContext
    ) -> caller_pb2.CallEndpointResponse:
        """Calls a registered endpoint only: the request names it by endpoint_id and the
        catalogue's URL and method are used, never the request's (no open fetch proxy)."""
        owner = acting_owner(request.owner_id)
        if not request.HasField("call"):
            raise InvalidArgument("call is required", field="call")
        call = await self._registered(request.call, "call", owner, context, cached_allowed=False)
        (report,) = await self._executor.run(
            [call],
            question="",
            lang=_language(request.language),
            owner_id=request.owner_id,
            chat_id=request.chat_id,
            timeout_seconds=self._call_budget(context),
        )
        return caller_pb2.CallEndpointResponse(
            outcome=call_outcome(report),
            response_json=_response_json(report.result.data) if report.result.has_body else "",
            error_message=report.result.error_message or "",
        )

    async def _registered(
        self,
        call: caller_pb2.EndpointCall,
        field: str,
        owner: str,
        context: grpc.aio.ServicerContext,
        *,
        cached_allowed: bool,
    ) -> PlannedCall:
        """The call with the endpoint the catalogue registers under its endpoint_id; the
        request's own URL, method and labels are never used. A private endpoint is only
        for a signed-in owner (`user:`)."""
        endpoint_id = call.endpoint.endpoint_id
        if not endpoint_id:
            raise InvalidArgument(
                f"{field}.endpoint.endpoint_id is required: only registered endpoints can be called",
                field=f"{field}.endpoint.endpoint_id",
            )
        if call.cached_result_id and not cached_allowed:
            raise InvalidArgument(
                "CallEndpoint makes real calls; cached results go to ExecuteCalls",
                field=f"{field}.cached_result_id",
            )
        if self._registry is None:
            raise FailedPrecondition(
                "calls need the endpoint catalogue (set ATC_CALLER_INDEXER_TARGET)",
                reason="CATALOGUE_NOT_CONFIGURED",
            )
        registered = await self._registry.get(
            endpoint_id, timeout=downstream_timeout(context, 5.0), service=call.endpoint.type == SERVICE_KIND
        )
        if registered is None:
            log.warning("call refused: endpoint %s is not registered", endpoint_id)
            raise NotFound(
                f"endpoint {endpoint_id} is not registered",
                reason="ENDPOINT_NOT_REGISTERED",
                endpoint_id=endpoint_id,
            )
        if registered.visibility == "private" and not owner.startswith("user:"):
            log.warning("call refused: endpoint %s is private and the owner is not signed in", endpoint_id)
            raise PermissionDenied(
                "this endpoint is only for signed-in users",
                reason="ENDPOINT_PRIVATE",
                endpoint_id=endpoint_id,
            )
        # cached_response_json is not read any more (deprecated): bodies stay in the store.
        checked = caller_pb2.EndpointCall(
            endpoint=registered,
            params=call.params,
            cached_result_id=call.cached_result_id,
            broader=call.broader,
        )
        if call.HasField("shape"):
            # What the citizen asked of the result travels with the call, not the endpoint.
            checked.shape.CopyFrom(call.shape)
        return planned_call(checked, field)

    async def GetResult(
        self, request: caller_pb2.GetResultRequest, context: grpc.aio.ServicerContext
    ) -> caller_pb2.GetResultResponse:
        if not request.result_id:
            raise InvalidArgument("result_id is required", field="result_id")
        stored = await self._store.get(request.result_id, acting_owner(request.owner_id))
        return caller_pb2.GetResultResponse(
            result=caller_pb2.StoredResult(
                result_id=stored.result_id,
                endpoint_name=stored.endpoint_name,
                question=stored.question,
                summary=stored.summary,
                response_json=_response_json(stored.response),
                generated_at=stored.generated_at,
                owner_id=stored.owner_id,
                query_json=_response_json(stored.query),
            )
        )
