"""An API result read as rows with typed fields, the way the answer operations need
it: where the rows are, when each row is (an instant, a day, a day and a clock time,
or a span of days) in the citizen's zone, which fields are numbers, texts, codes, and
what each field is called in every language the endpoint labels it in.

Generic by construction: the field kinds come from the values, the names from the
result's keys and the endpoint's responseLabels — no API's field is known here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

from caller_svc.json_view import (
    END_KEYS,
    START_KEYS,
    find_collections,
    is_multilingual,
    is_noise,
    is_number,
)
from caller_svc.labels import LabelBook
from services.field_terms import fold, split_words

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$")
# Machine codes: snake_case or CONSTANT_CASE tokens ("ready_for_pickup", "IN_PROCESSING").
_CODE = re.compile(r"^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$")
_MAX_DEPTH = 2


# A field named as a code ("statusCode", "status_code", "code") whose value is one
# lower-case word ("received") is the machine form of a text shown beside it.
_CODE_KEY = re.compile(r"(?:^|_|[a-z])(?:code|Code|CODE)$")
_CODE_WORD = re.compile(r"^[a-z]+$")


def is_code(value: Any, key: str = "") -> bool:
    """A machine code: a snake_case or CONSTANT_CASE token, or one lower-case word in a
    field named as a code. `key` is the field's name or path."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    if _CODE.match(text):
        return True
    return bool(_CODE_WORD.match(text)) and bool(_CODE_KEY.search(key.rsplit(".", 1)[-1]))


def parse_day(text: str) -> date | None:
    try:
        return date.fromisoformat(text[:10]) if _DATE.match(text[:10]) else None
    except ValueError:
        return None


def parse_instant(text: str, zone: ZoneInfo) -> datetime | None:
    """An ISO date-time as a naive local wall time in `zone` (naive input is taken as local)."""
    if not _INSTANT.match(text) or len(text) < 16:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(zone).replace(tzinfo=None)
    return moment


@dataclass(frozen=True)
class Field:
    """One field of the rows: its dotted path inside a row and what its values are."""

    path: str
    key: str
    kind: str  # number | day | instant | clock | text | bool | multilingual | code | other
    words: frozenset[str]  # folded words of its key and of its labels in every language


def _walk(row: dict[str, Any], prefix: str = "", depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    for key, value in row.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and depth < _MAX_DEPTH:
            yield from _walk(value, path, depth + 1)
        else:
            yield path, key, value


def value_at(row: dict[str, Any], path: str) -> Any:
    current: Any = row
    for part in path.split("."):
        if not isinstance(current, dict):
            return None
        current = current.get(part)
    return current


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if is_number(value):
        return "number"
    if is_multilingual(value):
        return "multilingual"
    if isinstance(value, str):
        text = value.strip()
        if _DATE.match(text):
            return "day"
        if _INSTANT.match(text):
            return "instant"
        if _CLOCK.match(text):
            return "clock"
        if is_code(text):
            return "code"
        return "text"
    return "other"


@dataclass
class Row:
    data: dict[str, Any]
    index: int
    # When the row is, in the citizen's zone: an instant (or a day with its clock time),
    # a day, or a span of days.
    moment: datetime | None = None
    day: date | None = None
    last_day: date | None = None

    @property
    def days(self) -> tuple[date, date] | None:
        if self.day is None:
            return None
        return self.day, self.last_day or self.day

    @property
    def span_days(self) -> int | None:
        """Length of a multi-day span, both ends counted ('21 December – 10 January' = 21)."""
        if self.day is None or self.last_day is None:
            return None
        return (self.last_day - self.day).days + 1


@dataclass
class Table:
    """The rows of a result; `path` is where they sit ('' for a top-level list),
    `context` the object around them (None for a list or a single object)."""

    rows: list[Row]
    fields: dict[str, Field]
    path: str = ""
    context: dict[str, Any] | None = None
    single: bool = False
    # The step between consecutive instants, when regular (hourly prices: 1 h).
    step: timedelta | None = None
    time_paths: tuple[str, ...] = field(default_factory=tuple)

    def numbers(self) -> list[Field]:
        """The fields that measure something: not ordinals (a voting's number), not years."""
        return [
            f for f in self.fields.values() if f.kind == "number" and not _is_ordinal(f) and not _is_year(f)
        ]


_YEAR_WORDS = frozenset({"year", "aasta", "год", "maksuaasta", "jahr"})


def _is_ordinal(f: Field) -> bool:
    return "number" in f.key.lower() or f.key.lower() in ("no", "nr", "index", "rank")


def _is_year(f: Field) -> bool:
    return bool(f.words & _YEAR_WORDS) or f.key.lower().endswith("year")


def _field_words(path: str, key: str, labels: LabelBook) -> frozenset[str]:
    words = set(split_words(key))
    found = labels.field_label(path)
    if found is not None:
        for text in found.labels.values():
            words.update(split_words(text))
    return frozenset(words)


def _profile(rows: list[dict[str, Any]], labels: LabelBook) -> dict[str, Field]:
    kinds: dict[str, tuple[str, set[str]]] = {}
    for row in rows:
        for path, key, value in _walk(row):
            if value is None:
                continue
            entry = kinds.setdefault(path, (key, set()))
            entry[1].add(_kind_of(value))
    fields: dict[str, Field] = {}
    for path, (key, seen) in kinds.items():
        kind = next(iter(seen)) if len(seen) == 1 else ("text" if seen <= {"text", "code"} else "other")
        fields[path] = Field(path, key, kind, _field_words(path, key, labels))
    return fields


def _first(fields: dict[str, Field], kind: str, names: tuple[str, ...] = ()) -> str | None:
    for name in names:
        for path, f in fields.items():
            if f.key == name and f.kind == kind:
                return path
    for path, f in fields.items():
        if f.kind == kind and not is_noise(f.key):
            return path
    return None


def _time_paths(fields: dict[str, Field]) -> tuple[str | None, str | None, str | None, str | None]:
    """(instant, start day, end day, clock) paths of the rows' time."""
    instant = _first(fields, "instant")
    start = _first(fields, "day", START_KEYS)
    end = None
    if start is not None:
        start_key = fields[start].key
        end = next(
            (
                p
                for p, f in fields.items()
                if f.kind == "day" and p != start and (f.key in END_KEYS or _pairs(start_key, f.key))
            ),
            None,
        )
    clock = _first(fields, "clock") if start is not None and end is None else None
    return instant, start, end, clock


def _pairs(start: str, end: str) -> bool:
    """'validFrom' / 'validTo', 'start_date' / 'end_date', 'dateFrom' / 'dateTo'."""
    a, b = fold(start), fold(end)
    for first, second in (("start", "end"), ("from", "to"), ("begin", "end"), ("since", "until")):
        if first in a and second in b and a.replace(first, "") == b.replace(second, ""):
            return True
    return False


def locate(data: Any, labels: LabelBook, zone: ZoneInfo) -> Table | None:
    """The rows of a result: a list of objects, the largest list of objects inside an
    object, or the object itself as one row. None for anything else (text, scalars)."""
    path, context, single = "", None, False
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        lists = [(p, v) for p, v in find_collections(data) if v and all(isinstance(i, dict) for i in v)]
        if lists:
            path, items = max(lists, key=lambda pair: len(pair[1]))
            context = data
        else:
            items, single = [data], True
    else:
        return None
    if not items or not all(isinstance(item, dict) for item in items):
        return None if items else Table([], {}, path, context, single)
    fields = _profile(items, labels)
    instant, start, end, clock = _time_paths(fields)
    rows: list[Row] = []
    for index, item in enumerate(items):
        row = Row(item, index)
        if instant is not None and isinstance(raw := value_at(item, instant), str):
            row.moment = parse_instant(raw.strip(), zone)
            row.day = row.moment.date() if row.moment else None
        elif start is not None and isinstance(raw := value_at(item, start), str):
            row.day = parse_day(raw.strip())
            if end is not None and isinstance(raw_end := value_at(item, end), str):
                row.last_day = parse_day(raw_end.strip())
            if (
                clock is not None
                and row.day is not None
                and isinstance(raw_clock := value_at(item, clock), str)
            ):
                hours, minutes = raw_clock.strip().split(":")[:2]
                row.moment = datetime(row.day.year, row.day.month, row.day.day, int(hours), int(minutes))
        rows.append(row)
    moments = [r.moment for r in rows if r.moment is not None]
    steps = Counter(b - a for a, b in pairwise(moments))
    step = None
    if steps and instant is not None:
        common, seen = steps.most_common(1)[0]
        # A DST change repeats or skips one local hour: the step is still the usual one.
        step = common if seen * 10 >= (len(moments) - 1) * 8 and common > timedelta(0) else None
    time_paths = tuple(p for p in (instant, start, end, clock) if p)
    return Table(rows, fields, path, context, single, step, time_paths)
