"""Proto messages ⇄ catalogue entities (field names are the same, snake_case)."""

from __future__ import annotations

from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

from atc.common.v1 import catalogue_pb2
from indexer_svc.validation import Endpoint, KnowledgeDocument, Service

MessageT = TypeVar("MessageT", bound=Message)


def message_to_body(message: Message) -> dict[str, Any]:
    """Set fields only: proto3 defaults are left out so the entity's own defaults apply
    and missing required fields are reported as missing."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _to_message(entity: Endpoint | Service | KnowledgeDocument, message: MessageT) -> MessageT:
    return json_format.ParseDict(
        entity.model_dump(mode="json", exclude_none=True), message, ignore_unknown_fields=True
    )


def endpoint_message(endpoint: Endpoint) -> catalogue_pb2.Endpoint:
    return _to_message(endpoint, catalogue_pb2.Endpoint())


def service_message(service: Service) -> catalogue_pb2.Service:
    return _to_message(service, catalogue_pb2.Service())


def document_message(document: KnowledgeDocument) -> catalogue_pb2.KnowledgeDocument:
    return _to_message(document, catalogue_pb2.KnowledgeDocument())
