"""Split a text into stream tokens: each word with the whitespace after it, so
the tokens concatenate back to exactly the text."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*\S+\s*|\s+")


def split_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)
