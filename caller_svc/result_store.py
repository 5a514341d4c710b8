"""Full API results kept in Redis under `agent_result:{uuid}` for one hour, so
only a result id and a short summary travel through the LLM context
(RESULT_STORE_LLD). Every result has an owner and reads are owner-checked (an
empty owner can neither store nor read). When Redis is down, callers go on
without a result id with the full payload (FR-04): logged and counted."""

from __future__ import annotations

import hmac
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from services.errors import InvalidArgument, NotFound, PermissionDenied, Unavailable
from services.runtime.telemetry import DomainMetrics, NoMetrics

log = logging.getLogger("atc.caller.results")

KEY_PREFIX = "agent_result:"
EXPIRED_MESSAGE = "Result expired. Ask the user to re-run the query."
ACCESS_DENIED_MESSAGE = "Access denied."


@dataclass(frozen=True)
class StoredResult:
    result_id: str
    endpoint_name: str
    question: str
    summary: str
    response: Any
    generated_at: str
    owner_id: str
    # What was called: {"method", "url", "params"} (the LLD's "query").
    query: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class KeptResult:
    """A stored result a response cache named, with the seconds it has left."""

    result: StoredResult
    ttl_seconds: int


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ResultStore:
    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        ttl_seconds: int = 3600,
        clock: Callable[[], datetime] = _utc_now,
        telemetry: DomainMetrics | None = None,
    ) -> None:
        self._metrics = telemetry or NoMetrics()
        self._redis = redis
        self._ttl = ttl_seconds
        self._clock = clock
        # Saves that fell back to the full payload because Redis failed (FR-04, NFR-04).
        self.fallbacks = 0

    @property
    def ttl_seconds(self) -> int:
        """The lifetime of a result saved now (a cache entry naming it must not outlive it)."""
        return self._ttl

    @staticmethod
    def key(result_id: str) -> str:
        return f"{KEY_PREFIX}{result_id}"

    async def save(
        self,
        *,
        endpoint_name: str,
        question: str,
        summary: str,
        response: Any,
        owner_id: str,
        query: dict[str, Any] | None = None,
    ) -> str | None:
        """Store a result and return its id, or None when it has no owner or Redis cannot take it."""
        if not owner_id:
            log.info("result of %s not stored: no owner", endpoint_name)
            return None
        result = StoredResult(
            result_id=str(uuid.uuid4()),
            endpoint_name=endpoint_name,
            question=question,
            summary=summary,
            response=response,
            generated_at=self._clock().strftime("%Y-%m-%dT%H:%M:%SZ"),
            owner_id=owner_id,
            query=query or {},
        )
        # vars(), not asdict(): asdict deep-copies the response (up to megabytes) first.
        payload = json.dumps(vars(result), ensure_ascii=False)
        try:
            await self._redis.set(self.key(result.result_id), payload, ex=self._ttl)
        except RedisError as exc:
            self.fallbacks += 1
            self._metrics.increment("result_store_fallbacks")
            log.warning(
                "result store unavailable (fallback #%d), answering without a result_id "
                "redis_fallback=True endpoint=%s: %s",
                self.fallbacks,
                endpoint_name,
                exc,
                extra={"redis_fallback": True},
            )
            return None
        log.info("stored result %s endpoint=%s bytes=%d", result.result_id, endpoint_name, len(payload))
        return result.result_id

    async def get(self, result_id: str, owner_id: str) -> StoredResult:
        """The stored result, if it has not expired and belongs to `owner_id`."""
        if not owner_id:
            raise InvalidArgument("owner_id is required to read a stored result", field="owner_id")
        try:
            uuid.UUID(result_id)
        except ValueError:
            raise NotFound(EXPIRED_MESSAGE, reason="RESULT_EXPIRED", result_id=result_id) from None
        try:
            raw = await self._redis.get(self.key(result_id))
        except RedisError as exc:
            raise Unavailable("The result store is unavailable.", reason="RESULT_STORE_UNAVAILABLE") from exc
        log.info("fetch result %s found=%s", result_id, raw is not None)
        if raw is None:
            raise NotFound(EXPIRED_MESSAGE, reason="RESULT_EXPIRED", result_id=result_id)
        data = json.loads(raw)
        if not hmac.compare_digest(str(data.get("owner_id", "")).encode(), owner_id.encode()):
            raise PermissionDenied(ACCESS_DENIED_MESSAGE, reason="RESULT_ACCESS_DENIED", result_id=result_id)
        stored = {name: data.get(name, "") for name in StoredResult.__dataclass_fields__}
        stored["query"] = data.get("query") or {}
        log.info("fetch_agent_result %s endpoint=%s", result_id, stored["endpoint_name"])
        return StoredResult(**stored)

    async def find(self, result_id: str, owner_id: str, endpoint_name: str) -> KeptResult | None:
        """The result a response cache names, to answer from it again: None (a miss, the
        call is made instead) when it has expired, is another owner's or another
        endpoint's, or the store cannot answer."""
        try:
            stored = await self.get(result_id, owner_id)
            left = int(await self._redis.ttl(self.key(result_id)))
        except (InvalidArgument, NotFound, Unavailable, RedisError) as miss:
            log.info("cached result %s not kept: %s", result_id, type(miss).__name__)
            return None
        except PermissionDenied:
            log.warning("cached result %s named for another owner: a miss", result_id)
            return None
        if stored.endpoint_name != endpoint_name:
            log.warning(
                "cached result %s is %s's, not %s's: a miss", result_id, stored.endpoint_name, endpoint_name
            )
            return None
        if left == -2:  # expired between the two reads
            return None
        return KeptResult(stored, self._ttl if left < 0 else left)
