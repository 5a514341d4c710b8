"""Bounds on what a request body may be, checked before anything is parsed into
models, stored or forwarded: size (from Content-Length and while reading), JSON
nesting depth, number length, and valid Unicode in every string.

Every violation is a `BodyRejected` carrying the HTTP status (400 or 413) and the
field it is about, so a hostile body costs bounded work and gets a 4xx, never a 5xx.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

# The only bytes the depth scan looks at: a single character class, so finding them is
# one linear pass (no alternation, no repetition to backtrack over).
_SIGNIFICANT = re.compile(rb'["\\\[\]{}]')
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_QUOTE = ord('"')
_BACKSLASH = ord("\\")


class BodyRejected(Exception):
    def __init__(self, message: str, *, status: int = 400, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


@dataclass(frozen=True)
class JsonLimits:
    max_bytes: int
    max_depth: int = 16
    max_number_digits: int = 20


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The body, refused with 413 as soon as it is known to be over `max_bytes`:
    from Content-Length before reading, or while reading a chunked/lying body."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BodyRejected("Content-Length is not a number")
        if int(declared) > max_bytes:
            raise BodyRejected(f"the body is larger than {max_bytes} bytes", status=413)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise BodyRejected(f"the body is larger than {max_bytes} bytes", status=413)
        chunks.append(chunk)
    return b"".join(chunks)


def json_depth(raw: bytes, *, stop_above: int | None = None) -> int:
    """The deepest nesting of arrays/objects in `raw` (brackets inside strings ignored),
    in one pass over its quotes, backslashes and brackets: linear in the body's size
    whatever it holds (an unterminated string of escaped quotes included), and no
    recursion, so a 100,000-deep body is counted, not parsed. With `stop_above` the scan
    ends as soon as the depth passes it."""
    depth = deepest = 0
    in_string = False
    escaped_at = -1  # the position of the byte a backslash escapes
    for match in _SIGNIFICANT.finditer(raw):
        at = match.start()
        if at == escaped_at:
            continue
        byte = raw[at]
        if in_string:
            if byte == _BACKSLASH:
                escaped_at = at + 1
            elif byte == _QUOTE:
                in_string = False
            continue
        if byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_above is not None and deepest > stop_above:
                    return deepest
        elif byte in _CLOSE:
            depth -= 1
    return deepest


def _number_parser(max_digits: int, kind: type) -> Any:
    def parse(text: str) -> Any:
        digits = sum(c.isdigit() for c in text)
        if digits > max_digits:
            raise BodyRejected(f"a number in the body has more than {max_digits} digits")
        return kind(text)

    return parse


def _reject_constant(name: str) -> Any:
    raise BodyRejected(f"{name} is not valid JSON")


def _first_invalid_string(value: Any) -> str | None:
    """The dotted path of the first string (key or value) that is not valid Unicode
    (a lone surrogate from a \\ud800 escape), or None. Iterative: depth is bounded
    already, but no recursion is needed either."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                return path or None
        elif isinstance(item, dict):
            for key, child in item.items():
                child_path = f"{path}.{key}" if path else str(key)
                if not _encodable(key):
                    return path or "(a key)"
                stack.append((child_path, child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def json_body(request: Request, limits: JsonLimits) -> dict[str, Any]:
    """The request body as a JSON object, within `limits`; BodyRejected otherwise."""
    raw = await read_body(request, limits.max_bytes)
    try:
        text = raw.decode("utf-8") if raw else "null"
    except UnicodeDecodeError:
        raise BodyRejected("the body is not valid UTF-8") from None
    if json_depth(raw, stop_above=limits.max_depth) > limits.max_depth:
        raise BodyRejected(f"the body is nested deeper than {limits.max_depth} levels")
    try:
        body = json.loads(
            text,
            parse_int=_number_parser(limits.max_number_digits, int),
            parse_float=_number_parser(limits.max_number_digits, float),
            parse_constant=_reject_constant,
        )
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        # JSONDecodeError's text names line and column, nothing internal.
        detail = str(exc) if isinstance(exc, json.JSONDecodeError) else "malformed"
        raise BodyRejected(f"the body is not valid JSON: {detail}") from None
    if not isinstance(body, dict):
        raise BodyRejected("the body must be a JSON object")
    invalid = _first_invalid_string(body)
    if invalid is not None:
        raise BodyRejected("a string in the body is not valid Unicode", field=invalid)
    return body
