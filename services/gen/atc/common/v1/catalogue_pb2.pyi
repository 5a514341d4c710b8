from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndpointParam(_message.Message):
    __slots__ = ("name", "type", "required", "description", "enum", "descriptions", "pattern")
    class DescriptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENUM_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    required: bool
    description: str
    enum: _containers.RepeatedScalarFieldContainer[str]
    descriptions: _containers.ScalarMap[str, str]
    pattern: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., required: _Optional[bool] = ..., description: _Optional[str] = ..., enum: _Optional[_Iterable[str]] = ..., descriptions: _Optional[_Mapping[str, str]] = ..., pattern: _Optional[str] = ...) -> None: ...

class Endpoint(_message.Message):
    __slots__ = ("endpoint_id", "service_id", "name", "description", "method", "url", "visibility", "type", "params", "enriched_context", "cacheable", "cache_ttl_seconds", "examples", "response_labels", "answer_titles")
    class AnswerTitlesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    ENRICHED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CACHEABLE_FIELD_NUMBER: _ClassVar[int]
    CACHE_TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_LABELS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_TITLES_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    service_id: str
    name: str
    description: str
    method: str
    url: str
    visibility: str
    type: str
    params: _containers.RepeatedCompositeFieldContainer[EndpointParam]
    enriched_context: str
    cacheable: bool
    cache_ttl_seconds: int
    examples: _containers.RepeatedScalarFieldContainer[str]
    response_labels: _containers.RepeatedCompositeFieldContainer[ResponseFieldLabel]
    answer_titles: _containers.ScalarMap[str, str]
    def __init__(self, endpoint_id: _Optional[str] = ..., service_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., method: _Optional[str] = ..., url: _Optional[str] = ..., visibility: _Optional[str] = ..., type: _Optional[str] = ..., params: _Optional[_Iterable[_Union[EndpointParam, _Mapping]]] = ..., enriched_context: _Optional[str] = ..., cacheable: _Optional[bool] = ..., cache_ttl_seconds: _Optional[int] = ..., examples: _Optional[_Iterable[str]] = ..., response_labels: _Optional[_Iterable[_Union[ResponseFieldLabel, _Mapping]]] = ..., answer_titles: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ResponseFieldLabel(_message.Message):
    __slots__ = ("field", "labels", "values", "units")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class UnitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FIELD_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    field: str
    labels: _containers.ScalarMap[str, str]
    values: _containers.RepeatedCompositeFieldContainer[EnumValueLabel]
    units: _containers.ScalarMap[str, str]
    def __init__(self, field: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., values: _Optional[_Iterable[_Union[EnumValueLabel, _Mapping]]] = ..., units: _Optional[_Mapping[str, str]] = ...) -> None: ...

class EnumValueLabel(_message.Message):
    __slots__ = ("value", "labels")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    value: str
    labels: _containers.ScalarMap[str, str]
    def __init__(self, value: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Service(_message.Message):
    __slots__ = ("service_id", "name", "description", "examples", "url", "params", "enriched_context", "answer_titles")
    class AnswerTitlesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    ENRICHED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_TITLES_FIELD_NUMBER: _ClassVar[int]
    service_id: str
    name: str
    description: str
    examples: _containers.RepeatedScalarFieldContainer[str]
    url: str
    params: _containers.RepeatedCompositeFieldContainer[EndpointParam]
    enriched_context: str
    answer_titles: _containers.ScalarMap[str, str]
    def __init__(self, service_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., examples: _Optional[_Iterable[str]] = ..., url: _Optional[str] = ..., params: _Optional[_Iterable[_Union[EndpointParam, _Mapping]]] = ..., enriched_context: _Optional[str] = ..., answer_titles: _Optional[_Mapping[str, str]] = ...) -> None: ...

class KnowledgeDocument(_message.Message):
    __slots__ = ("document_id", "title", "text", "source_url", "language", "section", "keywords")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_URL_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    title: str
    text: str
    source_url: str
    language: str
    section: str
    keywords: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, document_id: _Optional[str] = ..., title: _Optional[str] = ..., text: _Optional[str] = ..., source_url: _Optional[str] = ..., language: _Optional[str] = ..., section: _Optional[str] = ..., keywords: _Optional[_Iterable[str]] = ...) -> None: ...
