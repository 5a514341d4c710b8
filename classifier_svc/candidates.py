"""What the router reasons about: catalogue candidates and active sessions.

The endpoint itself is carried opaquely (`endpoint`) so the domain never
depends on the wire format; adapters fill it in and read it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal
from urllib.parse import urlsplit

from classifier_svc.passages import Passage
from services.language import Lang


@dataclass(frozen=True)
class Candidate:
    endpoint_id: str
    name: str
    dense_cosine: float
    hybrid_rank: int
    # Query words found in the endpoint's text, and how many content words the query has.
    matched_terms: int = 0
    query_terms: int = 0
    endpoint: Any = field(default=None, compare=False, repr=False)
    # Cosine to the endpoint's example prototype (0 without examples) and to its description.
    prototype_cosine: float = 0.0
    description_cosine: float = 0.0
    has_prototype: bool = False

    @property
    def term_coverage(self) -> float:
        """Share of the query's words that the endpoint's text contains. Names (streets,
        cities) do not count against it, but count for it when the text has them."""
        if not self.query_terms:
            return 1.0 if self.matched_terms else 0.0
        return min(1.0, self.matched_terms / self.query_terms)

    @cached_property
    def api(self) -> str:
        """The API the endpoint belongs to: host and path without the operation's own
        segment or any templated one ("https://api.example.test/hotels/reserve_hotel" and
        ".../hotels/search_hotel" → "api.example.test/hotels"). A conversation about one
        operation of an API is about the API, so its other operations share the context.
        Without a URL the endpoint is an API of its own."""
        url = str(getattr(self.endpoint, "url", "") or "")
        if not url:
            return self.name
        parts = urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        while segments and "{" in segments[-1]:
            segments.pop()
        return "/".join([parts.netloc.lower(), *segments[:-1]])

    @property
    def acts(self) -> bool:
        """Whether calling the endpoint changes something (books, buys, sends) rather
        than looks something up."""
        return str(getattr(self.endpoint, "method", "GET") or "GET").upper() != "GET"


@dataclass(frozen=True)
class PriorMessage:
    """One earlier message of the conversation, as the GUI sent it."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class PendingParam:
    """A required parameter the session still waits for."""

    name: str
    type: str
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActiveSession:
    chat_id: str
    endpoint_names: tuple[str, ...]
    language: Lang | None
    # What the loop is still asking for; empty when unknown.
    pending: tuple[PendingParam, ...] = ()
    # Every endpoint of the session is a registered service (SERVICE workflow).
    is_service: bool = False


@dataclass(frozen=True)
class ChatSnapshot:
    """What routing one message needs of its chat, read in one call: the active session,
    else the loop's follow-up verdict on the chat's last API call for the message
    (loop_pb2.DetectFollowUpResponse; None when not asked for)."""

    session: ActiveSession | None
    follow_up: Any = None


class Workflow(StrEnum):
    SERVICE = "service"
    API_TOOL_CALLING = "api_tool_calling"
    CONTEXT = "context"
    RAG = "rag"
    OOD = "ood"


class ExecutionMode(StrEnum):
    SINGLE = "single"
    PARALLEL = "parallel"


class Reason(StrEnum):
    NEW_MATCH = "new_match"
    SESSION_RESUME = "session_resume"
    INTENT_SWITCH = "intent_switch"
    NO_MATCH = "no_match"


@dataclass(frozen=True)
class Decision:
    workflow: Workflow
    language: Lang
    reason: Reason
    confidence: float = 0.0
    mode: ExecutionMode = ExecutionMode.SINGLE
    endpoints: tuple[Candidate, ...] = ()
    # A message split into several requests: the part each endpoint was matched from,
    # index-aligned with `endpoints` (the loop reads each endpoint's values from its own
    # part). Empty when the whole message is one request.
    endpoint_queries: tuple[str, ...] = ()
    reasoning: str = ""
    # What the classifier answers itself (CONTEXT and OOD), in the turn's language.
    reply: str = ""
    # RAG: the passages that passed the relevance gate, best first.
    passages: tuple[Passage, ...] = ()
    # The question the layer answers (a fallback answers the session's original query).
    query: str = ""
    # LLM calls made while deciding (a CONTEXT answer written by the LLM).
    llm_calls: int = 0
    llm_validated: bool = False
    # API_TOOL_CALLING: the calibrated evidence of the chosen endpoint (api_matcher), when
    # one endpoint was matched on its own; how sure the match is decides whether it may
    # open a session or must be confirmed first.
    evidence: float | None = None
    # LoopService.DetectFollowUp's answer for this message when it was asked
    # (loop_pb2.DetectFollowUpResponse): handed back to the loop with the turn, so the
    # follow-up decision (maybe a model call) is made once per turn.
    follow_up: Any = None
