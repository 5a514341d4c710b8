"""Who a chat id belongs to: recorded when the chat starts, checked on every turn.

A chat's owner used to be known only from the loop's stored session, so between two
sessions (after an answer) any other token could take the chat id over. Now the edge
records the owner of a chat id on its first turn — Redis `SET NX` with the chat's
lifetime, refreshed by each turn — and refuses a turn from anyone else with 403
(OWNED_BY_ANOTHER), session or not. A store that does not answer is an outage (503,
"temporarily unavailable, try again"), never a free chat id.

Without a Redis URL (one edge, tests) the record is kept in process memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from services.errors import PermissionDenied, Unavailable

KEY_PREFIX = "atc:chat-owner:"


class ChatOwners(Protocol):
    async def claim(self, chat_id: str, owner_id: str) -> None:
        """Record `owner_id` as the chat's owner if it has none; PermissionDenied when
        another owner has it; Unavailable when the record cannot be read."""
        ...


def _refused(chat_id: str) -> PermissionDenied:
    return PermissionDenied("this chat belongs to another owner", reason="OWNED_BY_ANOTHER", chat_id=chat_id)


# One round trip: claim when free, else refresh the lifetime for the same owner; returns
# the owner on record.
_CLAIM = """
local current = redis.call('GET', KEYS[1])
if not current then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return ARGV[1]
end
if current == ARGV[1] then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return current
"""


class RedisChatOwners:
    def __init__(self, redis: aioredis.Redis, *, ttl_seconds: int) -> None:
        self._redis = redis
        self._ttl = ttl_seconds
        self._script = redis.register_script(_CLAIM)

    async def claim(self, chat_id: str, owner_id: str) -> None:
        try:
            raw = await self._script(keys=[KEY_PREFIX + chat_id], args=[owner_id, self._ttl])
        except (RedisError, OSError) as exc:
            raise Unavailable(
                f"the chat owner record is unavailable: {exc!r}", reason="CHAT_OWNERS_UNAVAILABLE"
            ) from exc
        current = raw.decode() if isinstance(raw, bytes) else str(raw)
        if current != owner_id:
            raise _refused(chat_id)

    async def close(self) -> None:
        await self._redis.aclose()


class MemoryChatOwners:
    def __init__(self, *, ttl_seconds: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_seconds
        self._clock = clock
        self._owners: dict[str, tuple[str, float]] = {}

    async def claim(self, chat_id: str, owner_id: str) -> None:
        now = self._clock()
        if len(self._owners) > 100_000:
            self._owners = {k: v for k, v in self._owners.items() if v[1] > now}
        current = self._owners.get(chat_id)
        if current is not None and current[1] > now and current[0] != owner_id:
            raise _refused(chat_id)
        self._owners[chat_id] = (owner_id, now + self._ttl)

    async def close(self) -> None:
        return None
