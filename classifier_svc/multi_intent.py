"""Deterministic intent decomposition: split a message at conjunctions.

"Find an address and also calculate my vehicle tax" → two focused sub-queries.
The split is only a proposal: the router keeps it when each part matches a
different endpoint on its own, so a false split ("Estonia and Latvia") costs a
search and nothing else.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(
    r"\s*(?:;|\?\s+|\band also\b|\bas well as\b|\band\b|\bplus\b|(?<=\s)[+&](?=\s)"
    r"|\bja ka\b|\bning\b|\bja\b|\bsamuti\b"
    r"|\bа также\b|\bи ещё\b|\bи еще\b|\bи\b)\s*",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
MIN_WORDS_PER_PART = 2


def split_intents(message: str, max_parts: int) -> list[str]:
    """Sub-queries of a message that may carry several intents; [] when it has one."""
    parts = [p.strip(" ,.?!") for p in _SEPARATORS.split(message)]
    parts = [p for p in parts if len(_WORD.findall(p)) >= MIN_WORDS_PER_PART]
    if len(parts) < 2:
        return []
    return parts[:max_parts]
