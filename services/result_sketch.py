"""What a stored result's rows carry (atc.caller.v1.ResultSketch), read from the body
once, where the body is stored (caller_svc), and kept by the loop's response cache in
place of the body: enough to tell whether a follow-up asks something of those rows
(loop_svc.follow_up) — its keys, whether it has numbers, days and clock times, and each
row's words and yes/no flags — never the body itself, which stays in the result store.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from atc.caller.v1 import caller_pb2
from services.field_terms import fold, split_words

# The bounds of a body's reading: nesting depth, the rows of a list, the objects whose
# keys are read.
_DEPTH = 4
_ROWS = 200
_KEYED = 20
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


class SketchRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    # The row's words (its texts' words, folded; dates left out), sorted, once each.
    words: tuple[str, ...] = ()
    # Whether the row carries a yes/no value ("passed": false).
    has_flag: bool = False


class ResultSketch(BaseModel):
    model_config = ConfigDict(frozen=True)

    keys: tuple[str, ...] = ()
    has_numbers: bool = False
    has_days: bool = False
    has_times: bool = False
    is_list: bool = False
    rows: tuple[SketchRow, ...] = ()


EMPTY = ResultSketch()


def _values(data: Any, depth: int = 0) -> list[Any]:
    if depth > _DEPTH:
        return []
    if isinstance(data, dict):
        return [v for value in data.values() for v in _values(value, depth + 1)]
    if isinstance(data, list):
        return [v for value in data[:_ROWS] for v in _values(value, depth + 1)]
    return [data]


def _keys(data: Any, depth: int = 0) -> set[str]:
    if depth > _DEPTH:
        return set()
    if isinstance(data, dict):
        return {str(k) for k in data} | {k for v in data.values() for k in _keys(v, depth + 1)}
    if isinstance(data, list):
        return {k for v in data[:_KEYED] for k in _keys(v, depth + 1)}
    return set()


def _rows(response: Any) -> list[dict[str, Any]]:
    """The items of a response: a top-level list, or the first list of objects inside it."""
    if isinstance(response, list):
        return [r for r in response[:_ROWS] if isinstance(r, dict)]
    if isinstance(response, dict):
        for value in response.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return [r for r in value[:_ROWS] if isinstance(r, dict)]
    return []


def _row(row: dict[str, Any]) -> SketchRow:
    values = _values(row)
    words = {fold(w) for v in values if isinstance(v, str) and not DAY.match(v) for w in split_words(v)}
    return SketchRow(words=tuple(sorted(words)), has_flag=any(isinstance(v, bool) for v in values))


def sketch_of(response: Any) -> ResultSketch:
    values = _values(response)
    return ResultSketch(
        keys=tuple(sorted(_keys(response))),
        has_numbers=any(isinstance(v, int | float) and not isinstance(v, bool) for v in values),
        has_days=any(isinstance(v, str) and DAY.match(v) for v in values),
        has_times=any(isinstance(v, str) and INSTANT.match(v) for v in values),
        is_list=isinstance(response, list),
        rows=tuple(_row(r) for r in _rows(response)),
    )


def to_proto(sketch: ResultSketch) -> caller_pb2.ResultSketch:
    return caller_pb2.ResultSketch(
        keys=sketch.keys,
        has_numbers=sketch.has_numbers,
        has_days=sketch.has_days,
        has_times=sketch.has_times,
        is_list=sketch.is_list,
        rows=[caller_pb2.SketchRow(words=r.words, has_flag=r.has_flag) for r in sketch.rows],
    )


def from_proto(message: caller_pb2.ResultSketch) -> ResultSketch:
    return ResultSketch(
        keys=tuple(message.keys),
        has_numbers=message.has_numbers,
        has_days=message.has_days,
        has_times=message.has_times,
        is_list=message.is_list,
        rows=tuple(SketchRow(words=tuple(r.words), has_flag=r.has_flag) for r in message.rows),
    )
