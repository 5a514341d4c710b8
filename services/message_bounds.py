"""Bounds on one chat turn's text, in characters (what the citizen typed, not bytes).

The edge refuses a turn over a bound with a 400 naming the field; the classifier and the
loop check the same bounds on their own gRPC requests, so a client that skips the edge (a
test, a script, a misrouted call) cannot make them spend CPU on a megabyte of text: every
reader after them is linear, but linear in 32 MiB (the gRPC message cap) is still seconds.
The edge may be configured tighter, never looser (edge_svc/settings.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.errors import InvalidArgument


@dataclass(frozen=True)
class BoundExceeded:
    field: str
    message: str


@dataclass(frozen=True)
class MessageBounds:
    max_message_chars: int = 10_000
    max_history_items: int = 50
    max_history_chars: int = 40_000
    max_history_item_chars: int = 10_000

    def exceeded(
        self, message: str, history: Sequence[str], *, message_field: str, history_field: str
    ) -> BoundExceeded | None:
        """The first bound `message` and the history's contents (oldest first) go over, if any."""
        if len(message) > self.max_message_chars:
            return BoundExceeded(
                message_field, f"{message_field} is longer than {self.max_message_chars} characters"
            )
        if len(history) > self.max_history_items:
            return BoundExceeded(
                history_field, f"{history_field} has more than {self.max_history_items} items"
            )
        total = 0
        for i, content in enumerate(history):
            if len(content) > self.max_history_item_chars:
                return BoundExceeded(
                    f"{history_field}[{i}].content",
                    f"a history item is longer than {self.max_history_item_chars} characters",
                )
            total += len(content)
        if total > self.max_history_chars:
            return BoundExceeded(
                history_field, f"{history_field} is longer than {self.max_history_chars} characters in total"
            )
        return None

    def check(self, message: str, history: Sequence[str], *, message_field: str, history_field: str) -> None:
        """Raise InvalidArgument (reason TOO_LONG, naming the field) past a bound."""
        over = self.exceeded(message, history, message_field=message_field, history_field=history_field)
        if over is not None:
            raise InvalidArgument(over.message, field=over.field, reason="TOO_LONG")
