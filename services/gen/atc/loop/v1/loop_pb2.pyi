from atc.common.v1 import catalogue_pb2 as _catalogue_pb2
from atc.common.v1 import chat_pb2 as _chat_pb2
from atc.common.v1 import turn_event_pb2 as _turn_event_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FollowUpKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FOLLOW_UP_KIND_UNSPECIFIED: _ClassVar[FollowUpKind]
    FOLLOW_UP_KIND_NEW_INTENT: _ClassVar[FollowUpKind]
    FOLLOW_UP_KIND_RESPONSE_QUESTION: _ClassVar[FollowUpKind]
    FOLLOW_UP_KIND_PARAM_UPDATE: _ClassVar[FollowUpKind]

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATE_UNSPECIFIED: _ClassVar[SessionState]
    SESSION_STATE_COLLECTING_PARAMS: _ClassVar[SessionState]
    SESSION_STATE_AWAITING_CONTINUATION: _ClassVar[SessionState]
FOLLOW_UP_KIND_UNSPECIFIED: FollowUpKind
FOLLOW_UP_KIND_NEW_INTENT: FollowUpKind
FOLLOW_UP_KIND_RESPONSE_QUESTION: FollowUpKind
FOLLOW_UP_KIND_PARAM_UPDATE: FollowUpKind
SESSION_STATE_UNSPECIFIED: SessionState
SESSION_STATE_COLLECTING_PARAMS: SessionState
SESSION_STATE_AWAITING_CONTINUATION: SessionState

class ChatStateRequest(_message.Message):
    __slots__ = ("chat_id", "owner_id", "message", "language")
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    owner_id: str
    message: str
    language: _chat_pb2.Language
    def __init__(self, chat_id: _Optional[str] = ..., owner_id: _Optional[str] = ..., message: _Optional[str] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ...) -> None: ...

class ChatStateResponse(_message.Message):
    __slots__ = ("session", "follow_up")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_UP_FIELD_NUMBER: _ClassVar[int]
    session: Session
    follow_up: DetectFollowUpResponse
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., follow_up: _Optional[_Union[DetectFollowUpResponse, _Mapping]] = ...) -> None: ...

class DetectFollowUpRequest(_message.Message):
    __slots__ = ("chat_id", "owner_id", "message", "language")
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    owner_id: str
    message: str
    language: _chat_pb2.Language
    def __init__(self, chat_id: _Optional[str] = ..., owner_id: _Optional[str] = ..., message: _Optional[str] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ...) -> None: ...

class DetectFollowUpResponse(_message.Message):
    __slots__ = ("kind", "endpoint", "updated_params", "llm_calls")
    class UpdatedParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KIND_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_PARAMS_FIELD_NUMBER: _ClassVar[int]
    LLM_CALLS_FIELD_NUMBER: _ClassVar[int]
    kind: FollowUpKind
    endpoint: _catalogue_pb2.Endpoint
    updated_params: _containers.ScalarMap[str, str]
    llm_calls: int
    def __init__(self, kind: _Optional[_Union[FollowUpKind, str]] = ..., endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., updated_params: _Optional[_Mapping[str, str]] = ..., llm_calls: _Optional[int] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("chat_id", "state", "endpoints", "collected", "turn_count", "max_turns", "language", "original_query")
    class CollectedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CollectedParams
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CollectedParams, _Mapping]] = ...) -> None: ...
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    COLLECTED_FIELD_NUMBER: _ClassVar[int]
    TURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_QUERY_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    state: SessionState
    endpoints: _containers.RepeatedCompositeFieldContainer[_catalogue_pb2.Endpoint]
    collected: _containers.MessageMap[str, CollectedParams]
    turn_count: int
    max_turns: int
    language: _chat_pb2.Language
    original_query: str
    def __init__(self, chat_id: _Optional[str] = ..., state: _Optional[_Union[SessionState, str]] = ..., endpoints: _Optional[_Iterable[_Union[_catalogue_pb2.Endpoint, _Mapping]]] = ..., collected: _Optional[_Mapping[str, CollectedParams]] = ..., turn_count: _Optional[int] = ..., max_turns: _Optional[int] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ..., original_query: _Optional[str] = ...) -> None: ...

class CollectedParams(_message.Message):
    __slots__ = ("values",)
    class ValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.ScalarMap[str, str]
    def __init__(self, values: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RunTurnRequest(_message.Message):
    __slots__ = ("turn", "endpoints", "language", "resume_session", "follow_up", "endpoint_queries")
    TURN_FIELD_NUMBER: _ClassVar[int]
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    RESUME_SESSION_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_UP_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_QUERIES_FIELD_NUMBER: _ClassVar[int]
    turn: _chat_pb2.ChatTurn
    endpoints: _containers.RepeatedCompositeFieldContainer[_catalogue_pb2.Endpoint]
    language: _chat_pb2.Language
    resume_session: bool
    follow_up: DetectFollowUpResponse
    endpoint_queries: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, turn: _Optional[_Union[_chat_pb2.ChatTurn, _Mapping]] = ..., endpoints: _Optional[_Iterable[_Union[_catalogue_pb2.Endpoint, _Mapping]]] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ..., resume_session: _Optional[bool] = ..., follow_up: _Optional[_Union[DetectFollowUpResponse, _Mapping]] = ..., endpoint_queries: _Optional[_Iterable[str]] = ...) -> None: ...

class RunTurnResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _turn_event_pb2.TurnEvent
    def __init__(self, event: _Optional[_Union[_turn_event_pb2.TurnEvent, _Mapping]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ("chat_id", "owner_id")
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    owner_id: str
    def __init__(self, chat_id: _Optional[str] = ..., owner_id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class DeleteSessionRequest(_message.Message):
    __slots__ = ("chat_id", "owner_id")
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    owner_id: str
    def __init__(self, chat_id: _Optional[str] = ..., owner_id: _Optional[str] = ...) -> None: ...

class DeleteSessionResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...
