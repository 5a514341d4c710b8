"""Admission by measured capacity: past what the service can answer in time, a request is
refused at once (gRPC RESOURCE_EXHAUSTED, HTTP 429, both with a retry hint) instead of
queueing until every caller's deadline is gone.

A slot count alone admits the same number of requests whatever they cost: on 2 cores,
32 admitted chat turns were served fast at 20 concurrent users and waited seconds for
their first event at 200. So the gate measures what this process actually gets done:

- *waiting work*: admitted requests that have not produced their first response yet
  (a stream's first message, the HTTP response's start, a unary call's end). Streams
  that are only relaying a paced answer no longer count: they cost little.
- *capacity*: first responses per second of busy time (time with waiting work), over the
  last `window` responses — what the service sustains when it has work, not how much
  work happened to arrive.

A request is admitted while the waiting work, itself included, can be answered within
`target_seconds` at that capacity (at least `min_waiting` at once, so a cold or briefly
slow service still takes work), and while fewer than `limit` requests are in flight at
all (0: no such cap). A refusal's Retry-After is the time the excess needs at the
measured capacity (at least `retry_after_seconds`). Nothing admitted is ever dropped.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol


class BackpressureOptions(Protocol):
    """The settings fields the gate reads (every ServiceSettings has them)."""

    max_concurrent_rpcs: int
    overload_retry_after_seconds: float
    overload_target_seconds: float
    overload_min_waiting: int


class Admission:
    """One admitted request. `responded()` once its first response is out; `release()`
    when it is done (both idempotent; release implies responded)."""

    __slots__ = ("_gate", "_released", "_responded")

    def __init__(self, gate: ConcurrencyLimit) -> None:
        self._gate = gate
        self._responded = False
        self._released = False

    def responded(self) -> None:
        if not self._responded:
            self._responded = True
            self._gate._on_response()

    def release(self) -> None:
        if not self._released:
            self.responded()
            self._released = True
            self._gate._on_release()


class ConcurrencyLimit:
    """The admission gate of one service (non-blocking)."""

    def __init__(
        self,
        limit: int,
        *,
        retry_after_seconds: float = 1.0,
        target_seconds: float = 0.0,
        min_waiting: int = 4,
        window: int = 64,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`target_seconds` 0: the slot count alone decides (no capacity measure)."""
        if limit < 0 or target_seconds < 0 or min_waiting < 1 or window < 2:
            raise ValueError("limit ≥ 0, target_seconds ≥ 0, min_waiting ≥ 1, window ≥ 2")
        self.limit = limit
        self.target_seconds = target_seconds
        self.min_waiting = min_waiting
        self._min_retry_after = retry_after_seconds
        self._clock = clock
        self.in_flight = 0
        self.waiting = 0
        self.admitted = 0
        self.refused = 0
        # Busy time (some request waiting for its first response) accumulated so far, and
        # its value at each of the last `window` first responses.
        self._busy_total = 0.0
        self._busy_since: float | None = None
        self._responses: deque[float] = deque(maxlen=window)
        # The excess of the last refusal, for its retry hint.
        self._excess = 0.0
        # Admissions taken through try_acquire (released in any order: they are alike).
        self._held: list[Admission] = []

    @classmethod
    def from_settings(cls, options: BackpressureOptions | None) -> ConcurrencyLimit:
        if options is None:
            return cls(0)
        return cls(
            options.max_concurrent_rpcs,
            retry_after_seconds=options.overload_retry_after_seconds,
            target_seconds=options.overload_target_seconds,
            min_waiting=options.overload_min_waiting,
        )

    # --- the measure --------------------------------------------------------------

    def _busy_now(self) -> float:
        if self._busy_since is None:
            return self._busy_total
        return self._busy_total + (self._clock() - self._busy_since)

    @property
    def capacity_per_second(self) -> float | None:
        """First responses per busy second over the last window; None until measured."""
        if len(self._responses) < 2:
            return None
        busy = self._responses[-1] - self._responses[0]
        return (len(self._responses) - 1) / busy if busy > 0 else None

    @property
    def admissible_waiting(self) -> float:
        """How much waiting work the measured capacity answers within the target."""
        capacity = self.capacity_per_second
        if not self.target_seconds or capacity is None:
            return float("inf")
        return max(float(self.min_waiting), capacity * self.target_seconds)

    @property
    def retry_after_seconds(self) -> float:
        """When to come back: the last refusal's excess at the measured capacity."""
        capacity = self.capacity_per_second
        if capacity is None:
            return self._min_retry_after
        return max(self._min_retry_after, self._excess / capacity)

    # --- admission ----------------------------------------------------------------

    def admit(self) -> Admission | None:
        """An admission, or None: refuse at once with `retry_after_seconds`."""
        over_slots = bool(self.limit) and self.in_flight >= self.limit
        allowed = self.admissible_waiting
        if over_slots or self.waiting + 1 > allowed:
            self.refused += 1
            # Requests more than the service can take now: by capacity, or by slots.
            self._excess = max(
                self.waiting + 1 - allowed, self.in_flight + 1 - self.limit if over_slots else 0
            )
            return None
        self.admitted += 1
        self.in_flight += 1
        if self.waiting == 0:
            self._busy_since = self._clock()
        self.waiting += 1
        return Admission(self)

    def _on_response(self) -> None:
        self.waiting = max(0, self.waiting - 1)
        self._responses.append(self._busy_now())
        if self.waiting == 0 and self._busy_since is not None:
            self._busy_total += self._clock() - self._busy_since
            self._busy_since = None

    def _on_release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)

    # The slot-count interface for callers that hold no Admission (each is one request
    # that responds when it is released).
    def try_acquire(self) -> bool:
        admission = self.admit()
        if admission is None:
            return False
        self._held.append(admission)
        return True

    def release(self) -> None:
        if self._held:
            self._held.pop().release()
