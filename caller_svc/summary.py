"""A short deterministic summary of an API response (FR-06: no LLM): what came
back, how much of it, the first items and the key numbers, in 1–3 sentences.
Summaries travel in CallOutcome and the result store, for logs and LLM context."""

from __future__ import annotations

import json
import re
from typing import Any

from caller_svc.json_view import (
    find_collections,
    is_noise,
    is_number,
    is_scalar,
    item_span,
    item_title,
    number_fields,
)

_MAX_TEXT = 200
_FIRST_ITEMS = 3
_KEY_FIGURE = re.compile(r"total|annual|amount|sum|price|tax|count|average", re.IGNORECASE)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: float | int) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


def _item_snippet(item: Any) -> str:
    if not isinstance(item, dict):
        return _clip(item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)).rstrip(".")
    title = item_title(item, "en")
    span = item_span(item)
    when = None
    if span:
        start, end = span
        when = start if not end or end == start else f"{start}–{end}"
    numbers = ", ".join(f"{k} {_number(v)}" for k, v in number_fields(item, 2))
    lead = _clip(title[1]) if title else when or numbers or "item"
    extra = (when if title else numbers if when else "") or ""
    return f"{lead} ({extra})" if extra else lead


def _list_sentences(items: list[Any], where: str = "") -> list[str]:
    place = f" in {where}" if where else ""
    if not items:
        return [f"No items{place}."]
    first = "; ".join(_item_snippet(item) for item in items[:_FIRST_ITEMS])
    more = f" and {len(items) - _FIRST_ITEMS} more" if len(items) > _FIRST_ITEMS else ""
    noun = "item" if len(items) == 1 else "items"
    return [f"{len(items)} {noun}{place}.", f"First: {first}{more}."]


def _key_numbers(obj: dict[str, Any], limit: int = 5) -> str:
    numbers: list[tuple[str, float | int]] = []

    def walk(value: Any, depth: int) -> None:
        if not isinstance(value, dict) or depth > 2:
            return
        for key, inner in value.items():
            if is_noise(key):
                continue
            if is_number(inner):
                numbers.append((key, inner))
            elif isinstance(inner, dict):
                walk(inner, depth + 1)

    walk(obj, 0)
    # Totals and prices say more than the parts they are made of.
    numbers.sort(key=lambda pair: not _KEY_FIGURE.search(pair[0]))
    return ", ".join(f"{key} {_number(value)}" for key, value in numbers[:limit])


def summarize(data: Any) -> str:
    if data is None or data == "" or data == {} or data == []:
        return "The API returned an empty response."
    if isinstance(data, str):
        return f"The API returned text: {_clip(data.strip(), _MAX_TEXT)}"
    if isinstance(data, list):
        return " ".join(_list_sentences(data))
    if not isinstance(data, dict):
        return f"The API returned {json.dumps(data)}."
    sentences: list[str] = []
    scalars = [
        f"{k} {_clip(str(v), 40)}"
        for k, v in data.items()
        if is_scalar(v) and v is not None and not is_number(v) and not is_noise(k)
    ][:3]
    fields = ", ".join(list(data)[:6])
    sentences.append(
        f"The API returned an object with {fields}" + (f" ({'; '.join(scalars)})." if scalars else ".")
    )
    collections = find_collections(data)
    if collections:
        path, items = max(collections, key=lambda pair: len(pair[1]))
        sentences.extend(_list_sentences(items, path))
    numbers = _key_numbers(data)
    if numbers and len(sentences) < 3:
        sentences.append(f"Key numbers: {numbers}.")
    return " ".join(sentences[:3])
