"""Typing of parameter values: the loop sends strings, APIs expect JSON types."""

from __future__ import annotations

import math
from collections.abc import Mapping
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
