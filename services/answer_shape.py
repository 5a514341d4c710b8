"""The shape of a question an answer must fit (atc.caller.v1.AnswerShape), as plain
data shared by the loop (which reads it from the message) and the caller (which
answers by it): filters on the result's rows, a selection, an aggregate, the words
that may name fields, and how the answer opens.

Nothing here names a field of any API: `terms` are the question's own words and
the caller resolves them against the result and the endpoint's labels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from enum import StrEnum
from typing import Any

from atc.caller.v1 import caller_pb2


class Kind(StrEnum):
    LIST = "list"
    YES_NO = "yes_no"
    COUNT = "count"
    EXTREME = "extreme"
    AGGREGATE = "aggregate"
    FIELDS = "fields"
    FULL_LIST = "full_list"


class Order(StrEnum):
    FIRST = "first"
    LATEST = "latest"
    NEXT = "next"
    LOWEST = "lowest"
    HIGHEST = "highest"
    LONGEST = "longest"
    SHORTEST = "shortest"
    EARLIEST = "earliest"


class Function(StrEnum):
    COUNT = "count"
    AVERAGE = "average"
    SUM = "sum"
    RANGE = "range"
    DURATION = "duration"
    DAYS_UNTIL = "days_until"


class Op(StrEnum):
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "="

    def holds(self, left: float, right: float) -> bool:
        if self is Op.LT:
            return left < right
        if self is Op.LE:
            return left <= right
        if self is Op.GT:
            return left > right
        if self is Op.GE:
            return left >= right
        return abs(left - right) < 1e-9


@dataclass(frozen=True)
class Weekdays:
    days: tuple[int, ...]  # ISO: 1 = Monday … 7 = Sunday


@dataclass(frozen=True)
class Months:
    months: tuple[int, ...]


@dataclass(frozen=True)
class DateRange:
    start: date | None = None
    end: date | None = None

    def contains(self, day: date) -> bool:
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)

    def overlaps(self, first: date, last: date) -> bool:
        return (self.start is None or last >= self.start) and (self.end is None or first <= self.end)


@dataclass(frozen=True)
class Hours:
    """[start, end) hours of the local day; end may be 24; start > end wraps midnight."""

    start: int
    end: int

    def contains(self, hour: int) -> bool:
        if self.start <= self.end:
            return self.start <= hour < self.end
        return hour >= self.start or hour < self.end


@dataclass(frozen=True)
class Comparison:
    op: Op
    value: float
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextMatch:
    words: tuple[str, ...]


Condition = Weekdays | Months | DateRange | Hours | Comparison | TextMatch


@dataclass(frozen=True)
class RowFilter:
    condition: Condition
    negate: bool = False


@dataclass(frozen=True)
class Selection:
    order: Order
    count: int = 0
    terms: tuple[str, ...] = ()
    skip: int = 0


@dataclass(frozen=True)
class Aggregation:
    function: Function
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class PeriodComparison:
    """The subject period's mean against the reference period's: "is it cheaper
    tomorrow than today" is tomorrow < today."""

    subject: DateRange
    reference: DateRange
    op: Op


@dataclass(frozen=True)
class AnswerShape:
    kind: Kind = Kind.LIST
    filters: tuple[RowFilter, ...] = ()
    selection: Selection | None = None
    aggregation: Aggregation | None = None
    terms: tuple[str, ...] = ()
    question: str = ""
    period_comparison: PeriodComparison | None = None

    @property
    def is_plain(self) -> bool:
        return (
            self.kind is Kind.LIST
            and not self.filters
            and self.selection is None
            and self.aggregation is None
            and self.period_comparison is None
            and not self.terms
        )

    @property
    def operates(self) -> bool:
        """Whether it asks anything of the rows beyond showing them."""
        return bool(
            self.filters or self.selection or self.aggregation or self.period_comparison
        ) or self.kind in (
            Kind.YES_NO,
            Kind.FULL_LIST,
            Kind.FIELDS,
        )

    def with_filters(self, filters: tuple[RowFilter, ...]) -> AnswerShape:
        return replace(self, filters=filters)


PLAIN = AnswerShape()

# Proto ⇄ domain -----------------------------------------------------------------------------

_KINDS = {
    Kind.LIST: caller_pb2.ANSWER_KIND_LIST,
    Kind.YES_NO: caller_pb2.ANSWER_KIND_YES_NO,
    Kind.COUNT: caller_pb2.ANSWER_KIND_COUNT,
    Kind.EXTREME: caller_pb2.ANSWER_KIND_EXTREME,
    Kind.AGGREGATE: caller_pb2.ANSWER_KIND_AGGREGATE,
    Kind.FIELDS: caller_pb2.ANSWER_KIND_FIELDS,
    Kind.FULL_LIST: caller_pb2.ANSWER_KIND_FULL_LIST,
}
_ORDERS = {
    Order.FIRST: caller_pb2.SELECTION_ORDER_FIRST,
    Order.LATEST: caller_pb2.SELECTION_ORDER_LATEST,
    Order.NEXT: caller_pb2.SELECTION_ORDER_NEXT,
    Order.LOWEST: caller_pb2.SELECTION_ORDER_LOWEST,
    Order.HIGHEST: caller_pb2.SELECTION_ORDER_HIGHEST,
    Order.LONGEST: caller_pb2.SELECTION_ORDER_LONGEST,
    Order.SHORTEST: caller_pb2.SELECTION_ORDER_SHORTEST,
    Order.EARLIEST: caller_pb2.SELECTION_ORDER_EARLIEST,
}
_FUNCTIONS = {
    Function.COUNT: caller_pb2.AGGREGATE_FUNCTION_COUNT,
    Function.AVERAGE: caller_pb2.AGGREGATE_FUNCTION_AVERAGE,
    Function.SUM: caller_pb2.AGGREGATE_FUNCTION_SUM,
    Function.RANGE: caller_pb2.AGGREGATE_FUNCTION_RANGE,
    Function.DURATION: caller_pb2.AGGREGATE_FUNCTION_DURATION,
    Function.DAYS_UNTIL: caller_pb2.AGGREGATE_FUNCTION_DAYS_UNTIL,
}
_OPS = {
    Op.LT: caller_pb2.COMPARISON_LESS,
    Op.LE: caller_pb2.COMPARISON_LESS_OR_EQUAL,
    Op.GT: caller_pb2.COMPARISON_GREATER,
    Op.GE: caller_pb2.COMPARISON_GREATER_OR_EQUAL,
    Op.EQ: caller_pb2.COMPARISON_EQUAL,
}


def _back(table: dict[Any, int]) -> dict[int, Any]:
    return {v: k for k, v in table.items()}


_KINDS_BACK: dict[int, Kind] = _back(_KINDS)
_ORDERS_BACK: dict[int, Order] = _back(_ORDERS)
_FUNCTIONS_BACK: dict[int, Function] = _back(_FUNCTIONS)
_OPS_BACK: dict[int, Op] = _back(_OPS)


def _filter_to_proto(row_filter: RowFilter) -> caller_pb2.RowFilter:
    c = row_filter.condition
    out = caller_pb2.RowFilter(negate=row_filter.negate)
    if isinstance(c, Weekdays):
        out.weekdays.days.extend(c.days)
    elif isinstance(c, Months):
        out.months.months.extend(c.months)
    elif isinstance(c, DateRange):
        out.dates.start = c.start.isoformat() if c.start else ""
        out.dates.end = c.end.isoformat() if c.end else ""
    elif isinstance(c, Hours):
        out.hours.from_hour, out.hours.to_hour = c.start, c.end
    elif isinstance(c, Comparison):
        out.comparison.op = _OPS[c.op]
        out.comparison.value = c.value
        out.comparison.terms.extend(c.terms)
    else:
        out.text.words.extend(c.words)
    return out


def to_proto(shape: AnswerShape) -> caller_pb2.AnswerShape:
    out = caller_pb2.AnswerShape(
        kind=_KINDS[shape.kind],
        filters=[_filter_to_proto(f) for f in shape.filters],
        terms=list(shape.terms),
        question=shape.question,
    )
    if shape.selection is not None:
        s = shape.selection
        out.selection.CopyFrom(
            caller_pb2.Selection(order=_ORDERS[s.order], count=s.count, terms=list(s.terms), skip=s.skip)
        )
    if shape.aggregation is not None:
        a = shape.aggregation
        out.aggregation.CopyFrom(caller_pb2.Aggregation(function=_FUNCTIONS[a.function], terms=list(a.terms)))
    if shape.period_comparison is not None:
        c = shape.period_comparison
        out.period_comparison.CopyFrom(
            caller_pb2.PeriodComparison(
                subject=_dates_to_proto(c.subject), reference=_dates_to_proto(c.reference), op=_OPS[c.op]
            )
        )
    return out


def _dates_to_proto(dates: DateRange) -> caller_pb2.DateRange:
    return caller_pb2.DateRange(
        start=dates.start.isoformat() if dates.start else "", end=dates.end.isoformat() if dates.end else ""
    )


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _filter_from_proto(message: caller_pb2.RowFilter) -> RowFilter | None:
    which = message.WhichOneof("condition")
    condition: Condition
    if which == "weekdays":
        condition = Weekdays(tuple(d for d in message.weekdays.days if 1 <= d <= 7))
    elif which == "months":
        condition = Months(tuple(m for m in message.months.months if 1 <= m <= 12))
    elif which == "dates":
        condition = DateRange(_date(message.dates.start), _date(message.dates.end))
    elif which == "hours":
        start, end = message.hours.from_hour, message.hours.to_hour
        if not (0 <= start <= 24 and 0 <= end <= 24) or start == end:
            return None
        condition = Hours(start, end)
    elif which == "comparison":
        op = _OPS_BACK.get(message.comparison.op)
        if op is None:
            return None
        condition = Comparison(op, message.comparison.value, tuple(message.comparison.terms))
    elif which == "text":
        condition = TextMatch(tuple(w for w in message.text.words if w))
    else:
        return None
    return RowFilter(condition, message.negate)


def from_proto(message: caller_pb2.AnswerShape) -> AnswerShape:
    """The domain shape; unknown or unset enums read as the plain answer (never an error)."""
    filters = tuple(f for f in (_filter_from_proto(m) for m in message.filters) if f is not None)
    selection = None
    if message.HasField("selection") and message.selection.order in _ORDERS_BACK:
        s = message.selection
        selection = Selection(_ORDERS_BACK[s.order], max(0, s.count), tuple(s.terms), max(0, s.skip))
    aggregation = None
    if message.HasField("aggregation") and message.aggregation.function in _FUNCTIONS_BACK:
        aggregation = Aggregation(
            _FUNCTIONS_BACK[message.aggregation.function], tuple(message.aggregation.terms)
        )
    period_comparison = None
    if message.HasField("period_comparison") and message.period_comparison.op in _OPS_BACK:
        c = message.period_comparison
        subject = DateRange(_date(c.subject.start), _date(c.subject.end))
        reference = DateRange(_date(c.reference.start), _date(c.reference.end))
        if None not in (subject.start, subject.end, reference.start, reference.end):
            period_comparison = PeriodComparison(subject, reference, _OPS_BACK[c.op])
    return AnswerShape(
        kind=_KINDS_BACK.get(message.kind, Kind.LIST),
        filters=filters,
        selection=selection,
        aggregation=aggregation,
        terms=tuple(message.terms),
        question=message.question,
        period_comparison=period_comparison,
    )


def to_dict(shape: AnswerShape) -> dict[str, Any]:
    """JSON-ready (the response cache keeps the last question's shape)."""
    from google.protobuf import json_format

    return json_format.MessageToDict(to_proto(shape), preserving_proto_field_name=True)


def from_dict(data: dict[str, Any] | None) -> AnswerShape:
    from google.protobuf import json_format

    if not data:
        return PLAIN
    try:
        message = json_format.ParseDict(data, caller_pb2.AnswerShape(), ignore_unknown_fields=True)
    except json_format.ParseError:
        return PLAIN
    return from_proto(message)
