"""`atc chat` shows where a knowledge-based answer came from."""

from __future__ import annotations

import io

from atc.common.v1 import turn_event_pb2
from devtools.launcher.chat import TerminalChat


def test_sources_are_listed_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    chat = TerminalChat(None, out=out, err=err)  # type: ignore[arg-type]
    event = turn_event_pb2.TurnEvent(
        sources=turn_event_pb2.Sources(
            sources=[
                turn_event_pb2.Source(title="Renewing an ID card", url="https://example.test/id"),
                turn_event_pb2.Source(title="Untitled note"),
            ]
        )
    )
    chat._show(event)
    assert err.getvalue().endswith("sources: Renewing an ID card <https://example.test/id>; Untitled note\n")
    assert out.getvalue() == ""
