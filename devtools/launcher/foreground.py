"""Keeps a supervised set of children in the foreground: start them, report,
restart one that dies (the supervisor's policy), and stop them all on Ctrl-C /
SIGTERM or when one keeps dying."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import TextIO

from devtools.supervisor import ChildSpec, ChildStartError, Supervisor, tail


async def run_foreground(
    supervisor: Supervisor,
    *,
    out: TextIO,
    on_up: Callable[[], None],
    stop_timeout: float = 10.0,
) -> int:
    """0 after a requested stop, 1 when a child failed to start or died more often
    than the supervisor's restart policy allows."""

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    def ready(spec: ChildSpec) -> None:
        say(f"  {spec.name:<11} ready  {spec.address}".rstrip())

    stop_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    # SIGHUP: the terminal went away; stop the children rather than orphan them.
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in signals:
        loop.add_signal_handler(sig, stop_requested.set)
    stop_wait = asyncio.ensure_future(stop_requested.wait())
    try:
        starting = asyncio.ensure_future(supervisor.start_all(on_ready=ready))
        await asyncio.wait({starting, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            say("atc: stopping (interrupted during start)")
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, ChildStartError):
                await starting
            return 0
        try:
            starting.result()
        except ChildStartError as exc:
            say(f"atc: {exc}")
            return 1
        on_up()

        exited = asyncio.ensure_future(supervisor.supervise(on_event=lambda line: say(f"atc: {line}")))
        await asyncio.wait({exited, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        if exited.done():
            child = exited.result()
            say(
                f"atc: {child.name} exited with code {child.returncode}; stopping the rest. "
                f"Last lines of {child.log_path}:\n{tail(child.log_path)}"
            )
            await supervisor.stop(stop_timeout)
            return 1
        exited.cancel()
        say("atc: stopping…")
        await supervisor.stop(stop_timeout)
        say("atc: stopped")
        return 0
    finally:
        stop_wait.cancel()
        for sig in signals:
            loop.remove_signal_handler(sig)
        # Children run in their own sessions: whatever went wrong above (a closed
        # stdout in on_up, say), they must not outlive us. A no-op once stopped.
        await supervisor.stop(stop_timeout)
