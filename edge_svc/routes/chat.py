"""POST /v1/orchestrate/stream (SSE) and POST /v1/orchestrate (collected JSON).

Errors before the first event (a rejected turn, an unreachable classifier)
answer with a JSON error and an HTTP status (400/503/504), before any byte of
SSE. Once the stream has started, a failure becomes an `error` frame followed
by an `end` frame, so a stream always ends with END.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator

import anyio
from pydantic import ValidationError
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from atc.common.v1 import turn_event_pb2
from edge_svc.chat_owners import ChatOwners, MemoryChatOwners
from edge_svc.identity import ChatBinding, identity_of
from edge_svc.limits import BodyRejected, JsonLimits
from edge_svc.models import (
    OrchestrateRequest,
    OrchestrateResponse,
    QuestionInfo,
    TurnLimits,
    validation_error_body,
)
from edge_svc.routes.common import (
    json_object,
    json_response,
    mesh_error_response,
    rejected_body,
    request_id_for,
)
from edge_svc.sse import TurnSummary, to_sse_frame
from edge_svc.upstream import Upstream
from services.errors import MeshError, Unavailable
from services.language import Lang
from services.runtime.relay import failure_events
from services.runtime.request_context import REQUEST_ID_HEADER

log = logging.getLogger("atc.edge.chat")

# sse-starlette's keep-alive comment interval; proxies drop silent connections.
_PING_SECONDS = 15


class ChatRoutes:
    def __init__(
        self,
        upstream: Upstream,
        *,
        turn_timeout: float,
        json_limits: JsonLimits,
        turn_limits: TurnLimits,
        owners: ChatOwners | None = None,
        shutdown_grace: float = 0.0,
    ) -> None:
        """`shutdown_grace`: seconds a stream in flight may go on after SIGTERM (0: cut
        at once). A rolling update then lets each turn end with END."""
        self._owners: ChatOwners = owners or MemoryChatOwners(ttl_seconds=24 * 3600)
        self._upstream = upstream
        self._turn_timeout = turn_timeout
        self._shutdown_grace = shutdown_grace
        self._json_limits = json_limits
        self._turn_limits = turn_limits

    async def _turn(
        self, request: Request, request_id: str
    ) -> tuple[OrchestrateRequest, ChatBinding] | Response:
        """The checked body and the verified owner it acts for, or the 4xx to answer.
        The credential is checked first: a bad one costs no body parsing."""
        identity = identity_of(request)
        body: OrchestrateRequest | None = None
        try:
            owner = identity.resolve(request)
            body = OrchestrateRequest.model_validate(await json_object(request, self._json_limits))
            self._turn_limits.check(body)
            binding = identity.bind(owner, body.chat_id)
            # The chat id is the owner's from its first turn on, session or not.
            await self._owners.claim(body.chat_id, binding.owner.owner_id)
            return body, binding
        except BodyRejected as exc:
            return rejected_body(exc, request_id)
        except ValidationError as exc:
            return json_response(validation_error_body(exc), request_id, 400)
        except MeshError as exc:
            return mesh_error_response(exc, request_id, body.language if body is not None else None)

    async def stream(self, request: Request) -> Response:
        request_id = request_id_for(request)
        checked = await self._turn(request, request_id)
        if isinstance(checked, Response):
            return checked
        body, binding = checked
        turn = body.to_turn(request_id, binding.owner.owner_id)
        events = self._upstream.classifier.route_turn(turn, timeout=self._turn_timeout)
        try:
            first = await anext(events, None)
        except MeshError as exc:
            await events.aclose()
            log.info("turn rejected before streaming: %s request_id=%s", exc.reason, request_id)
            return mesh_error_response(exc, request_id, body.language)
        except BaseException:
            await events.aclose()
            raise
        response = EventSourceResponse(
            _sse_frames(turn.chat_id, first, events, request_id, body.language),
            headers={REQUEST_ID_HEADER: request_id},
            ping=_PING_SECONDS,
            sep="\n",
            shutdown_grace_period=self._shutdown_grace,
        )
        identity_of(request).attach(response, binding)
        return response

    async def collect(self, request: Request) -> Response:
        request_id = request_id_for(request)
        checked = await self._turn(request, request_id)
        if isinstance(checked, Response):
            return checked
        body, binding = checked
        turn = body.to_turn(request_id, binding.owner.owner_id)
        summary = TurnSummary()
        events = self._upstream.classifier.route_turn(turn, timeout=self._turn_timeout)
        try:
            async for event in events:
                summary.add(event)
                if summary.ended:
                    break
        except MeshError as exc:
            return mesh_error_response(exc, request_id, body.language)
        finally:
            await events.aclose()
        if not summary.ended:
            return mesh_error_response(
                Unavailable("the turn stream ended without an end event"), request_id, body.language
            )
        response = OrchestrateResponse(
            chat_id=turn.chat_id,
            request_id=request_id,
            content=summary.content,
            outcome=summary.outcome,
            workflow=summary.workflow,
            question=(
                QuestionInfo(
                    endpoint_names=summary.question["endpointNames"],
                    missing_params=summary.question["missingParams"],
                    text=summary.question_text,
                )
                if summary.question is not None
                else None
            ),
            call_outcomes=summary.call_outcomes,
            llm_calls=summary.llm_calls,
            sources=summary.sources,
            error=summary.error,
        )
        answer = json_response(response.model_dump(by_alias=True), request_id)
        identity_of(request).attach(answer, binding)
        return answer


def _sse(chat_id: str, event: turn_event_pb2.TurnEvent) -> ServerSentEvent:
    frame = to_sse_frame(chat_id, event)
    return ServerSentEvent(data=frame.data, event=frame.event, sep="\n")


async def _sse_frames(
    chat_id: str,
    first: turn_event_pb2.TurnEvent | None,
    events: AsyncGenerator[turn_event_pb2.TurnEvent, None],
    request_id: str,
    lang: Lang | None = None,
) -> AsyncIterator[ServerSentEvent]:
    """One frame per event, ending with END whatever happens upstream. A client
    disconnect arrives here as CancelledError; closing `events` cancels the call."""
    try:
        event = first
        while event is not None:
            yield _sse(chat_id, event)
            if event.WhichOneof("kind") == "end":
                return
            event = await anext(events, None)
        failure: MeshError = Unavailable("the turn stream ended without an end event")
    except MeshError as exc:
        failure = exc
    finally:
        # Shielded: after a disconnect the scope is cancelled, and the upstream
        # call must still be cancelled.
        with anyio.CancelScope(shield=True):
            await events.aclose()
    log.warning("turn stream failed: %s request_id=%s", failure.reason, request_id)
    for failure_event in failure_events(failure, lang, where="edge", request_id=request_id):
        yield _sse(chat_id, failure_event)
