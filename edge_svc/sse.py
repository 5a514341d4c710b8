"""TurnEvent → SSE frame mapping, and the turn summary the JSON endpoint returns.

Every TurnEvent becomes exactly one frame: `event:` is the name of the oneof
field that is set, `data:` is JSON with chatId, type (the same name), content
(the human-readable text of the event) and the event's own fields in camelCase.
The content per type: token → its text, progress → detail, call_outcome →
summary, error → the status message, question → "" (its text follows as
question tokens), end → "END".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from atc.common.v1 import turn_event_pb2

END_CONTENT = "END"
_RESERVED = ("chatId", "type", "content")


@dataclass(frozen=True)
class SseFrame:
    event: str
    data: str

    def encode(self) -> str:
        """The frame as it goes on the wire (one data line: the JSON has no newlines)."""
        return f"event: {self.event}\ndata: {self.data}\n\n"


def event_type(event: turn_event_pb2.TurnEvent) -> str:
    kind = event.WhichOneof("kind")
    if kind is None:
        raise ValueError("TurnEvent has no field set")
    return kind


def _content(kind: str, event: turn_event_pb2.TurnEvent) -> str:
    if kind == "token":
        return event.token.text
    if kind == "progress":
        return event.progress.detail
    if kind == "call_outcome":
        return event.call_outcome.summary
    if kind == "error":
        return event.error.message
    if kind == "end":
        return END_CONTENT
    return ""


def event_payload(chat_id: str, event: turn_event_pb2.TurnEvent) -> dict[str, Any]:
    kind = event_type(event)
    fields = json_format.MessageToDict(getattr(event, kind), always_print_fields_with_no_presence=True)
    payload: dict[str, Any] = {"chatId": chat_id, "type": kind, "content": _content(kind, event)}
    payload.update({k: v for k, v in fields.items() if k not in _RESERVED})
    return payload


def to_sse_frame(chat_id: str, event: turn_event_pb2.TurnEvent) -> SseFrame:
    payload = event_payload(chat_id, event)
    return SseFrame(event=payload["type"], data=json.dumps(payload, ensure_ascii=False))


def enum_label(name: str, prefix: str) -> str:
    """TURN_OUTCOME_NEEDS_INPUT → needs_input."""
    return name.removeprefix(prefix).lower()


@dataclass
class TurnSummary:
    """A whole turn folded from its events, for the non-streaming endpoint."""

    content: str = ""
    question_text: str = ""
    question: dict[str, list[str]] | None = None
    call_outcomes: list[dict[str, Any]] = field(default_factory=list)
    # Where a knowledge-based answer came from: [{"title", "url"}].
    sources: list[dict[str, str]] = field(default_factory=list)
    outcome: str = "unspecified"
    workflow: str = "unspecified"
    llm_calls: int = 0
    error: dict[str, Any] | None = None
    ended: bool = False

    def add(self, event: turn_event_pb2.TurnEvent) -> None:
        kind = event_type(event)
        if kind == "token":
            self.content += event.token.text
            if event.token.kind == turn_event_pb2.TOKEN_KIND_QUESTION:
                self.question_text += event.token.text
        elif kind == "question":
            self.question = {
                "endpointNames": list(event.question.endpoint_names),
                "missingParams": list(event.question.missing_params),
            }
        elif kind == "progress" and event.progress.workflow:
            self.workflow = enum_label(turn_event_pb2.Workflow.Name(event.progress.workflow), "WORKFLOW_")
        elif kind == "call_outcome":
            self.call_outcomes.append(
                json_format.MessageToDict(event.call_outcome, always_print_fields_with_no_presence=True)
            )
        elif kind == "sources":
            self.sources += [{"title": s.title, "url": s.url} for s in event.sources.sources]
        elif kind == "error":
            self.error = json_format.MessageToDict(event.error)
        elif kind == "end":
            self.ended = True
            self.outcome = enum_label(turn_event_pb2.TurnOutcome.Name(event.end.outcome), "TURN_OUTCOME_")
            if event.end.workflow:
                self.workflow = enum_label(turn_event_pb2.Workflow.Name(event.end.workflow), "WORKFLOW_")
            self.llm_calls = event.end.llm_calls
