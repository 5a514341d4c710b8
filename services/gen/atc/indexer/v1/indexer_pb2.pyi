from atc.common.v1 import catalogue_pb2 as _catalogue_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Collection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COLLECTION_UNSPECIFIED: _ClassVar[Collection]
    COLLECTION_ENDPOINTS: _ClassVar[Collection]
    COLLECTION_SERVICES: _ClassVar[Collection]
    COLLECTION_KNOWLEDGE: _ClassVar[Collection]

class EmbeddingRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EMBEDDING_ROLE_UNSPECIFIED: _ClassVar[EmbeddingRole]
    EMBEDDING_ROLE_QUERY: _ClassVar[EmbeddingRole]
    EMBEDDING_ROLE_PASSAGE: _ClassVar[EmbeddingRole]
COLLECTION_UNSPECIFIED: Collection
COLLECTION_ENDPOINTS: Collection
COLLECTION_SERVICES: Collection
COLLECTION_KNOWLEDGE: Collection
EMBEDDING_ROLE_UNSPECIFIED: EmbeddingRole
EMBEDDING_ROLE_QUERY: EmbeddingRole
EMBEDDING_ROLE_PASSAGE: EmbeddingRole

class IndexEndpointRequest(_message.Message):
    __slots__ = ("endpoint", "skip_enrichment")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SKIP_ENRICHMENT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _catalogue_pb2.Endpoint
    skip_enrichment: bool
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., skip_enrichment: _Optional[bool] = ...) -> None: ...

class IndexEndpointResponse(_message.Message):
    __slots__ = ("endpoint", "replaced", "embed_text")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    REPLACED_FIELD_NUMBER: _ClassVar[int]
    EMBED_TEXT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _catalogue_pb2.Endpoint
    replaced: bool
    embed_text: str
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., replaced: _Optional[bool] = ..., embed_text: _Optional[str] = ...) -> None: ...

class DeleteEndpointRequest(_message.Message):
    __slots__ = ("endpoint_id",)
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    def __init__(self, endpoint_id: _Optional[str] = ...) -> None: ...

class DeleteEndpointResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...

class GetEndpointRequest(_message.Message):
    __slots__ = ("endpoint_id",)
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    endpoint_id: str
    def __init__(self, endpoint_id: _Optional[str] = ...) -> None: ...

class GetEndpointResponse(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _catalogue_pb2.Endpoint
    def __init__(self, endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ...) -> None: ...

class ListEndpointsRequest(_message.Message):
    __slots__ = ("service_id", "page_size", "page_token")
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    service_id: str
    page_size: int
    page_token: str
    def __init__(self, service_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListEndpointsResponse(_message.Message):
    __slots__ = ("endpoints", "next_page_token")
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    endpoints: _containers.RepeatedCompositeFieldContainer[_catalogue_pb2.Endpoint]
    next_page_token: str
    def __init__(self, endpoints: _Optional[_Iterable[_Union[_catalogue_pb2.Endpoint, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class IndexServiceRequest(_message.Message):
    __slots__ = ("service", "skip_enrichment")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    SKIP_ENRICHMENT_FIELD_NUMBER: _ClassVar[int]
    service: _catalogue_pb2.Service
    skip_enrichment: bool
    def __init__(self, service: _Optional[_Union[_catalogue_pb2.Service, _Mapping]] = ..., skip_enrichment: _Optional[bool] = ...) -> None: ...

class IndexServiceResponse(_message.Message):
    __slots__ = ("service", "replaced", "embed_text")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    REPLACED_FIELD_NUMBER: _ClassVar[int]
    EMBED_TEXT_FIELD_NUMBER: _ClassVar[int]
    service: _catalogue_pb2.Service
    replaced: bool
    embed_text: str
    def __init__(self, service: _Optional[_Union[_catalogue_pb2.Service, _Mapping]] = ..., replaced: _Optional[bool] = ..., embed_text: _Optional[str] = ...) -> None: ...

class DeleteServiceRequest(_message.Message):
    __slots__ = ("service_id",)
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    service_id: str
    def __init__(self, service_id: _Optional[str] = ...) -> None: ...

class DeleteServiceResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...

class GetServiceRequest(_message.Message):
    __slots__ = ("service_id",)
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    service_id: str
    def __init__(self, service_id: _Optional[str] = ...) -> None: ...

class GetServiceResponse(_message.Message):
    __slots__ = ("service",)
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    service: _catalogue_pb2.Service
    def __init__(self, service: _Optional[_Union[_catalogue_pb2.Service, _Mapping]] = ...) -> None: ...

class ListServicesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListServicesResponse(_message.Message):
    __slots__ = ("services", "next_page_token")
    SERVICES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    services: _containers.RepeatedCompositeFieldContainer[_catalogue_pb2.Service]
    next_page_token: str
    def __init__(self, services: _Optional[_Iterable[_Union[_catalogue_pb2.Service, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class IndexKnowledgeDocumentRequest(_message.Message):
    __slots__ = ("document",)
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    document: _catalogue_pb2.KnowledgeDocument
    def __init__(self, document: _Optional[_Union[_catalogue_pb2.KnowledgeDocument, _Mapping]] = ...) -> None: ...

class IndexKnowledgeDocumentResponse(_message.Message):
    __slots__ = ("document", "replaced")
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    REPLACED_FIELD_NUMBER: _ClassVar[int]
    document: _catalogue_pb2.KnowledgeDocument
    replaced: bool
    def __init__(self, document: _Optional[_Union[_catalogue_pb2.KnowledgeDocument, _Mapping]] = ..., replaced: _Optional[bool] = ...) -> None: ...

class DeleteKnowledgeDocumentRequest(_message.Message):
    __slots__ = ("document_id",)
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    def __init__(self, document_id: _Optional[str] = ...) -> None: ...

class DeleteKnowledgeDocumentResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...

class GetKnowledgeDocumentRequest(_message.Message):
    __slots__ = ("document_id",)
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    def __init__(self, document_id: _Optional[str] = ...) -> None: ...

class GetKnowledgeDocumentResponse(_message.Message):
    __slots__ = ("document",)
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    document: _catalogue_pb2.KnowledgeDocument
    def __init__(self, document: _Optional[_Union[_catalogue_pb2.KnowledgeDocument, _Mapping]] = ...) -> None: ...

class ListKnowledgeDocumentsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListKnowledgeDocumentsResponse(_message.Message):
    __slots__ = ("documents", "next_page_token")
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    documents: _containers.RepeatedCompositeFieldContainer[_catalogue_pb2.KnowledgeDocument]
    next_page_token: str
    def __init__(self, documents: _Optional[_Iterable[_Union[_catalogue_pb2.KnowledgeDocument, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("collection", "query", "query_embedding", "limit", "service_id")
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SERVICE_ID_FIELD_NUMBER: _ClassVar[int]
    collection: Collection
    query: str
    query_embedding: _containers.RepeatedScalarFieldContainer[float]
    limit: int
    service_id: str
    def __init__(self, collection: _Optional[_Union[Collection, str]] = ..., query: _Optional[str] = ..., query_embedding: _Optional[_Iterable[float]] = ..., limit: _Optional[int] = ..., service_id: _Optional[str] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("id", "dense_cosine", "hybrid_rank", "hybrid_score", "matched_terms", "prototype_cosine", "description_cosine", "has_prototype", "endpoint", "service", "document")
    ID_FIELD_NUMBER: _ClassVar[int]
    DENSE_COSINE_FIELD_NUMBER: _ClassVar[int]
    HYBRID_RANK_FIELD_NUMBER: _ClassVar[int]
    HYBRID_SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_TERMS_FIELD_NUMBER: _ClassVar[int]
    PROTOTYPE_COSINE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_COSINE_FIELD_NUMBER: _ClassVar[int]
    HAS_PROTOTYPE_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    id: str
    dense_cosine: float
    hybrid_rank: int
    hybrid_score: float
    matched_terms: int
    prototype_cosine: float
    description_cosine: float
    has_prototype: bool
    endpoint: _catalogue_pb2.Endpoint
    service: _catalogue_pb2.Service
    document: _catalogue_pb2.KnowledgeDocument
    def __init__(self, id: _Optional[str] = ..., dense_cosine: _Optional[float] = ..., hybrid_rank: _Optional[int] = ..., hybrid_score: _Optional[float] = ..., matched_terms: _Optional[int] = ..., prototype_cosine: _Optional[float] = ..., description_cosine: _Optional[float] = ..., has_prototype: _Optional[bool] = ..., endpoint: _Optional[_Union[_catalogue_pb2.Endpoint, _Mapping]] = ..., service: _Optional[_Union[_catalogue_pb2.Service, _Mapping]] = ..., document: _Optional[_Union[_catalogue_pb2.KnowledgeDocument, _Mapping]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "query_embedding", "query_terms", "embedding_model")
    HITS_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    QUERY_TERMS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    query_embedding: _containers.RepeatedScalarFieldContainer[float]
    query_terms: int
    embedding_model: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., query_embedding: _Optional[_Iterable[float]] = ..., query_terms: _Optional[int] = ..., embedding_model: _Optional[str] = ...) -> None: ...

class EmbedRequest(_message.Message):
    __slots__ = ("texts", "role")
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    role: EmbeddingRole
    def __init__(self, texts: _Optional[_Iterable[str]] = ..., role: _Optional[_Union[EmbeddingRole, str]] = ...) -> None: ...

class Embedding(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, values: _Optional[_Iterable[float]] = ...) -> None: ...

class EmbedResponse(_message.Message):
    __slots__ = ("embeddings", "model")
    EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    embeddings: _containers.RepeatedCompositeFieldContainer[Embedding]
    model: str
    def __init__(self, embeddings: _Optional[_Iterable[_Union[Embedding, _Mapping]]] = ..., model: _Optional[str] = ...) -> None: ...
