"""What the router needs from the rest of the mesh."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from classifier_svc.candidates import Candidate, ChatSnapshot
from classifier_svc.passages import Passage
from services.errors import Unavailable
from services.language import Lang


class SessionLookupFailed(Unavailable):
    """Whether the chat has a session cannot be told (the store is away): never read as
    "no session", never answered from the knowledge base instead — the turn is "try again"."""

    reason = "SESSION_LOOKUP_UNAVAILABLE"


class EndpointSearch(Protocol):
    async def search(self, query: str, limit: int) -> list[Candidate]:
        """Catalogue endpoints for `query`, ordered by hybrid rank, with their cosines.
        Implementations reuse one embedding per distinct text within a turn."""
        ...


class SessionDirectory(Protocol):
    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        """The chat's session, else (for a `message`) its follow-up verdict; raises
        SessionLookupFailed when the state cannot be read."""
        ...

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None: ...


class KnowledgeSearch(Protocol):
    async def search(self, query: str, limit: int) -> list[Passage]:
        """Knowledge-base passages for `query`, ordered by hybrid rank, with dense cosines."""
        ...


class EndpointDisambiguator(Protocol):
    async def choose(self, message: str, candidates: Sequence[Candidate]) -> Candidate | None:
        """The one candidate the message asks for, or None when none fits. Raises on failure."""
        ...


class IntentDecomposer(Protocol):
    async def decompose(self, message: str, max_parts: int) -> list[str]:
        """Focused sub-queries when the message asks for several things; [] for one. Raises on failure."""
        ...
