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

class ExecutionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXECUTION_MODE_UNSPECIFIED: _ClassVar[ExecutionMode]
    EXECUTION_MODE_SINGLE: _ClassVar[ExecutionMode]
    EXECUTION_MODE_PARALLEL: _ClassVar[ExecutionMode]

class DecisionReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_REASON_UNSPECIFIED: _ClassVar[DecisionReason]
    DECISION_REASON_NEW_MATCH: _ClassVar[DecisionReason]
    DECISION_REASON_SESSION_RESUME: _ClassVar[DecisionReason]
    DECISION_REASON_INTENT_SWITCH: _ClassVar[DecisionReason]
    DECISION_REASON_NO_MATCH: _ClassVar[DecisionReason]
EXECUTION_MODE_UNSPECIFIED: ExecutionMode
EXECUTION_MODE_SINGLE: ExecutionMode
EXECUTION_MODE_PARALLEL: ExecutionMode
DECISION_REASON_UNSPECIFIED: DecisionReason
DECISION_REASON_NEW_MATCH: DecisionReason
DECISION_REASON_SESSION_RESUME: DecisionReason
DECISION_REASON_INTENT_SWITCH: DecisionReason
DECISION_REASON_NO_MATCH: DecisionReason

class MatchedEndpoint(_message.Message):
    __slots__ = ("endpoint", "dense_cosine", "hybrid_rank", "score", "query")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    DENSE_COSINE_FIELD_NUMBER: _ClassVar[int]
    HYBRID_RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    endpoint: _catalogue_pb2.Endpoint
    dense_cosine: float
    hybrid_rank: int
    score: float
    query: str
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., dense_cosine: _Optional[float] = ..., hybrid_rank: _Optional[int] = ..., score: _Optional[float] = ..., query: _Optional[str] = ...) -> None: ...

class Classification(_message.Message):
    __slots__ = ("workflow", "confidence", "execution_mode", "matched_endpoints", "reason", "reasoning", "language", "llm_validated", "llm_calls")
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_MODE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    LLM_VALIDATED_FIELD_NUMBER: _ClassVar[int]
    LLM_CALLS_FIELD_NUMBER: _ClassVar[int]
    workflow: _turn_event_pb2.Workflow
    confidence: float
    execution_mode: ExecutionMode
    matched_endpoints: _containers.RepeatedCompositeFieldContainer[MatchedEndpoint]
    reason: DecisionReason
    reasoning: str
    language: _chat_pb2.Language
    llm_validated: bool
    llm_calls: int
    def __init__(self, workflow: _Optional[_Union[_turn_event_pb2.Workflow, str]] = ..., confidence: _Optional[float] = ..., execution_mode: _Optional[_Union[ExecutionMode, str]] = ..., matched_endpoints: _Optional[_Iterable[_Union[MatchedEndpoint, _Mapping]]] = ..., reason: _Optional[_Union[DecisionReason, str]] = ..., reasoning: _Optional[str] = ..., language: _Optional[_Union[_chat_pb2.Language, str]] = ..., llm_validated: _Optional[bool] = ..., llm_calls: _Optional[int] = ...) -> None: ...

class ClassifyRequest(_message.Message):
    __slots__ = ("turn",)
    TURN_FIELD_NUMBER: _ClassVar[int]
    turn: _chat_pb2.ChatTurn
    def __init__(self, turn: _Optional[_Union[_chat_pb2.ChatTurn, _Mapping]] = ...) -> None: ...

class ClassifyResponse(_message.Message):
    __slots__ = ("classification",)
    CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    classification: Classification
    def __init__(self, classification: _Optional[_Union[Classification, _Mapping]] = ...) -> None: ...

class RouteTurnRequest(_message.Message):
    __slots__ = ("turn",)
    TURN_FIELD_NUMBER: _ClassVar[int]
    turn: _chat_pb2.ChatTurn
    def __init__(self, turn: _Optional[_Union[_chat_pb2.ChatTurn, _Mapping]] = ...) -> None: ...

class RouteTurnResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: _turn_event_pb2.TurnEvent
    def __init__(self, event: _Optional[_Union[_turn_event_pb2.TurnEvent, _Mapping]] = ...) -> None: ...
