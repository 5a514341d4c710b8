"""Text → stream tokens, word by word, so the GUI can render a reply as it
arrives. Whitespace stays attached to the following word: joining the tokens
gives back the text exactly."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*\S+|\s+$")


def split_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)
