from atc.common.v1 import catalogue_pb2 as _catalogue_pb2
from atc.common.v1 import chat_pb2 as _chat_pb2
from atc.common.v1 import turn_event_pb2 as _turn_event_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndpointCall(_message.Message):
    __slots__ = ("endpoint", "params", "cached_response_json")
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
    endpoint: _catalogue_pb2.Endpoint
    params: _containers.ScalarMap[str, str]
    cached_response_json: str
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., params: _Optional[_Mapping[str, str]] = ..., cached_response_json: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _turn_event_pb2.TurnEvent
    def __init__(self, event: _Optional[_Union[_turn_event_pb2.TurnEvent, _Mapping]] = ...) -> None: ...

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
