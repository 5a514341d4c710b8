"""One turn end to end, apart from calling the APIs: check the request, load or
create the session under the chat's lock, advance the loop, save or delete."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from loop_svc.loop import Step, TurnLoop
from loop_svc.schema import EndpointSpec
from loop_svc.session import Session, SessionConflict, SessionStore
from loop_svc.store_errors import StoreGuard
from services.errors import InvalidArgument, NotFound, Unavailable
from services.language import Lang
from services.message_bounds import MessageBounds
from services.runtime.owner import check_resource_owner

# Compare-and-set attempts before a turn gives up with SESSION_BUSY.
_SAVE_ATTEMPTS = 3


class LanguageGuesser(Protocol):
    def detect(self, text: str, fallback: Lang | None = None) -> Lang: ...


@dataclass(frozen=True)
class TurnRequest:
    chat_id: str
    message: str
    endpoints: list[EndpointSpec] = field(default_factory=list)
    # The turn's language when the caller knows it; detected otherwise.
    language: Lang | None = None
    resume: bool = False
    owner_id: str = ""
    # Earlier messages of the chat, oldest first, as (role, text): a new session starts
    # with the values they state (the current message still wins).
    history: list[tuple[str, str]] = field(default_factory=list)
    # Values a new session starts with (the response cache's param_update seeds).
    seeded: dict[str, str] = field(default_factory=dict)
    # A message split into several requests: the part each endpoint answers, by endpoint name.
    parts: dict[str, str] = field(default_factory=dict)


def session_not_found(chat_id: str) -> NotFound:
    return NotFound(f"no active session for chat {chat_id!r}", reason="SESSION_NOT_FOUND", chat_id=chat_id)


def require_chat_id(chat_id: str, field_name: str = "chat_id") -> None:
    if not chat_id.strip():
        raise InvalidArgument(f"{field_name} must not be empty", field=field_name, reason="EMPTY_FIELD")


# The edge's bounds, checked again for a client that skips it (services.message_bounds).
_BOUNDS = MessageBounds()


def validate(request: TurnRequest) -> None:
    require_chat_id(request.chat_id, "turn.chat_id")
    if not request.message.strip():
        raise InvalidArgument("turn.message must not be empty", field="turn.message", reason="EMPTY_FIELD")
    _BOUNDS.check(
        request.message,
        [text for _, text in request.history],
        message_field="turn.message",
        history_field="turn.conversation_history",
    )
    if not request.resume and not request.endpoints:
        raise InvalidArgument(
            "a new turn needs at least one endpoint", field="endpoints", reason="EMPTY_FIELD"
        )
    for i, endpoint in enumerate(request.endpoints):
        if not endpoint.name.strip():
            raise InvalidArgument(
                "every endpoint needs a name", field=f"endpoints[{i}].name", reason="EMPTY_FIELD"
            )
        for j, param in enumerate(endpoint.params):
            if not param.name.strip():
                raise InvalidArgument(
                    "every parameter needs a name",
                    field=f"endpoints[{i}].params[{j}].name",
                    reason="EMPTY_FIELD",
                )


def _distinct(endpoints: list[EndpointSpec]) -> list[EndpointSpec]:
    seen: dict[str, EndpointSpec] = {}
    for endpoint in endpoints:
        seen.setdefault(endpoint.name, endpoint)
    return list(seen.values())


class TurnRunner:
    def __init__(self, store: SessionStore, loop: TurnLoop, detector: LanguageGuesser) -> None:
        self._store = store
        self._loop = loop
        self._detector = detector
        self.store_guard = StoreGuard()

    async def run(self, request: TurnRequest) -> Step:
        """Raises InvalidArgument, NotFound (SESSION_NOT_FOUND) or Unavailable (SESSION_BUSY)."""
        validate(request)
        async with self.store_guard.guarded(request.chat_id), self._store.locked(request.chat_id):
            for _attempt in range(_SAVE_ATTEMPTS):
                session = await self._session_for(request)
                # Extraction is CPU work (regexes, stemming, maybe dateparser): off the event loop.
                history = "\n".join(f"{role}: {text}" for role, text in request.history)
                step = await asyncio.to_thread(self._loop.advance, session, request.message, history)
                try:
                    await self._commit(request, session, step)
                except SessionConflict:
                    # Someone else wrote this chat's session meanwhile: read it again and redo the turn.
                    continue
                return step
        raise Unavailable(
            "the session kept changing while this turn ran", reason="SESSION_BUSY", chat_id=request.chat_id
        )

    async def _commit(self, request: TurnRequest, read: Session, step: Step) -> None:
        if step.session is not None:
            # A new turn replaces whatever the chat had: compare against what is stored now.
            if not request.resume:
                stored = await self._store.get(request.chat_id)
                step.session.version = stored.version if stored is not None else 0
            step.session = await self._store.save(step.session)
        else:
            await self._store.delete(request.chat_id)

    def language_for(self, request: TurnRequest) -> Lang:
        return request.language or self._detector.detect(request.message)

    async def drop(self, chat_id: str) -> None:
        async with self._store.locked(chat_id):
            await self._store.delete(chat_id)

    async def _session_for(self, request: TurnRequest) -> Session:
        if request.resume:
            session = await self._store.get(request.chat_id)
            if session is None:
                raise session_not_found(request.chat_id)
            # Another owner's chat is refused outright (the edge answers 403), never resumed.
            check_resource_owner(session.owner_id, request.owner_id, "the chat's session")
            return session
        stored = await self._store.get(request.chat_id)
        if stored is not None:
            # Nor replaced: a new intent on another owner's chat must not drop their session.
            check_resource_owner(stored.owner_id, request.owner_id, "the chat's session")
        # A new turn replaces any session the chat had: the classifier saw a new intent.
        language = request.language or self._detector.detect(request.message)
        session = self._loop.new_session(
            request.chat_id,
            _distinct(request.endpoints),
            language=language,
            original_query=request.message.strip(),
            owner_id=request.owner_id,
        )
        names = {e.name for e in session.endpoints}
        session.parts = {name: part for name, part in request.parts.items() if name in names and part.strip()}
        if request.history:
            session = await asyncio.to_thread(self._loop.seed_from_history, session, request.history)
        session.apply(request.seeded)
        return session

    async def reask(
        self, finished: Session, rejected: list[str], offered: dict[str, str] | None = None
    ) -> Session:
        """The API refused a value (4xx naming a parameter): the completed session
        comes back without it, asking for it again."""
        session = finished.model_copy(deep=True)
        for values in session.collected.values():
            for name in rejected:
                values.pop(name, None)
        session.asked = list(rejected)
        session.rejected = list(rejected)
        session.offered = dict(offered or {})
        async with self.store_guard.guarded(session.chat_id), self._store.locked(session.chat_id):
            stored = await self._store.get(session.chat_id)
            session.version = stored.version if stored is not None else 0
            return await self._store.save(session)

    async def get(self, chat_id: str, owner_id: str) -> Session:
        session = await self.find(chat_id, owner_id)
        if session is None:
            raise session_not_found(chat_id)
        return session

    async def find(self, chat_id: str, owner_id: str) -> Session | None:
        """The chat's active session, or None; another owner's is refused."""
        require_chat_id(chat_id)
        async with self.store_guard.guarded(chat_id):
            session = await self._store.get(chat_id)
        if session is not None:
            check_resource_owner(session.owner_id, owner_id, "the chat's session")
        return session

    async def delete(self, chat_id: str, owner_id: str) -> bool:
        require_chat_id(chat_id)
        async with self.store_guard.guarded(chat_id), self._store.locked(chat_id):
            stored = await self._store.get(chat_id)
            if stored is not None:
                check_resource_owner(stored.owner_id, owner_id, "the chat's session")
            return await self._store.delete(chat_id, owner_id=owner_id)
