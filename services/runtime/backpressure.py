"""Bounded concurrency: past the limit a request is refused at once (gRPC RESOURCE_EXHAUSTED,
HTTP 429, both with a retry hint) instead of queueing until every caller's deadline is gone."""

from __future__ import annotations

from typing import Protocol


class BackpressureOptions(Protocol):
    """The settings fields the limit reads (every ServiceSettings has them)."""

    max_concurrent_rpcs: int
    overload_retry_after_seconds: float


class ConcurrencyLimit:
    """A non-blocking counting gate; `limit` 0 means unbounded."""

    def __init__(self, limit: int, *, retry_after_seconds: float = 1.0) -> None:
        if limit < 0:
            raise ValueError("limit must be 0 (unbounded) or more")
        self.limit = limit
        self.retry_after_seconds = retry_after_seconds
        self.in_flight = 0

    @classmethod
    def from_settings(cls, options: BackpressureOptions | None) -> ConcurrencyLimit:
        if options is None:
            return cls(0)
        return cls(options.max_concurrent_rpcs, retry_after_seconds=options.overload_retry_after_seconds)

    def try_acquire(self) -> bool:
        if self.limit and self.in_flight >= self.limit:
            return False
        self.in_flight += 1
        return True

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)
