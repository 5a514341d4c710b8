"""The loop's memory of a conversation between turns, kept in Redis as JSON
under `session:{chat_id}` with a sliding TTL (every save resets it)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from enum import StrEnum

import redis.asyncio as aioredis
from pydantic import BaseModel, Field
from redis.exceptions import LockError, WatchError

from loop_svc.schema import EndpointSpec, ParamSpec, merge_params
from services.errors import Unavailable
from services.language import Lang

log = logging.getLogger(__name__)


class SessionState(StrEnum):
    COLLECTING_PARAMS = "collecting_params"
    AWAITING_CONTINUATION = "awaiting_continuation"


class Session(BaseModel):
    chat_id: str
    owner_id: str = ""
    state: SessionState = SessionState.COLLECTING_PARAMS
    endpoints: list[EndpointSpec]
    # Values collected so far, per endpoint name, as normalised strings.
    collected: dict[str, dict[str, str]] = Field(default_factory=dict)
    turn_count: int = 0
    max_turns: int = 5
    continuation_turn: int = 3
    language: Lang = "en"
    # The message that started the session: the formatter answers it.
    original_query: str = ""
    # What the last clarifying question asked for.
    asked: list[str] = Field(default_factory=list)
    # Bumped by every save: a writer that read an older version loses (compare-and-set).
    version: int = 0
    # A 4xx answer named this parameter: its old value was wrong and is asked again.
    rejected: list[str] = Field(default_factory=list)
    # The nearest values the API can serve, offered instead of ones it cannot ("at most 7
    # days: shall I show 1–7 December?"): a "yes" takes them.
    offered: dict[str, str] = Field(default_factory=dict)
    # A message split into several requests: the part of it each endpoint answers, by
    # endpoint name ("car tax for 123ABC" / "the postcode of Viru 4"). Each endpoint's
    # values are read from its own part, and its answer's shape too.
    parts: dict[str, str] = Field(default_factory=dict)

    def readable_by(self, owner_id: str) -> bool:
        """A session bound to an owner is only for that owner."""
        return not self.owner_id or self.owner_id == owner_id

    @property
    def params(self) -> list[ParamSpec]:
        return merge_params(self.endpoints)

    @property
    def known(self) -> dict[str, str]:
        """Every collected value by parameter name (shared names agree)."""
        merged: dict[str, str] = {}
        for values in self.collected.values():
            merged.update(values)
        return merged

    def apply(self, values: dict[str, str]) -> None:
        """Give each value to every endpoint that has a parameter of that name."""
        for endpoint in self.endpoints:
            names = {p.name for p in endpoint.params}
            mine = {k: v for k, v in values.items() if k in names}
            if mine:
                self.collected.setdefault(endpoint.name, {}).update(mine)

    def apply_to(self, endpoint_name: str, values: dict[str, str]) -> None:
        """Give values to one endpoint only (those of its own part of the message)."""
        for endpoint in self.endpoints:
            if endpoint.name == endpoint_name:
                names = {p.name for p in endpoint.params}
                mine = {k: v for k, v in values.items() if k in names}
                if mine:
                    self.collected.setdefault(endpoint.name, {}).update(mine)

    def missing(self) -> list[ParamSpec]:
        """Required parameters some endpoint still lacks, in schema order."""
        lacking: set[str] = set()
        for endpoint in self.endpoints:
            have = self.collected.get(endpoint.name, {})
            lacking |= {name for name in endpoint.required_names if name not in have}
        return [p for p in self.params if p.name in lacking]

    def endpoints_missing(self) -> list[str]:
        return [
            e.name
            for e in self.endpoints
            if any(n not in self.collected.get(e.name, {}) for n in e.required_names)
        ]


class SessionConflict(Exception):
    """Another writer saved the session after we read it."""

    def __init__(self, chat_id: str) -> None:
        super().__init__(f"session {chat_id!r} changed while this turn ran")
        self.chat_id = chat_id


class SessionStore:
    """Sessions in Redis. A save is a compare-and-set on the session's version
    (WATCH/MULTI), so two replicas never overwrite each other's turn; `locked`
    serialises turns of one chat so the compare-and-set rarely has to retry."""

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        ttl_seconds: int = 1800,
        lock_seconds: float = 30.0,
        lock_wait_seconds: float = 5.0,
    ) -> None:
        self._redis = client
        self._ttl = ttl_seconds
        self._lock_seconds = lock_seconds
        self._lock_wait = lock_wait_seconds

    @staticmethod
    def key(chat_id: str) -> str:
        return f"session:{chat_id}"

    async def get(self, chat_id: str) -> Session | None:
        raw = await self._redis.get(self.key(chat_id))
        if raw is None:
            return None
        return Session.model_validate_json(raw)

    async def save(self, session: Session) -> Session:
        """Writes `session` if the stored one still has the version it was read at
        (absent counts as version 0), as one WATCH/MULTI transaction; returns the
        saved session with its new version. Raises SessionConflict otherwise."""
        key = self.key(session.chat_id)
        saved = session.model_copy(update={"version": session.version + 1})
        async with self._redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                raw = await pipe.get(key)
                current = Session.model_validate_json(raw).version if raw is not None else 0
                if current != session.version:
                    raise SessionConflict(session.chat_id)
                pipe.multi()
                pipe.set(key, saved.model_dump_json(), ex=self._ttl)
                await pipe.execute()
            except WatchError as error:
                raise SessionConflict(session.chat_id) from error
        return saved

    async def delete(self, chat_id: str, *, owner_id: str | None = None) -> bool:
        """Deletes the chat's session; with `owner_id`, only one that owner may read."""
        if owner_id is None:
            return bool(await self._redis.delete(self.key(chat_id)))
        session = await self.get(chat_id)
        if session is None or not session.readable_by(owner_id):
            return False
        return bool(await self._redis.delete(self.key(chat_id)))

    async def ttl(self, chat_id: str) -> int:
        return int(await self._redis.ttl(self.key(chat_id)))

    @asynccontextmanager
    async def locked(self, chat_id: str) -> AsyncIterator[None]:
        """Holds `lock:session:{chat_id}` so two turns of one chat cannot both
        read, decide and write. The lock expires by itself if a holder dies."""
        lock = self._redis.lock(
            f"lock:session:{chat_id}", timeout=self._lock_seconds, blocking_timeout=self._lock_wait
        )
        if not await lock.acquire():
            raise Unavailable(
                "another turn of this chat is still running", reason="SESSION_BUSY", chat_id=chat_id
            )
        try:
            yield
        finally:
            try:
                await lock.release()
            except LockError:
                log.warning("session lock for %s expired before release", chat_id)
