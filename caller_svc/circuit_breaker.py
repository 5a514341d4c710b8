"""Per-endpoint circuit breaker (keyed by the endpoint's URL: caller_svc.http_caller.
breaker_key) whose state lives in Redis so every replica sees it.

CLOSED → OPEN after `failure_threshold` consecutive server or network failures;
OPEN → HALF_OPEN once `cooldown_seconds` have passed (one probe call goes
through); HALF_OPEN → CLOSED when the probe succeeds, → OPEN when it fails. A
probe that never reports back frees the next probe after another cooldown.
When Redis cannot be reached the same state machine runs in process memory.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from services.runtime.telemetry import DomainMetrics, NoMetrics

log = logging.getLogger("atc.caller.breaker")

KEY_PREFIX = "atc:breaker:"


class BreakerState(StrEnum):
    CLOSED = "CLOSED"
    OPEN = "OPEN"
    HALF_OPEN = "HALF_OPEN"


# KEYS[1] = breaker key; ARGV = now, cooldown. Returns 0 when the call may not go, 1 when
# it may, 2 when it may as the half-open probe (the state just moved OPEN → HALF_OPEN).
_ALLOW = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state or state == 'CLOSED' then return 1 end
local since = tonumber(redis.call('HGET', KEYS[1], 'opened_at') or '0')
if tonumber(ARGV[1]) - since < tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'state', 'HALF_OPEN', 'opened_at', ARGV[1])
if state == 'HALF_OPEN' then return 1 end
return 2
"""

# KEYS[1] = breaker key; ARGV = now, threshold, key ttl. Returns {new state, previous state}.
_FAILURE = """
local previous = redis.call('HGET', KEYS[1], 'state') or 'CLOSED'
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local state = 'CLOSED'
if previous == 'HALF_OPEN' or previous == 'OPEN' or failures >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'state', 'OPEN', 'opened_at', ARGV[1])
  state = 'OPEN'
else
  redis.call('HSET', KEYS[1], 'state', 'CLOSED')
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {state, previous}
"""

# KEYS[1] = breaker key. Forgets the host's failures; returns the state it was in.
_SUCCESS = """
local previous = redis.call('HGET', KEYS[1], 'state') or 'CLOSED'
redis.call('DEL', KEYS[1])
return previous
"""


def _text(raw: object) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


@dataclass
class _LocalBreaker:
    state: BreakerState = BreakerState.CLOSED
    failures: int = 0
    opened_at: float = 0.0


class CircuitBreaker:
    def __init__(
        self,
        redis: aioredis.Redis | None,
        *,
        failure_threshold: int = 5,
        cooldown_seconds: float = 30.0,
        clock: Callable[[], float] = time.time,
        telemetry: DomainMetrics | None = None,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        # `breaker_transitions{to}`: every change of a host's state seen by this replica.
        self._metrics = telemetry or NoMetrics()
        self._redis = redis
        self._threshold = failure_threshold
        self._cooldown = cooldown_seconds
        self._clock = clock
        # Long enough to outlive any cooldown, short enough not to keep dead hosts forever.
        self._key_ttl = max(3600, int(cooldown_seconds * 10))
        self._local: dict[str, _LocalBreaker] = {}
        self._redis_down = False
        self._allow_script = redis.register_script(_ALLOW) if redis is not None else None
        self._failure_script = redis.register_script(_FAILURE) if redis is not None else None
        self._success_script = redis.register_script(_SUCCESS) if redis is not None else None

    @staticmethod
    def key(host: str) -> str:
        return f"{KEY_PREFIX}{host}"

    async def allow(self, host: str) -> bool:
        """Whether a call to `host` may go out now (may claim the half-open probe)."""
        now = self._clock()
        if self._allow_script is not None:
            try:
                allowed = int(await self._allow_script(keys=[self.key(host)], args=[now, self._cooldown]))
                self._redis_back()
                if allowed == 2:
                    self._transition(BreakerState.OPEN, BreakerState.HALF_OPEN)
                return bool(allowed)
            except RedisError as exc:
                self._redis_failed(exc)
        local = self._local.setdefault(host, _LocalBreaker())
        if local.state == BreakerState.CLOSED:
            return True
        if now - local.opened_at < self._cooldown:
            return False
        self._transition(local.state, BreakerState.HALF_OPEN)
        local.state, local.opened_at = BreakerState.HALF_OPEN, now
        return True

    async def record_success(self, host: str) -> None:
        local = self._local.pop(host, None)
        previous = local.state if local is not None else BreakerState.CLOSED
        if self._success_script is not None:
            try:
                previous = BreakerState(_text(await self._success_script(keys=[self.key(host)])))
                self._redis_back()
            except RedisError as exc:
                self._redis_failed(exc)
        self._transition(previous, BreakerState.CLOSED)

    async def record_failure(self, host: str) -> BreakerState:
        now = self._clock()
        if self._failure_script is not None:
            try:
                raw_state, raw_previous = await self._failure_script(
                    keys=[self.key(host)], args=[now, self._threshold, self._key_ttl]
                )
                self._redis_back()
                state = BreakerState(_text(raw_state))
                if state == BreakerState.OPEN:
                    log.warning("circuit breaker open for %s", host)
                self._transition(BreakerState(_text(raw_previous)), state)
                return state
            except RedisError as exc:
                self._redis_failed(exc)
        local = self._local.setdefault(host, _LocalBreaker())
        local.failures += 1
        if local.state != BreakerState.CLOSED or local.failures >= self._threshold:
            if local.state != BreakerState.OPEN:
                log.warning("circuit breaker open for %s (in-process)", host)
            self._transition(local.state, BreakerState.OPEN)
            local.state, local.opened_at = BreakerState.OPEN, now
        return local.state

    def _transition(self, previous: BreakerState, state: BreakerState) -> None:
        if previous != state:
            self._metrics.increment("breaker_transitions", to=state.value)

    async def state(self, host: str) -> BreakerState:
        """Current state as stored (OPEN stays OPEN until a call asks after the cooldown)."""
        if self._redis is not None:
            try:
                raw = await self._redis.hget(self.key(host), "state")
                self._redis_back()
                if raw is None:
                    return BreakerState.CLOSED
                return BreakerState(raw.decode() if isinstance(raw, bytes) else raw)
            except RedisError as exc:
                self._redis_failed(exc)
        local = self._local.get(host)
        return local.state if local else BreakerState.CLOSED

    def _redis_failed(self, exc: Exception) -> None:
        if not self._redis_down:
            log.warning("breaker state falls back to process memory redis_fallback=True: %s", exc)
        self._redis_down = True

    def _redis_back(self) -> None:
        if self._redis_down:
            log.info("breaker state back in redis")
        self._redis_down = False
