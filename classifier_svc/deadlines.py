"""The turn's deadline, as seen by the catalogue and session lookups.

The servicer records when the incoming call must be answered; every lookup made while
deciding that turn gets the time that is left (less a reserve for the rest of the turn)
instead of a fixed timeout. A cold index or a slow model then fails only when the
caller's own deadline would have failed anyway.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("classifier_turn_deadline", default=None)


@contextlib.contextmanager
def turn_deadline(
    remaining_seconds: float | None, clock: Callable[[], float] = time.monotonic
) -> Iterator[None]:
    token = _deadline.set(None if remaining_seconds is None else clock() + remaining_seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def lookup_timeout(
    default: float, *, reserve_share: float = 0.25, clock: Callable[[], float] = time.monotonic
) -> float:
    """What a lookup may take: most of what is left of the turn's deadline (a share is kept
    for the loop, which still has to run), or `default` when the caller set no deadline."""
    deadline = _deadline.get()
    if deadline is None:
        return default
    return max(0.001, (deadline - clock()) * (1.0 - reserve_share))
