from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Workflow(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKFLOW_UNSPECIFIED: _ClassVar[Workflow]
    WORKFLOW_SERVICE: _ClassVar[Workflow]
    WORKFLOW_API_TOOL_CALLING: _ClassVar[Workflow]
    WORKFLOW_CONTEXT: _ClassVar[Workflow]
    WORKFLOW_RAG: _ClassVar[Workflow]
    WORKFLOW_OOD: _ClassVar[Workflow]

class TurnOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TURN_OUTCOME_UNSPECIFIED: _ClassVar[TurnOutcome]
    TURN_OUTCOME_ANSWERED: _ClassVar[TurnOutcome]
    TURN_OUTCOME_NEEDS_INPUT: _ClassVar[TurnOutcome]
    TURN_OUTCOME_CACHED: _ClassVar[TurnOutcome]
    TURN_OUTCOME_OUT_OF_DOMAIN: _ClassVar[TurnOutcome]
    TURN_OUTCOME_FAILED: _ClassVar[TurnOutcome]
    TURN_OUTCOME_ABANDONED: _ClassVar[TurnOutcome]

class TokenKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOKEN_KIND_UNSPECIFIED: _ClassVar[TokenKind]
    TOKEN_KIND_ANSWER: _ClassVar[TokenKind]
    TOKEN_KIND_QUESTION: _ClassVar[TokenKind]
WORKFLOW_UNSPECIFIED: Workflow
WORKFLOW_SERVICE: Workflow
WORKFLOW_API_TOOL_CALLING: Workflow
WORKFLOW_CONTEXT: Workflow
WORKFLOW_RAG: Workflow
WORKFLOW_OOD: Workflow
TURN_OUTCOME_UNSPECIFIED: TurnOutcome
TURN_OUTCOME_ANSWERED: TurnOutcome
TURN_OUTCOME_NEEDS_INPUT: TurnOutcome
TURN_OUTCOME_CACHED: TurnOutcome
TURN_OUTCOME_OUT_OF_DOMAIN: TurnOutcome
TURN_OUTCOME_FAILED: TurnOutcome
TURN_OUTCOME_ABANDONED: TurnOutcome
TOKEN_KIND_UNSPECIFIED: TokenKind
TOKEN_KIND_ANSWER: TokenKind
TOKEN_KIND_QUESTION: TokenKind

class Token(_message.Message):
    __slots__ = ("text", "kind")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    text: str
    kind: TokenKind
    def __init__(self, text: _Optional[str] = ..., kind: _Optional[_Union[TokenKind, str]] = ...) -> None: ...

class Question(_message.Message):
    __slots__ = ("endpoint_names", "missing_params")
    ENDPOINT_NAMES_FIELD_NUMBER: _ClassVar[int]
    MISSING_PARAMS_FIELD_NUMBER: _ClassVar[int]
    endpoint_names: _containers.RepeatedScalarFieldContainer[str]
    missing_params: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, endpoint_names: _Optional[_Iterable[str]] = ..., missing_params: _Optional[_Iterable[str]] = ...) -> None: ...

class Progress(_message.Message):
    __slots__ = ("stage", "detail", "workflow", "endpoint_names", "confidence")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    stage: str
    detail: str
    workflow: Workflow
    endpoint_names: _containers.RepeatedScalarFieldContainer[str]
    confidence: float
    def __init__(self, stage: _Optional[str] = ..., detail: _Optional[str] = ..., workflow: _Optional[_Union[Workflow, str]] = ..., endpoint_names: _Optional[_Iterable[str]] = ..., confidence: _Optional[float] = ...) -> None: ...

class CallOutcome(_message.Message):
    __slots__ = ("endpoint_name", "success", "http_status", "result_id", "summary", "duration_ms")
    ENDPOINT_NAME_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    RESULT_ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    endpoint_name: str
    success: bool
    http_status: int
    result_id: str
    summary: str
    duration_ms: int
    def __init__(self, endpoint_name: _Optional[str] = ..., success: _Optional[bool] = ..., http_status: _Optional[int] = ..., result_id: _Optional[str] = ..., summary: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class End(_message.Message):
    __slots__ = ("outcome", "workflow", "llm_calls", "fallback_query")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_FIELD_NUMBER: _ClassVar[int]
    LLM_CALLS_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_QUERY_FIELD_NUMBER: _ClassVar[int]
    outcome: TurnOutcome
    workflow: Workflow
    llm_calls: int
    fallback_query: str
    def __init__(self, outcome: _Optional[_Union[TurnOutcome, str]] = ..., workflow: _Optional[_Union[Workflow, str]] = ..., llm_calls: _Optional[int] = ..., fallback_query: _Optional[str] = ...) -> None: ...

class Source(_message.Message):
    __slots__ = ("title", "url")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    title: str
    url: str
    def __init__(self, title: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class Sources(_message.Message):
    __slots__ = ("sources",)
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedCompositeFieldContainer[Source]
    def __init__(self, sources: _Optional[_Iterable[_Union[Source, _Mapping]]] = ...) -> None: ...

class TurnEvent(_message.Message):
    __slots__ = ("token", "question", "progress", "call_outcome", "error", "end", "sources")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    CALL_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    token: Token
    question: Question
    progress: Progress
    call_outcome: CallOutcome
    error: _status_pb2.Status
    end: End
    sources: Sources
    def __init__(self, token: _Optional[_Union[Token, _Mapping]] = ..., question: _Optional[_Union[Question, _Mapping]] = ..., progress: _Optional[_Union[Progress, _Mapping]] = ..., call_outcome: _Optional[_Union[CallOutcome, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., end: _Optional[_Union[End, _Mapping]] = ..., sources: _Optional[_Union[Sources, _Mapping]] = ...) -> None: ...
