from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Language(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LANGUAGE_UNSPECIFIED: _ClassVar[Language]
    LANGUAGE_EN: _ClassVar[Language]
    LANGUAGE_ET: _ClassVar[Language]
    LANGUAGE_RU: _ClassVar[Language]

class ChatRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHAT_ROLE_UNSPECIFIED: _ClassVar[ChatRole]
    CHAT_ROLE_USER: _ClassVar[ChatRole]
    CHAT_ROLE_ASSISTANT: _ClassVar[ChatRole]
LANGUAGE_UNSPECIFIED: Language
LANGUAGE_EN: Language
LANGUAGE_ET: Language
LANGUAGE_RU: Language
CHAT_ROLE_UNSPECIFIED: ChatRole
CHAT_ROLE_USER: ChatRole
CHAT_ROLE_ASSISTANT: ChatRole

class ChatMessage(_message.Message):
    __slots__ = ("role", "content")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    role: ChatRole
    content: str
    def __init__(self, role: _Optional[_Union[ChatRole, str]] = ..., content: _Optional[str] = ...) -> None: ...

class ChatTurn(_message.Message):
    __slots__ = ("chat_id", "message", "language", "conversation_history", "owner_id", "request_id")
    CHAT_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    chat_id: str
    message: str
    language: Language
    conversation_history: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    owner_id: str
    request_id: str
    def __init__(self, chat_id: _Optional[str] = ..., message: _Optional[str] = ..., language: _Optional[_Union[Language, str]] = ..., conversation_history: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., owner_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...
