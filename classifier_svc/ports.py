"""What the router needs from the rest of the mesh."""

from __future__ import annotations

from typing import Protocol

from classifier_svc.candidates import ActiveSession, Candidate
from classifier_svc.passages import Passage


class EndpointSearch(Protocol):
    async def search(self, query: str, limit: int) -> list[Candidate]:
        """Catalogue endpoints for `query`, ordered by hybrid rank, with dense cosines."""
        ...


class SessionDirectory(Protocol):
    async def active_session(self, chat_id: str, owner_id: str = "") -> ActiveSession | None: ...

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None: ...


class KnowledgeSearch(Protocol):
    async def search(self, query: str, limit: int) -> list[Passage]:
        """Knowledge-base passages for `query`, ordered by hybrid rank, with dense cosines."""
        ...
