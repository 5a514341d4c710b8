"""atc.caller.v1.CallerService: proto ⇄ domain, status codes."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import grpc

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import catalogue_pb2, turn_event_pb2
from caller_svc.endpoint import SERVICE_KIND, EndpointSpec, ParamSpec
from caller_svc.executor import BatchOutcome, CallExecutor, CallReport, PlannedCall, batch_outcome
from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from caller_svc.result_store import ResultStore
from services.errors import InvalidArgument, MeshError
from services.language import DEFAULT_LANG, Lang, from_proto
from services.runtime.channels import downstream_timeout
from services.runtime.owner import acting_owner
from services.runtime.status import abort_with
from services.tokens import split_tokens

log = logging.getLogger("atc.caller")

_METHODS = frozenset({"GET", "POST"})
_OUTCOMES = {
    BatchOutcome.ANSWERED: turn_event_pb2.TURN_OUTCOME_ANSWERED,
    BatchOutcome.CACHED: turn_event_pb2.TURN_OUTCOME_CACHED,
    BatchOutcome.FAILED: turn_event_pb2.TURN_OUTCOME_FAILED,
}


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
    )


def planned_call(call: caller_pb2.EndpointCall, field: str) -> PlannedCall:
    """Validate one EndpointCall; `field` is its path in the request, for error details."""
    endpoint = call.endpoint
    if call.cached_response_json:
        try:
            cached = json.loads(call.cached_response_json)
        except ValueError:
            raise InvalidArgument(
                "cached_response_json is not valid JSON", field=f"{field}.cached_response_json"
            ) from None
        return PlannedCall(endpoint_spec(endpoint), dict(call.params), cached=True, cached_response=cached)
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
    return PlannedCall(endpoint_spec(endpoint), dict(call.params))


# Time kept back from the incoming deadline for storing, formatting and streaming
# after the calls: without it a short deadline loses even the calls that succeeded.
REPLY_MARGIN_SECONDS = 0.25


def _language(value: int) -> Lang:
    return from_proto(value) or DEFAULT_LANG


def _response_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def call_outcome(report: CallReport) -> turn_event_pb2.CallOutcome:
    return turn_event_pb2.CallOutcome(
        endpoint_name=report.endpoint_name,
        success=report.result.success,
        http_status=report.result.status_code,
        result_id=report.result_id or "",
        summary=report.summary,
        duration_ms=report.result.duration_ms,
    )


def _event(**kind: Any) -> caller_pb2.ExecuteCallsResponse:
    return caller_pb2.ExecuteCallsResponse(event=turn_event_pb2.TurnEvent(**kind))


class CallerServicer(caller_pb2_grpc.CallerServiceServicer):
    def __init__(
        self,
        executor: CallExecutor,
        store: ResultStore,
        formatter: DeterministicFormatter,
        *,
        batch_timeout_seconds: float,
    ) -> None:
        self._executor = executor
        self._store = store
        self._formatter = formatter
        self._batch_timeout = batch_timeout_seconds

    async def ExecuteCalls(
        self, request: caller_pb2.ExecuteCallsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[caller_pb2.ExecuteCallsResponse]:
        try:
            acting_owner(request.owner_id)
            if not request.calls:
                raise InvalidArgument("at least one call is required", field="calls")
            calls = [planned_call(call, f"calls[{i}]") for i, call in enumerate(request.calls)]
        except MeshError as error:
            await abort_with(context, error)
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
            timeout_seconds=downstream_timeout(context, self._batch_timeout, reserve=REPLY_MARGIN_SECONDS),
        )
        for report in reports:
            yield _event(call_outcome=call_outcome(report))
        answer = self._formatter.format(
            [
                ResultToFormat(r.endpoint_name, r.result.success, r.result.data, r.result.error_message)
                for r in reports
            ],
            lang,
        )
        for piece in split_tokens(answer):
            yield _event(token=turn_event_pb2.Token(text=piece, kind=turn_event_pb2.TOKEN_KIND_ANSWER))
        yield _event(
            end=turn_event_pb2.End(
                outcome=_OUTCOMES[batch_outcome(reports)],
                workflow=turn_event_pb2.WORKFLOW_API_TOOL_CALLING,
                llm_calls=0,
            )
        )

    async def CallEndpoint(
        self, request: caller_pb2.CallEndpointRequest, context: grpc.aio.ServicerContext
    ) -> caller_pb2.CallEndpointResponse:
        try:
            acting_owner(request.owner_id)
            if not request.HasField("call"):
                raise InvalidArgument("call is required", field="call")
            call = planned_call(request.call, "call")
        except MeshError as error:
            await abort_with(context, error)
        (report,) = await self._executor.run(
            [call],
            question="",
            lang=_language(request.language),
            owner_id=request.owner_id,
            chat_id=request.chat_id,
            timeout_seconds=downstream_timeout(context, self._batch_timeout, reserve=REPLY_MARGIN_SECONDS),
        )
        return caller_pb2.CallEndpointResponse(
            outcome=call_outcome(report),
            response_json=_response_json(report.result.data) if report.result.has_body else "",
            error_message=report.result.error_message or "",
        )

    async def GetResult(
        self, request: caller_pb2.GetResultRequest, context: grpc.aio.ServicerContext
    ) -> caller_pb2.GetResultResponse:
        try:
            if not request.result_id:
                raise InvalidArgument("result_id is required", field="result_id")
            stored = await self._store.get(request.result_id, acting_owner(request.owner_id))
        except MeshError as error:
            await abort_with(context, error)
        return caller_pb2.GetResultResponse(
            result=caller_pb2.StoredResult(
                result_id=stored.result_id,
                endpoint_name=stored.endpoint_name,
                question=stored.question,
                summary=stored.summary,
                response_json=_response_json(stored.response),
                generated_at=stored.generated_at,
                owner_id=stored.owner_id,
            )
        )
