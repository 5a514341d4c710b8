import datetime

from atc.common.v1 import catalogue_pb2 as _catalogue_pb2
from atc.common.v1 import chat_pb2 as _chat_pb2
from atc.common.v1 import turn_event_pb2 as _turn_event_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AnswerKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ANSWER_KIND_UNSPECIFIED: _ClassVar[AnswerKind]
    ANSWER_KIND_LIST: _ClassVar[AnswerKind]
    ANSWER_KIND_YES_NO: _ClassVar[AnswerKind]
    ANSWER_KIND_COUNT: _ClassVar[AnswerKind]
    ANSWER_KIND_EXTREME: _ClassVar[AnswerKind]
    ANSWER_KIND_AGGREGATE: _ClassVar[AnswerKind]
    ANSWER_KIND_FIELDS: _ClassVar[AnswerKind]
    ANSWER_KIND_FULL_LIST: _ClassVar[AnswerKind]

class Comparison(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPARISON_UNSPECIFIED: _ClassVar[Comparison]
    COMPARISON_LESS: _ClassVar[Comparison]
    COMPARISON_LESS_OR_EQUAL: _ClassVar[Comparison]
    COMPARISON_GREATER: _ClassVar[Comparison]
    COMPARISON_GREATER_OR_EQUAL: _ClassVar[Comparison]
    COMPARISON_EQUAL: _ClassVar[Comparison]

class SelectionOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SELECTION_ORDER_UNSPECIFIED: _ClassVar[SelectionOrder]
    SELECTION_ORDER_FIRST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_LATEST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_NEXT: _ClassVar[SelectionOrder]
    SELECTION_ORDER_LOWEST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_HIGHEST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_LONGEST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_SHORTEST: _ClassVar[SelectionOrder]
    SELECTION_ORDER_EARLIEST: _ClassVar[SelectionOrder]

class AggregateFunction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AGGREGATE_FUNCTION_UNSPECIFIED: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_COUNT: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_AVERAGE: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_SUM: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_RANGE: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_DURATION: _ClassVar[AggregateFunction]
    AGGREGATE_FUNCTION_DAYS_UNTIL: _ClassVar[AggregateFunction]
ANSWER_KIND_UNSPECIFIED: AnswerKind
ANSWER_KIND_LIST: AnswerKind
ANSWER_KIND_YES_NO: AnswerKind
ANSWER_KIND_COUNT: AnswerKind
ANSWER_KIND_EXTREME: AnswerKind
ANSWER_KIND_AGGREGATE: AnswerKind
ANSWER_KIND_FIELDS: AnswerKind
ANSWER_KIND_FULL_LIST: AnswerKind
COMPARISON_UNSPECIFIED: Comparison
COMPARISON_LESS: Comparison
COMPARISON_LESS_OR_EQUAL: Comparison
COMPARISON_GREATER: Comparison
COMPARISON_GREATER_OR_EQUAL: Comparison
COMPARISON_EQUAL: Comparison
SELECTION_ORDER_UNSPECIFIED: SelectionOrder
SELECTION_ORDER_FIRST: SelectionOrder
SELECTION_ORDER_LATEST: SelectionOrder
SELECTION_ORDER_NEXT: SelectionOrder
SELECTION_ORDER_LOWEST: SelectionOrder
SELECTION_ORDER_HIGHEST: SelectionOrder
SELECTION_ORDER_LONGEST: SelectionOrder
SELECTION_ORDER_SHORTEST: SelectionOrder
SELECTION_ORDER_EARLIEST: SelectionOrder
AGGREGATE_FUNCTION_UNSPECIFIED: AggregateFunction
AGGREGATE_FUNCTION_COUNT: AggregateFunction
AGGREGATE_FUNCTION_AVERAGE: AggregateFunction
AGGREGATE_FUNCTION_SUM: AggregateFunction
AGGREGATE_FUNCTION_RANGE: AggregateFunction
AGGREGATE_FUNCTION_DURATION: AggregateFunction
AGGREGATE_FUNCTION_DAYS_UNTIL: AggregateFunction

class EndpointCall(_message.Message):
    __slots__ = ("endpoint", "params", "cached_response_json", "shape", "cached_result_id", "broader")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    CACHED_RESPONSE_JSON_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    CACHED_RESULT_ID_FIELD_NUMBER: _ClassVar[int]
    BROADER_FIELD_NUMBER: _ClassVar[int]
    endpoint: _catalogue_pb2.Endpoint
    params: _containers.ScalarMap[str, str]
    cached_response_json: str
    shape: AnswerShape
    cached_result_id: str
    broader: _containers.RepeatedCompositeFieldContainer[BroaderParams]
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., params: _Optional[_Mapping[str, str]] = ..., cached_response_json: _Optional[str] = ..., shape: _Optional[_Union[AnswerShape, _Mapping]] = ..., cached_result_id: _Optional[str] = ..., broader: _Optional[_Iterable[_Union[BroaderParams, _Mapping]]] = ...) -> None: ...

class BroaderParams(_message.Message):
    __slots__ = ("params",)
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    params: _containers.ScalarMap[str, str]
    def __init__(self, params: _Optional[_Mapping[str, str]] = ...) -> None: ...

class AnswerShape(_message.Message):
    __slots__ = ("kind", "filters", "selection", "aggregation", "terms", "question", "period_comparison")
    KIND_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    AGGREGATION_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    PERIOD_COMPARISON_FIELD_NUMBER: _ClassVar[int]
    kind: AnswerKind
    filters: _containers.RepeatedCompositeFieldContainer[RowFilter]
    selection: Selection
    aggregation: Aggregation
    terms: _containers.RepeatedScalarFieldContainer[str]
    question: str
    period_comparison: PeriodComparison
    def __init__(self, kind: _Optional[_Union[AnswerKind, str]] = ..., filters: _Optional[_Iterable[_Union[RowFilter, _Mapping]]] = ..., selection: _Optional[_Union[Selection, _Mapping]] = ..., aggregation: _Optional[_Union[Aggregation, _Mapping]] = ..., terms: _Optional[_Iterable[str]] = ..., question: _Optional[str] = ..., period_comparison: _Optional[_Union[PeriodComparison, _Mapping]] = ...) -> None: ...

class PeriodComparison(_message.Message):
    __slots__ = ("subject", "reference", "op")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    subject: DateRange
    reference: DateRange
    op: Comparison
    def __init__(self, subject: _Optional[_Union[DateRange, _Mapping]] = ..., reference: _Optional[_Union[DateRange, _Mapping]] = ..., op: _Optional[_Union[Comparison, str]] = ...) -> None: ...

class RowFilter(_message.Message):
    __slots__ = ("weekdays", "months", "dates", "hours", "comparison", "text", "negate")
    WEEKDAYS_FIELD_NUMBER: _ClassVar[int]
    MONTHS_FIELD_NUMBER: _ClassVar[int]
    DATES_FIELD_NUMBER: _ClassVar[int]
    HOURS_FIELD_NUMBER: _ClassVar[int]
    COMPARISON_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    NEGATE_FIELD_NUMBER: _ClassVar[int]
    weekdays: Weekdays
    months: Months
    dates: DateRange
    hours: HourRange
    comparison: NumberComparison
    text: TextMatch
    negate: bool
    def __init__(self, weekdays: _Optional[_Union[Weekdays, _Mapping]] = ..., months: _Optional[_Union[Months, _Mapping]] = ..., dates: _Optional[_Union[DateRange, _Mapping]] = ..., hours: _Optional[_Union[HourRange, _Mapping]] = ..., comparison: _Optional[_Union[NumberComparison, _Mapping]] = ..., text: _Optional[_Union[TextMatch, _Mapping]] = ..., negate: _Optional[bool] = ...) -> None: ...

class Weekdays(_message.Message):
    __slots__ = ("days",)
    DAYS_FIELD_NUMBER: _ClassVar[int]
    days: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, days: _Optional[_Iterable[int]] = ...) -> None: ...

class Months(_message.Message):
    __slots__ = ("months",)
    MONTHS_FIELD_NUMBER: _ClassVar[int]
    months: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, months: _Optional[_Iterable[int]] = ...) -> None: ...

class DateRange(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: str
    end: str
    def __init__(self, start: _Optional[str] = ..., end: _Optional[str] = ...) -> None: ...

class HourRange(_message.Message):
    __slots__ = ("from_hour", "to_hour")
    FROM_HOUR_FIELD_NUMBER: _ClassVar[int]
    TO_HOUR_FIELD_NUMBER: _ClassVar[int]
    from_hour: int
    to_hour: int
    def __init__(self, from_hour: _Optional[int] = ..., to_hour: _Optional[int] = ...) -> None: ...

class NumberComparison(_message.Message):
    __slots__ = ("op", "value", "terms")
    OP_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    op: Comparison
    value: float
    terms: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, op: _Optional[_Union[Comparison, str]] = ..., value: _Optional[float] = ..., terms: _Optional[_Iterable[str]] = ...) -> None: ...

class TextMatch(_message.Message):
    __slots__ = ("words",)
    WORDS_FIELD_NUMBER: _ClassVar[int]
    words: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, words: _Optional[_Iterable[str]] = ...) -> None: ...

class Selection(_message.Message):
    __slots__ = ("order", "count", "terms", "skip")
    ORDER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    order: SelectionOrder
    count: int
    terms: _containers.RepeatedScalarFieldContainer[str]
    skip: int
    def __init__(self, order: _Optional[_Union[SelectionOrder, str]] = ..., count: _Optional[int] = ..., terms: _Optional[_Iterable[str]] = ..., skip: _Optional[int] = ...) -> None: ...

class Aggregation(_message.Message):
    __slots__ = ("function", "terms")
    FUNCTION_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    function: AggregateFunction
    terms: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, function: _Optional[_Union[AggregateFunction, str]] = ..., terms: _Optional[_Iterable[str]] = ...) -> None: ...

class CallEndpointRequest(_message.Message):
    __slots__ = ("call", "language", "owner_id", "chat_id")
    CALL_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    call: EndpointCall
    language: _chat_pb2.Language
    owner_id: str
    chat_id: str
    def __init__(self, call: _Optional[_Union[EndpointCall, _Mapping]] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ..., owner_id: _Optional[str] = ..., chat_id: _Optional[str] = ...) -> None: ...

class CallEndpointResponse(_message.Message):
    __slots__ = ("outcome", "response_json", "error_message")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    outcome: _turn_event_pb2.CallOutcome
    response_json: str
    error_message: str
    def __init__(self, outcome: _Optional[_Union[_turn_event_pb2.CallOutcome, _Mapping]] = ..., response_json: _Optional[str] = ..., error_message: _Optional[str] = ...) -> None: ...

class ExecuteCallsRequest(_message.Message):
    __slots__ = ("calls", "user_query", "language", "owner_id", "chat_id")
    CALLS_FIELD_NUMBER: _ClassVar[int]
    USER_QUERY_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    calls: _containers.RepeatedCompositeFieldContainer[EndpointCall]
    user_query: str
    language: _chat_pb2.Language
    owner_id: str
    chat_id: str
    def __init__(self, calls: _Optional[_Iterable[_Union[EndpointCall, _Mapping]]] = ..., user_query: _Optional[str] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ..., owner_id: _Optional[str] = ..., chat_id: _Optional[str] = ...) -> None: ...

class ExecuteCallsResponse(_message.Message):
    __slots__ = ("event", "cached_result")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    CACHED_RESULT_FIELD_NUMBER: _ClassVar[int]
    event: _turn_event_pb2.TurnEvent
    cached_result: CachedResult
    def __init__(self, event: _Optional[_Union[_turn_event_pb2.TurnEvent, _Mapping]] = ..., cached_result: _Optional[_Union[CachedResult, _Mapping]] = ...) -> None: ...

class CachedResult(_message.Message):
    __slots__ = ("ttl_seconds", "sketch", "ttl")
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SKETCH_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    ttl_seconds: int
    sketch: ResultSketch
    ttl: _duration_pb2.Duration
    def __init__(self, ttl_seconds: _Optional[int] = ..., sketch: _Optional[_Union[ResultSketch, _Mapping]] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class ResultSketch(_message.Message):
    __slots__ = ("keys", "has_numbers", "has_days", "has_times", "is_list", "rows")
    KEYS_FIELD_NUMBER: _ClassVar[int]
    HAS_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    HAS_DAYS_FIELD_NUMBER: _ClassVar[int]
    HAS_TIMES_FIELD_NUMBER: _ClassVar[int]
    IS_LIST_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedScalarFieldContainer[str]
    has_numbers: bool
    has_days: bool
    has_times: bool
    is_list: bool
    rows: _containers.RepeatedCompositeFieldContainer[SketchRow]
    def __init__(self, keys: _Optional[_Iterable[str]] = ..., has_numbers: _Optional[bool] = ..., has_days: _Optional[bool] = ..., has_times: _Optional[bool] = ..., is_list: _Optional[bool] = ..., rows: _Optional[_Iterable[_Union[SketchRow, _Mapping]]] = ...) -> None: ...

class SketchRow(_message.Message):
    __slots__ = ("words", "has_flag")
    WORDS_FIELD_NUMBER: _ClassVar[int]
    HAS_FLAG_FIELD_NUMBER: _ClassVar[int]
    words: _containers.RepeatedScalarFieldContainer[str]
    has_flag: bool
    def __init__(self, words: _Optional[_Iterable[str]] = ..., has_flag: _Optional[bool] = ...) -> None: ...

class GetResultRequest(_message.Message):
    __slots__ = ("result_id", "owner_id")
    RESULT_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    result_id: str
    owner_id: str
    def __init__(self, result_id: _Optional[str] = ..., owner_id: _Optional[str] = ...) -> None: ...

class StoredResult(_message.Message):
    __slots__ = ("result_id", "endpoint_name", "question", "summary", "response_json", "generated_at", "owner_id", "query_json")
    RESULT_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_NAME_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_JSON_FIELD_NUMBER: _ClassVar[int]
    GENERATED_AT_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_JSON_FIELD_NUMBER: _ClassVar[int]
    result_id: str
    endpoint_name: str
    question: str
    summary: str
    response_json: str
    generated_at: str
    owner_id: str
    query_json: str
    def __init__(self, result_id: _Optional[str] = ..., endpoint_name: _Optional[str] = ..., question: _Optional[str] = ..., summary: _Optional[str] = ..., response_json: _Optional[str] = ..., generated_at: _Optional[str] = ..., owner_id: _Optional[str] = ..., query_json: _Optional[str] = ...) -> None: ...

class GetResultResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: StoredResult
    def __init__(self, result: _Optional[_Union[StoredResult, _Mapping]] = ...) -> None: ...
