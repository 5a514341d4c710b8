"""A deterministic summary of an API response (FR-06: no LLM, 3–6 sentences):
counts, totals, top categories, status splits, date ranges and the first items.
Summaries travel in CallOutcome and the result store, and are all an LLM
formatter sees of a stored result unless it fetches the rows (≤ 200 tokens)."""

from __future__ import annotations

import json
import re
from collections import Counter
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

_MAX_TEXT = 160
_FIRST_ITEMS = 3
_MAX_SENTENCES = 6
_KEY_FIGURE = re.compile(r"total|annual|amount|sum|price|tax|count|average", re.IGNORECASE)


def _clip(text: str, limit: int = 48) -> str:
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


def _date_range(items: list[dict[str, Any]]) -> str | None:
    points: list[str] = []
    for item in items:
        span = item_span(item)
        if span:
            points.extend(p for p in span if p)
    if len(points) < 2:
        return None
    return f"Dates range from {min(points)} to {max(points)}."


def _categories(items: list[dict[str, Any]]) -> list[str]:
    """'type: Public 10, School 2' for text fields with few distinct values;
    'accepted: 8 true, 2 false' for flags."""
    sentences: list[str] = []
    keys = [k for k, v in items[0].items() if isinstance(v, str | bool) and not is_noise(k)]
    for key in keys:
        counts = Counter(
            str(item.get(key)).lower() if isinstance(item.get(key), bool) else str(item.get(key))
            for item in items
            if key in item
        )
        if len(counts) < 2 or len(counts) > max(2, min(6, len(items) // 2)):
            continue
        top = ", ".join(f"{_clip(value, 24)} {n}" for value, n in counts.most_common(3))
        sentences.append(f"{'Status split' if isinstance(items[0][key], bool) else 'Top'} {key}: {top}.")
    return sentences[:2]


def _totals(items: list[dict[str, Any]]) -> str | None:
    sums: dict[str, float] = {}
    for item in items:
        for key, value in number_fields(item, 4):
            sums[key] = sums.get(key, 0) + value
    if not sums:
        return None
    shown = list(sums.items())[:3]
    return "Totals: " + ", ".join(f"{key} {_number(round(total, 2))}" for key, total in shown) + "."


_MAX_FIELDS = 8


def _row_fields(rows: list[dict[str, Any]]) -> str:
    """The rows' field names in first-seen order (from the first rows), at most a few."""
    names: dict[str, None] = {}
    for row in rows[:20]:
        names.update(dict.fromkeys(str(key) for key in row))
    shown = [_clip(name, 32) for name in list(names)[:_MAX_FIELDS]]
    more = f" and {len(names) - _MAX_FIELDS} more" if len(names) > _MAX_FIELDS else ""
    return ", ".join(shown) + more if shown else ""


def _list_sentences(items: list[Any], where: str = "") -> list[str]:
    place = f" in {where}" if where else ""
    if not items:
        return [f"No items{place}."]
    noun = "item" if len(items) == 1 else "items"
    dicts = [item for item in items if isinstance(item, dict)]
    # The row count and the rows' fields: a model reading only this summary knows when
    # the question needs the rows themselves (fetch_agent_result).
    fields = _row_fields(dicts) if dicts and len(dicts) == len(items) else ""
    sentences = [f"{len(items)} {noun}{place}" + (f", each with {fields}." if fields else ".")]
    if dicts and len(dicts) == len(items):
        sentences.extend(s for s in (_date_range(dicts),) if s)
        sentences.extend(_categories(dicts))
        if len(dicts) > 1:
            sentences.extend(s for s in (_totals(dicts),) if s)
    first = "; ".join(_item_snippet(item) for item in items[:_FIRST_ITEMS])
    more = f" and {len(items) - _FIRST_ITEMS} more" if len(items) > _FIRST_ITEMS else ""
    sentences.append(f"First: {first}{more}.")
    return sentences


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
        return " ".join(["The API returned a list.", *_list_sentences(data)][:_MAX_SENTENCES])
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
    numbers = _key_numbers(data)
    if numbers:
        sentences.append(f"Key numbers: {numbers}.")
    collections = find_collections(data)
    if collections:
        path, items = max(collections, key=lambda pair: len(pair[1]))
        sentences.extend(_list_sentences(items, path))
    if len(sentences) < 3:
        nested = [k for k, v in data.items() if isinstance(v, dict)]
        if nested:
            sentences.append(f"Nested sections: {', '.join(nested[:4])}.")
    return " ".join(sentences[:_MAX_SENTENCES])
