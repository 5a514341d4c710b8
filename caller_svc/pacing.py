"""Streaming a checked answer at a readable pace: word-sized chunks with a
short pause between them (the sleep is injected so tests need no clock)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from services.tokens import split_tokens

Sleep = Callable[[float], Awaitable[None]]


async def paced_chunks(text: str, delay_seconds: float, sleep: Sleep = asyncio.sleep) -> AsyncIterator[str]:
    """`text` in word-sized pieces; together they are exactly `text`."""
    for index, piece in enumerate(split_tokens(text)):
        if index and delay_seconds > 0:
            await sleep(delay_seconds)
        yield piece
