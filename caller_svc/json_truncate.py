"""Cut JSON down to a byte budget while keeping it valid JSON: long lists keep
their first items plus a note of how many were left out, long strings are
clipped, and the cut deepens until the text fits."""

from __future__ import annotations

import json
from typing import Any


def _shrink(value: Any, items: int, chars: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + "…"
    if isinstance(value, list):
        kept = [_shrink(v, items, chars) for v in value[:items]]
        if len(value) > items:
            kept.append(f"… {len(value) - items} more items left out")
        return kept
    if isinstance(value, dict):
        return {k: _shrink(v, items, chars) for k, v in list(value.items())[: max(items * 4, 8)]}
    return value


def truncate_json(value: Any, max_bytes: int) -> str:
    """JSON text of `value`, at most `max_bytes` UTF-8 bytes where possible, always valid JSON."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text.encode()) <= max_bytes:
        return text
    items, chars = 50, 500
    while True:
        text = json.dumps(_shrink(value, items, chars), ensure_ascii=False)
        if len(text.encode()) <= max_bytes or (items <= 1 and chars <= 16):
            return text
        items, chars = max(1, items // 2), max(16, chars // 2)
