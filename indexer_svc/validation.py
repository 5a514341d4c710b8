"""Catalogue entities as validated at the edge of the indexer.

The endpoint body of the design documents (camelCase, e.g. "endpointId") validates
as-is; the proto's snake_case names (e.g. "endpoint_id") are accepted too. A failure
becomes `InvalidArgument` naming the first offending field by its proto path, e.g.
"endpoint.params[1].type".
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel, to_snake

from services.errors import InvalidArgument
from services.language import parse_lang

ParamType = Literal["string", "date", "datetime", "integer", "number", "boolean"]
PARAM_TYPES: tuple[str, ...] = ("string", "date", "datetime", "integer", "number", "boolean")

_SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


class _Entity(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", str_strip_whitespace=True
    )


def _check_http_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("must be an absolute http(s) URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        # Secrets in URLs end up in logs, caches and answers: they belong in the caller's settings.
        raise ValueError("must not contain credentials (user:password@)")
    return value


def _check_uuid(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ValueError("must be a UUID") from None


_BLANK_MEANS_DEFAULT = {"visibility", "type", "cacheable", "cache_ttl_seconds", "cacheTtlSeconds"}


class EndpointParam(_Entity):
    name: str = Field(min_length=1)
    type: ParamType
    required: bool = False
    description: str = ""
    enum: list[str] = Field(default_factory=list)
    # The description by language code, so questions name the parameter in the citizen's language.
    descriptions: dict[str, str] = Field(default_factory=dict)
    # The value's form as the API checks it (OpenAPI `schema.pattern`); a regular expression.
    pattern: str = Field(default="", max_length=200)

    @field_validator("pattern")
    @classmethod
    def _pattern_compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"is not a regular expression: {exc}") from None
        return value

    @field_validator("descriptions")
    @classmethod
    def _description_languages(cls, value: dict[str, str]) -> dict[str, str]:
        return _language_keys(value)

    @field_validator("name")
    @classmethod
    def _name_is_identifier(cls, value: str) -> str:
        if not _PARAM_NAME.match(value):
            raise ValueError("must be an identifier (letters, digits, _ . -)")
        return value

    @field_validator("type", mode="before")
    @classmethod
    def _type_lowercase(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("enum", mode="before")
    @classmethod
    def _enum_values_as_text(cls, value: Any) -> Any:
        # Integer and boolean parameters list their allowed values as JSON numbers and
        # booleans (party_size: [1, 2, 3]); the catalogue keeps every value as text.
        if not isinstance(value, list):
            return value
        return [
            ("true" if v else "false") if isinstance(v, bool) else str(v) if isinstance(v, int | float) else v
            for v in value
        ]


_LANGUAGE_CODE = re.compile(r"^[a-z]{2}$")


def _language_keys(value: dict[str, str]) -> dict[str, str]:
    cleaned = {k.strip().lower(): v.strip() for k, v in value.items()}
    bad = [k for k in cleaned if not _LANGUAGE_CODE.match(k)]
    if bad:
        raise ValueError(f"keys must be 2-letter language codes, got {bad[0]!r}")
    return {k: v for k, v in cleaned.items() if v}


class EnumValueLabel(_Entity):
    value: str = Field(min_length=1)
    labels: dict[str, str] = Field(default_factory=dict)

    @field_validator("labels")
    @classmethod
    def _language_codes(cls, value: dict[str, str]) -> dict[str, str]:
        return _language_keys(value)


class ResponseFieldLabel(_Entity):
    field: str = Field(min_length=1)
    labels: dict[str, str] = Field(default_factory=dict)
    values: list[EnumValueLabel] = Field(default_factory=list)
    units: dict[str, str] = Field(default_factory=dict)

    @field_validator("labels", "units")
    @classmethod
    def _language_codes(cls, value: dict[str, str]) -> dict[str, str]:
        return _language_keys(value)


def _unique_param_names(params: list[EndpointParam]) -> list[EndpointParam]:
    seen: set[str] = set()
    for param in params:
        if param.name in seen:
            raise ValueError(f"duplicate parameter name {param.name!r}")
        seen.add(param.name)
    return params


class Endpoint(_Entity):
    endpoint_id: str
    service_id: str = ""
    name: str
    description: str = Field(min_length=1)
    method: Literal["GET", "POST"]
    url: str
    visibility: Literal["public", "private"] = "public"
    type: str = "custom_endpoint"
    params: list[EndpointParam] = Field(default_factory=list)
    # Example user phrasings that should reach this endpoint.
    examples: list[str] = Field(default_factory=list)
    enriched_context: str = ""
    cacheable: bool | None = None
    cache_ttl_seconds: int | None = Field(default=None, ge=0)
    # Per-language labels for response fields / enum values and the answer's title.
    response_labels: list[ResponseFieldLabel] = Field(default_factory=list)
    answer_titles: dict[str, str] = Field(default_factory=dict)

    @field_validator("answer_titles")
    @classmethod
    def _title_languages(cls, value: dict[str, str]) -> dict[str, str]:
        return _language_keys(value)

    @model_validator(mode="before")
    @classmethod
    def _drop_blank_defaults(cls, data: Any) -> Any:
        # proto3 sends "" for unset strings: let those fields take their defaults.
        if isinstance(data, Mapping):
            data = {k: v for k, v in data.items() if not (k in _BLANK_MEANS_DEFAULT and v in ("", None))}
        return data

    @field_validator("endpoint_id")
    @classmethod
    def _endpoint_id_is_uuid(cls, value: str) -> str:
        return _check_uuid(value)

    @field_validator("url")
    @classmethod
    def _absolute_url(cls, value: str) -> str:
        return _check_http_url(value)

    @field_validator("params")
    @classmethod
    def _unique_params(cls, value: list[EndpointParam]) -> list[EndpointParam]:
        return _unique_param_names(value)

    @field_validator("name")
    @classmethod
    def _snake_case(cls, value: str) -> str:
        if not _SNAKE_CASE.match(value):
            raise ValueError("must be snake_case (e.g. get_national_holidays)")
        return value

    @field_validator("method", mode="before")
    @classmethod
    def _method_upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @property
    def id(self) -> str:
        return self.endpoint_id


class Service(_Entity):
    service_id: str
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    examples: list[str] = Field(default_factory=list)
    url: str = ""
    params: list[EndpointParam] = Field(default_factory=list)
    enriched_context: str = ""
    answer_titles: dict[str, str] = Field(default_factory=dict)

    @field_validator("answer_titles")
    @classmethod
    def _title_languages(cls, value: dict[str, str]) -> dict[str, str]:
        return _language_keys(value)

    @field_validator("params")
    @classmethod
    def _unique_params(cls, value: list[EndpointParam]) -> list[EndpointParam]:
        return _unique_param_names(value)

    @field_validator("service_id")
    @classmethod
    def _id_present(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value

    @field_validator("url")
    @classmethod
    def _optional_url(cls, value: str) -> str:
        return _check_http_url(value) if value else value

    @property
    def id(self) -> str:
        return self.service_id


class KnowledgeDocument(_Entity):
    document_id: str
    title: str = ""
    text: str = Field(min_length=1)
    source_url: str = ""
    language: str = ""
    # Heading of the source part this passage was cut from.
    section: str = ""
    # Other names of the page's topic (front matter `keywords`): searched like the title.
    keywords: list[str] = Field(default_factory=list)

    @field_validator("document_id")
    @classmethod
    def _id_present(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value

    @field_validator("source_url")
    @classmethod
    def _optional_url(cls, value: str) -> str:
        return _check_http_url(value) if value else value

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        if not value:
            return value
        lang = parse_lang(value)
        if lang is None:
            raise ValueError("must be en, et or ru")
        return lang

    @property
    def id(self) -> str:
        return self.document_id


EntityT = TypeVar("EntityT", Endpoint, Service, KnowledgeDocument)


def _field_path(root: str, loc: tuple[int | str, ...]) -> str:
    path = root
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{to_snake(part)}"
    return path


def parse_entity(model: type[EntityT], data: Mapping[str, Any], *, root: str) -> EntityT:
    """Validate `data` as `model`, or raise InvalidArgument naming the first bad field under `root`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(root, tuple(p for p in first["loc"] if not str(p).startswith("function-")))
        message = first["msg"].removeprefix("Value error, ")
        raise InvalidArgument(f"{field}: {message}", field=field) from None


def parse_endpoint(data: Mapping[str, Any]) -> Endpoint:
    return parse_entity(Endpoint, data, root="endpoint")


def parse_service(data: Mapping[str, Any]) -> Service:
    return parse_entity(Service, data, root="service")


def parse_knowledge_document(data: Mapping[str, Any]) -> KnowledgeDocument:
    return parse_entity(KnowledgeDocument, data, root="document")
