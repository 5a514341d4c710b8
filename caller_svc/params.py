"""Typing of parameter values: the loop sends strings, APIs expect JSON types."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from caller_svc.endpoint import EndpointSpec

_TRUE = frozenset({"true", "1", "yes", "y", "jah", "да"})
_FALSE = frozenset({"false", "0", "no", "n", "ei", "нет"})


def _finite_float(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def typed_value(raw: str, kind: str) -> Any:
    """`raw` as the schema's type; a value that does not parse is sent as given,
    so the API (not us) reports it as a 4xx the loop can re-prompt on."""
    text = raw.strip()
    kind = kind.lower()
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            number = _finite_float(text)
            # "2026.0" is still an integer; "2026.5" is left for the API to reject.
            return int(number) if number is not None and number.is_integer() else text
    if kind == "number":
        number = _finite_float(text)
        return number if number is not None else text
    if kind == "boolean":
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return text


def typed_params(endpoint: EndpointSpec, values: Mapping[str, str]) -> dict[str, Any]:
    """Only the parameters the endpoint declares, typed; empty values are left out."""
    typed: dict[str, Any] = {}
    for param in endpoint.params:
        raw = values.get(param.name)
        if raw is None or not str(raw).strip():
            continue
        typed[param.name] = typed_value(str(raw), param.type)
    return typed


def query_value(value: Any) -> str:
    """How a typed value travels in a query string (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# How a start/end pair of date parameters is named ("validFrom", "validTo", "start_date").
START_WORDS = ("from", "start", "begin", "since")
END_WORDS = ("to", "end", "until", "till")


def _named(name: str, words: tuple[str, ...]) -> bool:
    lowered = name.lower()
    return any(lowered.endswith(w) or lowered.startswith(w) for w in words)


def date_pair(endpoint: EndpointSpec, params: Mapping[str, str]) -> tuple[str, str] | None:
    """The names of the start and end date parameters a call sends, or None."""
    dated = [p.name for p in endpoint.params if p.type == "date" and p.name in params]
    start = next((n for n in dated if _named(n, START_WORDS)), None)
    end = next((n for n in dated if n != start and _named(n, END_WORDS)), None)
    return (start, end) if start and end else None


def looking_ahead(endpoint: EndpointSpec, params: Mapping[str, str], days: int) -> dict[str, str]:
    """The params with the end date at least `days` after the start: a yes/no question
    about a period is asked of the days after it too, so a "no" can name the first row
    after it ("is there a holiday next week?" — no; the next one is on 24 December). The
    answer still judges the period asked (caller_svc.formatter's window)."""
    out = dict(params)
    pair = date_pair(endpoint, params)
    if pair is None or days <= 0:
        return out
    try:
        start, end = date.fromisoformat(params[pair[0]].strip()), date.fromisoformat(params[pair[1]].strip())
    except ValueError:
        return out
    if start <= end:
        out[pair[1]] = max(end, start + timedelta(days=days)).isoformat()
    return out
