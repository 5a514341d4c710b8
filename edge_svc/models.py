"""Request and response bodies of the edge's HTTP API (camelCase on the wire)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from edge_svc.limits import BodyRejected
from services.clients import ChatTurnInput, HistoryMessage
from services.language import Lang
from services.message_bounds import MessageBounds


class HistoryItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # "bot" is what the Bürokratt GUI calls the assistant.
    role: Literal["user", "assistant", "bot"]
    content: str


class OrchestrateRequest(BaseModel):
    """Body of POST /v1/orchestrate and /v1/orchestrate/stream."""

    model_config = ConfigDict(extra="forbid")

    chat_id: str = Field(alias="chatId", min_length=1, max_length=200)
    # Length bounds are settings (TurnLimits.check), so they can name the field.
    message: str
    language: Lang | None = None
    conversation_history: list[HistoryItem] = Field(default_factory=list, alias="conversationHistory")
    # Accepted for the Bürokratt GUI's sake and ignored: the owner comes from the
    # verified credential (edge_svc/identity.py), never from the body.
    author_id: str = Field(default="", alias="authorId", max_length=200)

    @field_validator("message")
    @classmethod
    def _message_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message must not be empty")
        return value

    @field_validator("chat_id")
    @classmethod
    def _chat_id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("chatId must not be empty")
        return value

    def to_turn(self, request_id: str, owner_id: str) -> ChatTurnInput:
        return ChatTurnInput(
            chat_id=self.chat_id,
            message=self.message,
            language=self.language,
            history=tuple(
                HistoryMessage(role="user" if item.role == "user" else "assistant", content=item.content)
                for item in self.conversation_history
            ),
            owner_id=owner_id,
            request_id=request_id,
        )


@dataclass(frozen=True)
class TurnLimits:
    """The edge's bounds on a chat turn (services.message_bounds; configured tighter or equal)."""

    bounds: MessageBounds = field(default_factory=MessageBounds)

    def check(self, turn: OrchestrateRequest) -> None:
        """Raise BodyRejected (400, naming the field) for a turn over a bound."""
        over = self.bounds.exceeded(
            turn.message,
            [item.content for item in turn.conversation_history],
            message_field="message",
            history_field="conversationHistory",
        )
        if over is not None:
            raise BodyRejected(over.message, field=over.field)


class QuestionInfo(BaseModel):
    endpoint_names: list[str] = Field(serialization_alias="endpointNames")
    missing_params: list[str] = Field(serialization_alias="missingParams")
    # The clarifying question as streamed (its question tokens).
    text: str


class OrchestrateResponse(BaseModel):
    """Body of POST /v1/orchestrate: the whole turn, collected."""

    chat_id: str = Field(serialization_alias="chatId")
    request_id: str = Field(serialization_alias="requestId")
    content: str
    outcome: str
    workflow: str
    question: QuestionInfo | None
    call_outcomes: list[dict[str, Any]] = Field(serialization_alias="callOutcomes")
    llm_calls: int = Field(serialization_alias="llmCalls")
    # Sources of a knowledge-based (RAG) answer: [{"title", "url"}].
    sources: list[dict[str, str]] = Field(default_factory=list)
    # An in-stream error event (the user already got a localized text as tokens).
    error: dict[str, Any] | None = None


def error_body(message: str, *, field: str | None = None, reason: str | None = None) -> dict[str, Any]:
    """The one error shape of the edge: {"error": {"message", "field", "reason"}}."""
    return {"error": {"message": message, "field": field, "reason": reason}}


def validation_error_body(error: ValidationError) -> dict[str, Any]:
    """The first problem of a failed body validation, naming its field (dotted path)."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = f"unknown field {field!r}"
    elif first["type"] == "missing":
        message = f"{field} is required"
    elif first["type"] == "value_error":
        message = str(first.get("ctx", {}).get("error", message))
    elif field:
        message = f"{field}: {message}"
    return error_body(message, field=field, reason="INVALID_ARGUMENT")
