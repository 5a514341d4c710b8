"""Streaming a checked answer that is complete before it is sent: at a readable pace,
word-sized chunks with a short pause between them (the sleep is injected so tests need
no clock); with no pause, line-sized chunks (the words would arrive together anyway,
each a message through every hop)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from services.tokens import split_lines, split_tokens

Sleep = Callable[[float], Awaitable[None]]


async def paced_chunks(text: str, delay_seconds: float, sleep: Sleep = asyncio.sleep) -> AsyncIterator[str]:
    """`text` in pieces that together are exactly `text`."""
    if delay_seconds <= 0:
        for line in split_lines(text):
            yield line
        return
    for index, piece in enumerate(split_tokens(text)):
        if index:
            await sleep(delay_seconds)
        yield piece
