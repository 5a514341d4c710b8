"""Protobuf ⇄ loop domain types, and the TurnEvents a loop result becomes."""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf import json_format

from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.loop.v1 import loop_pb2
from loop_svc.loop import Abandoned, NeedsInput
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.session import Session, SessionState
from loop_svc.turns import TurnRequest
from services.errors import InvalidArgument
from services.language import from_proto, to_proto
from services.tokens import split_tokens

_STATES = {
    SessionState.COLLECTING_PARAMS: loop_pb2.SESSION_STATE_COLLECTING_PARAMS,
    SessionState.AWAITING_CONTINUATION: loop_pb2.SESSION_STATE_AWAITING_CONTINUATION,
}
WORKFLOW = turn_event_pb2.WORKFLOW_API_TOOL_CALLING


def endpoint_from_proto(endpoint: catalogue_pb2.Endpoint) -> EndpointSpec:
    return EndpointSpec(
        name=endpoint.name,
        params=[
            ParamSpec(
                name=p.name,
                type=p.type or "string",
                required=p.required,
                description=p.description,
                enum=list(p.enum),
                descriptions=dict(p.descriptions),
                pattern=p.pattern,
            )
            for p in endpoint.params
        ],
        payload=json_format.MessageToDict(endpoint, preserving_proto_field_name=True),
    )


def endpoint_to_proto(spec: EndpointSpec) -> catalogue_pb2.Endpoint:
    if spec.payload:
        return json_format.ParseDict(spec.payload, catalogue_pb2.Endpoint(), ignore_unknown_fields=True)
    return catalogue_pb2.Endpoint(
        name=spec.name,
        params=[
            catalogue_pb2.EndpointParam(
                name=p.name,
                type=p.type,
                required=p.required,
                description=p.description,
                enum=p.enum,
                descriptions=p.descriptions,
                pattern=p.pattern,
            )
            for p in spec.params
        ],
    )


def turn_request(request: loop_pb2.RunTurnRequest) -> TurnRequest:
    # The parts are index-aligned with the endpoints; a misaligned list is ignored (the
    # whole message then serves every endpoint, as for a one-request message).
    aligned = len(request.endpoint_queries) == len(request.endpoints)
    return TurnRequest(
        parts={e.name: q for e, q in zip(request.endpoints, request.endpoint_queries, strict=False) if q}
        if aligned
        else {},
        chat_id=request.turn.chat_id,
        message=request.turn.message,
        endpoints=[endpoint_from_proto(e) for e in request.endpoints],
        language=from_proto(request.language) or from_proto(request.turn.language),
        resume=request.resume_session,
        owner_id=request.turn.owner_id,
        history=[
            (_role(m.role, n), m.content)
            for n, m in enumerate(request.turn.conversation_history)
            if m.content.strip()
        ],
    )


def _role(role: int, index: int) -> str:
    if role not in chat_pb2.ChatRole.values():
        # An open enum: a value this build does not know is bad input, not a crash.
        field = f"turn.conversation_history[{index}].role"
        raise InvalidArgument(f"{field} {role} is not a known role", field=field)
    return chat_pb2.ChatRole.Name(role).removeprefix("CHAT_ROLE_").lower()


def session_to_proto(session: Session) -> loop_pb2.Session:
    return loop_pb2.Session(
        chat_id=session.chat_id,
        state=_STATES[session.state],
        endpoints=[endpoint_to_proto(e) for e in session.endpoints],
        collected={
            name: loop_pb2.CollectedParams(values=values) for name, values in session.collected.items()
        },
        turn_count=session.turn_count,
        max_turns=session.max_turns,
        language=to_proto(session.language),
        original_query=session.original_query,
    )


def end_event(outcome: int, llm_calls: int = 0, fallback_query: str = "") -> turn_event_pb2.TurnEvent:
    return turn_event_pb2.TurnEvent(
        end=turn_event_pb2.End(
            outcome=outcome, workflow=WORKFLOW, llm_calls=llm_calls, fallback_query=fallback_query
        )
    )


def token_events(text: str, kind: int) -> Iterator[turn_event_pb2.TurnEvent]:
    for piece in split_tokens(text):
        yield turn_event_pb2.TurnEvent(token=turn_event_pb2.Token(text=piece, kind=kind))


def question_events(result: NeedsInput, llm_calls: int) -> Iterator[turn_event_pb2.TurnEvent]:
    yield turn_event_pb2.TurnEvent(
        question=turn_event_pb2.Question(endpoint_names=result.endpoint_names, missing_params=result.missing)
    )
    yield from token_events(result.question, turn_event_pb2.TOKEN_KIND_QUESTION)
    yield end_event(turn_event_pb2.TURN_OUTCOME_NEEDS_INPUT, llm_calls)


def abandoned_events(
    result: Abandoned, llm_calls: int, original_query: str
) -> Iterator[turn_event_pb2.TurnEvent]:
    """No answer text: the classifier answers `fallback_query` from the knowledge base (RAG);
    or, when the citizen ended it ("no", "cancel"), a short acknowledgement and no fallback."""
    yield turn_event_pb2.TurnEvent(
        progress=turn_event_pb2.Progress(
            stage="loop_abandoned", detail=result.reason, workflow=WORKFLOW, endpoint_names=[]
        )
    )
    if result.reply:
        yield from token_events(result.reply, turn_event_pb2.TOKEN_KIND_ANSWER)
        yield end_event(turn_event_pb2.TURN_OUTCOME_ABANDONED, llm_calls)
        return
    yield end_event(turn_event_pb2.TURN_OUTCOME_ABANDONED, llm_calls, original_query)
