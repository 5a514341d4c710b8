"""Redis failures as one mesh error: the servicer turns it into a localized
answer, and the next turn works as soon as Redis is back (nothing is cached
in the process)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.errors import Unavailable

log = logging.getLogger(__name__)

STORE_UNAVAILABLE = "SESSION_STORE_UNAVAILABLE"


class StoreGuard:
    """Turns Redis connection failures into Unavailable(SESSION_STORE_UNAVAILABLE),
    logged and counted."""

    def __init__(self) -> None:
        self.failures = 0

    @asynccontextmanager
    async def guarded(self, chat_id: str) -> AsyncIterator[None]:
        try:
            yield
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            self.failures += 1
            log.error("chat %s: session store unavailable (%d so far): %s", chat_id, self.failures, error)
            raise Unavailable(
                "the session store is unavailable", reason=STORE_UNAVAILABLE, chat_id=chat_id
            ) from error
