"""The catalogue use cases: index, delete, get, list and search endpoints, services and
knowledge documents. One collection per kind; the point id is the entity's UUID (ids that
are not UUIDs map to a stable uuid5), so re-indexing an id replaces its point.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, Literal

from indexer_svc.embed_text import document_embed_text, endpoint_embed_text, service_embed_text
from indexer_svc.embeddings import Embedder
from indexer_svc.enrichment import EndpointEnricher, name_words
from indexer_svc.example_phrasings import ExamplePhrasingWriter
from indexer_svc.prototypes import cosine, prototype, usable_examples
from indexer_svc.search import HybridSearcher
from indexer_svc.sparse import SparseEncoder
from indexer_svc.validation import (
    Endpoint,
    EntityT,
    KnowledgeDocument,
    Service,
    parse_endpoint,
    parse_knowledge_document,
    parse_service,
)
from indexer_svc.vector_index import IndexPoint, PayloadFilter, VectorIndex
from services.errors import AlreadyExists, InvalidArgument, NotFound
from services.runtime.telemetry import DomainTelemetry, NoTelemetry
from services.text import intent_words

log = logging.getLogger(__name__)

Kind = Literal["endpoint", "service", "knowledge"]
Role = Literal["query", "passage"]

DEFAULT_PAGE_SIZE = 50
# Bumped when what is stored per point changes, so unchanged entities are re-embedded.
REPRESENTATION = "prototype+description+topic/1"
# Weight of the name's topic words in the description vector (see Catalogue._with_topic).
TOPIC_WEIGHT = 0.3
MAX_PAGE_SIZE = 500
_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://atc-mesh/catalogue")


@dataclass(frozen=True)
class CollectionNames:
    endpoints: str = "endpoints"
    services: str = "services"
    knowledge: str = "knowledge"

    def of(self, kind: Kind) -> str:
        return {"endpoint": self.endpoints, "service": self.services, "knowledge": self.knowledge}[kind]


@dataclass(frozen=True)
class Indexed(Generic[EntityT]):
    entity: EntityT
    replaced: bool
    embed_text: str


@dataclass(frozen=True)
class Listing(Generic[EntityT]):
    items: list[EntityT]
    next_page_token: str


Entity = Endpoint | Service | KnowledgeDocument


@dataclass(frozen=True)
class SearchHit:
    id: str
    dense_cosine: float
    hybrid_rank: int
    hybrid_score: float
    # Distinct query words found (by stem) in the item's indexed text.
    matched_terms: int
    entity: Entity
    # Cosine to the example prototype (0 without one) and to the description passage.
    prototype_cosine: float = 0.0
    description_cosine: float = 0.0
    has_prototype: bool = False


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    query_embedding: list[float]
    # Distinct content words of the query that are not names (services.text.intent_words).
    query_terms: int
    embedding_model: str = ""


def point_id(entity_id: str) -> str:
    """The entity's UUID, or a stable uuid5 of a non-UUID id (knowledge documents often have slugs)."""
    try:
        return str(uuid.UUID(entity_id))
    except ValueError:
        return str(uuid.uuid5(_ID_NAMESPACE, entity_id))


_MODELS: dict[Kind, type[Entity]] = {"endpoint": Endpoint, "service": Service, "knowledge": KnowledgeDocument}


class Catalogue:
    def __init__(
        self,
        index: VectorIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        enricher: EndpointEnricher,
        *,
        collections: CollectionNames | None = None,
        default_search_limit: int = 5,
        phrasings: ExamplePhrasingWriter | None = None,
        indexing_embedder: Embedder | None = None,
        indexing_slots: int = 0,
        telemetry: DomainTelemetry | None = None,
    ) -> None:
        self._telemetry = telemetry or NoTelemetry()
        self._phrasings = phrasings or ExamplePhrasingWriter(None)
        self._index = index
        self._embedder = embedder
        # Indexing embeds through its own (lower-priority) port and at most
        # `indexing_slots` entities at once (0: unbounded), so searches keep their share.
        self._indexing_embedder = indexing_embedder or embedder
        self._indexing_slots = asyncio.Semaphore(indexing_slots) if indexing_slots > 0 else None
        self._sparse = sparse
        # Stemming a whole endpoint text takes milliseconds of CPU; at indexing time that
        # runs on one thread of its own (with its own stemmers: they keep state) so the
        # event loop keeps serving searches.
        self._indexing_sparse = sparse.twin()
        self._stemming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexing-stems")
        self._enricher = enricher
        self._collections = collections or CollectionNames()
        self._searcher = HybridSearcher(index, embedder, sparse, default_limit=default_search_limit)

    @property
    def embedding_model(self) -> str:
        return self._embedder.model_name

    async def open(self) -> None:
        for kind in ("endpoint", "service", "knowledge"):
            await self._index.ensure_collection(self._collections.of(kind), self._embedder.dimension)

    # --- indexing -------------------------------------------------------------------

    async def index_endpoint(
        self, body: Mapping[str, Any], *, skip_enrichment: bool = False
    ) -> Indexed[Endpoint]:
        endpoint = parse_endpoint(body)
        await self._check_name_free(endpoint)
        source_hash = self._source_hash(endpoint)
        if not endpoint.enriched_context:
            context = await self._enricher.enrich_endpoint(endpoint, use_llm=not skip_enrichment)
            endpoint = endpoint.model_copy(update={"enriched_context": context})
        generated = [] if skip_enrichment else await self._generated_examples(endpoint, source_hash)
        return await self._store(
            "endpoint",
            endpoint,
            endpoint_embed_text(endpoint),
            source_hash,
            [*endpoint.examples, *generated],
            extra_payload={"generated_examples": generated} if generated else None,
        )

    async def _check_name_free(self, endpoint: Endpoint) -> None:
        """Endpoint names are unique per catalogue (the loop and its cache know an endpoint
        by name): another endpoint under this name is refused with ALREADY_EXISTS (409)."""
        taken = await self._index.scroll(
            self._collections.endpoints, limit=2, where=PayloadFilter({"name": endpoint.name})
        )
        others = [p for p in taken.points if p.payload.get("endpoint_id") != endpoint.endpoint_id]
        if others:
            raise AlreadyExists(
                f"an endpoint named {endpoint.name!r} is already registered under another id",
                reason="ENDPOINT_NAME_TAKEN",
                field="endpoint.name",
                endpoint_id=str(others[0].payload.get("endpoint_id", "")),
            )

    async def _generated_examples(self, endpoint: Endpoint, source_hash: str) -> list[str]:
        """LLM-written phrasings for the prototype; the stored ones when the endpoint is
        unchanged since they were written (re-indexing costs no LLM call)."""
        if not self._phrasings.uses_llm:
            return []
        stored = await self._index.get(self._collections.endpoints, [point_id(endpoint.endpoint_id)])
        if stored and stored[0].payload.get("source_hash") == source_hash:
            kept = stored[0].payload.get("generated_examples")
            if isinstance(kept, list):
                return [str(x) for x in kept]
        return await self._phrasings.phrasings(endpoint, source_hash)

    async def index_service(
        self, body: Mapping[str, Any], *, skip_enrichment: bool = False
    ) -> Indexed[Service]:
        service = parse_service(body)
        source_hash = self._source_hash(service)
        if not service.enriched_context:
            context = await self._enricher.enrich_service(service, use_llm=not skip_enrichment)
            service = service.model_copy(update={"enriched_context": context})
        return await self._store(
            "service", service, service_embed_text(service), source_hash, service.examples
        )

    async def index_knowledge_document(self, body: Mapping[str, Any]) -> Indexed[KnowledgeDocument]:
        document = parse_knowledge_document(body)
        return await self._store(
            "knowledge", document, document_embed_text(document), self._source_hash(document)
        )

    async def load_endpoints(self, bodies: Iterable[Mapping[str, Any]]) -> int:
        """Index a whole catalogue (e.g. at start). All bodies are validated first, so a bad
        one stores nothing; endpoints whose source is unchanged since they were stored are
        not enriched or embedded again. Returns how many were (re)indexed."""
        endpoints = [_parse_catalogue_entry(body, position) for position, body in enumerate(bodies)]
        ids = [e.endpoint_id for e in endpoints]
        duplicates = {i for i in ids if ids.count(i) > 1}
        if duplicates:
            raise InvalidArgument(f"duplicate endpoint ids: {sorted(duplicates)}", field="catalogue")
        names = [e.name for e in endpoints]
        taken = {n for n in names if names.count(n) > 1}
        if taken:
            raise AlreadyExists(
                f"endpoint names must be unique: {sorted(taken)}",
                reason="ENDPOINT_NAME_TAKEN",
                field="catalogue",
            )
        stored = await self._index.get(self._collections.endpoints, ids)
        stored_hashes = {p.id: p.payload.get("source_hash") for p in stored}
        changed = [e for e in endpoints if stored_hashes.get(e.endpoint_id) != self._source_hash(e)]
        for endpoint in changed:
            await self.index_endpoint(endpoint.model_dump(exclude_none=True))
        return len(changed)

    async def _store(
        self,
        kind: Kind,
        entity: Entity,
        embed_text: str,
        source_hash: str,
        examples: Sequence[str] = (),
        *,
        extra_payload: Mapping[str, Any] | None = None,
    ) -> Indexed[Any]:
        async with self._indexing_slots or contextlib.nullcontext():
            return await self._embed_and_store(
                kind, entity, embed_text, source_hash, examples, extra_payload=extra_payload
            )

    async def _embed_and_store(
        self,
        kind: Kind,
        entity: Entity,
        embed_text: str,
        source_hash: str,
        examples: Sequence[str],
        *,
        extra_payload: Mapping[str, Any] | None,
    ) -> Indexed[Any]:
        collection = self._collections.of(kind)
        pid = point_id(entity.id)
        description = (await self._indexing_embedder.embed_passages([embed_text]))[0]
        if kind != "knowledge":
            description = await self._with_topic(description, getattr(entity, "name", ""))
        phrasings = usable_examples(examples)
        proto = prototype(await self._indexing_embedder.embed_queries(phrasings)) if phrasings else None
        # The index ranks by the prototype when there is one (how users ask), else by the
        # description; the other vector rides in the payload so every hit gets both cosines.
        dense = proto or description
        terms = await asyncio.get_running_loop().run_in_executor(
            self._stemming, self._indexing_sparse.terms, embed_text
        )
        payload = {
            **entity.model_dump(mode="json", exclude_none=True),
            "kind": kind,
            "embed_text": embed_text,
            # Kept so a search counts matched words without stemming each hit's text again.
            "terms": sorted(set(terms)),
            "source_hash": source_hash,
            "description_vector": description,
            "prototype_vector": proto,
            **(extra_payload or {}),
        }
        # Not atomic with the upsert: two concurrent re-indexes of one id may both say
        # replaced=False; the stored point is still exactly one.
        replaced = bool(await self._index.get(collection, [pid]))
        await self._index.upsert(
            collection,
            [IndexPoint(id=pid, dense=dense, sparse=self._sparse.encode_terms(terms), payload=payload)],
        )
        log.info("indexed %s %s (%s)", kind, entity.id, "replaced" if replaced else "new")
        return Indexed(entity=entity, replaced=replaced, embed_text=embed_text)

    async def _with_topic(self, description: list[float], name: str) -> list[float]:
        """The description vector nudged towards the endpoint's topic as a user would say it:
        the words of its name ("hotels_3_reserve_hotel" → "hotels reserve hotel") embedded
        on the query side. On SGD (descriptions only) this lifted top-1 by ≈ 2 points."""
        topic = " ".join(name_words(name))
        if not topic:
            return description
        topic_vector = (await self._indexing_embedder.embed_queries([topic]))[0]
        blended = prototype([description, topic_vector], [1.0, TOPIC_WEIGHT])
        return blended or description

    def _source_hash(self, entity: Entity) -> str:
        """What the stored vectors were computed from — the entity as received, so a
        supplied enriched_context counts but a generated one does not (an LLM phrases it
        differently each time) — plus the models that computed them."""
        source = entity.model_dump(mode="json", exclude_none=True)
        source["_models"] = [self._embedder.model_name, self._sparse.vocab_size, REPRESENTATION]
        canonical = json.dumps(source, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    # --- reading and deleting -------------------------------------------------------

    async def delete(self, kind: Kind, entity_id: str) -> bool:
        if not entity_id:
            raise InvalidArgument("an id is required", field=_ID_FIELDS[kind])
        collection = self._collections.of(kind)
        pid = point_id(entity_id)
        existed = bool(await self._index.get(collection, [pid]))
        if existed:
            await self._index.delete(collection, [pid])
        return existed

    async def get(self, kind: Kind, entity_id: str) -> Any:
        if not entity_id:
            raise InvalidArgument("an id is required", field=_ID_FIELDS[kind])
        points = await self._index.get(self._collections.of(kind), [point_id(entity_id)])
        if not points:
            raise NotFound(f"no {kind} with id {entity_id}", id=entity_id)
        return _MODELS[kind].model_validate(points[0].payload)

    async def list_page(
        self, kind: Kind, *, page_size: int = 0, page_token: str = "", service_id: str = ""
    ) -> Listing[Any]:
        if page_size < 0:
            raise InvalidArgument("page_size must not be negative", field="page_size")
        if page_token:
            try:
                offset: str | None = str(uuid.UUID(page_token))
            except ValueError:
                raise InvalidArgument(
                    "page_token is not one this service issued", field="page_token"
                ) from None
        else:
            offset = None
        page = await self._index.scroll(
            self._collections.of(kind),
            limit=min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
            offset=offset,
            where=PayloadFilter({"service_id": service_id}) if service_id else None,
        )
        items = [_MODELS[kind].model_validate(p.payload) for p in page.points]
        return Listing(items=items, next_page_token=page.next_offset or "")

    async def count(self, kind: Kind) -> int:
        return await self._index.count(self._collections.of(kind))

    # --- search and embeddings ------------------------------------------------------

    async def search(
        self,
        kind: Kind,
        *,
        query: str,
        query_embedding: Sequence[float] | None = None,
        limit: int = 0,
        service_id: str = "",
        include_private: bool = True,
    ) -> SearchResult:
        """The best matches; `include_private` False leaves out `visibility: private`
        endpoints (the seed's rule: those are for signed-in users only)."""
        with self._telemetry.span(
            "indexer.search", collection=kind, embedded_by_caller=query_embedding is not None
        ) as span:
            raw = await self._searcher.search(
                self._collections.of(kind),
                query=query,
                query_embedding=query_embedding,
                limit=limit,
                where=PayloadFilter({"service_id": service_id}) if service_id else None,
            )
            span.set_attribute("hits", len(raw.points))
        self._telemetry.increment("searches", collection=kind)
        model = _MODELS[kind]
        hits = [
            SearchHit(
                id=p.id,
                dense_cosine=p.dense_cosine,
                hybrid_rank=p.hybrid_rank,
                hybrid_score=p.hybrid_score,
                matched_terms=self._sparse.matched_terms(query, self._terms_of(p.payload)),
                entity=model.model_validate(p.payload),
                **_vector_cosines(p.payload, p.dense_cosine, raw.query_embedding),
            )
            for p in raw.points
            if include_private or p.payload.get("visibility", "public") != "private"
        ]
        return SearchResult(
            hits=hits,
            query_embedding=raw.query_embedding,
            query_terms=len(intent_words(query)),
            embedding_model=self._embedder.model_name,
        )

    def _terms_of(self, payload: Mapping[str, Any]) -> set[str]:
        terms = payload.get("terms")
        if terms is None:  # a point stored before its terms were kept
            return set(self._sparse.terms(str(payload.get("embed_text", ""))))
        return set(terms)

    async def embed(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        if role == "query":
            return await self._embedder.embed_queries(texts)
        return await self._embedder.embed_passages(texts)


def _vector_cosines(
    payload: Mapping[str, Any], dense_cosine: float, query: Sequence[float]
) -> dict[str, Any]:
    """Prototype and description cosines of one hit. The index scored the dense vector it
    holds (the prototype when there is one); the other comes from the payload. A point
    stored before prototypes existed holds only its description."""
    has_prototype = bool(payload.get("prototype_vector"))
    description = payload.get("description_vector")
    if not has_prototype:
        return {"prototype_cosine": 0.0, "description_cosine": dense_cosine, "has_prototype": False}
    return {
        "prototype_cosine": dense_cosine,
        "description_cosine": cosine(query, description) if description else 0.0,
        "has_prototype": True,
    }


_ID_FIELDS: dict[Kind, str] = {"endpoint": "endpoint_id", "service": "service_id", "knowledge": "document_id"}


def _parse_catalogue_entry(body: Mapping[str, Any], position: int) -> Endpoint:
    """Name a catalogue-file entry's bad field by its position ("catalogue[3].url")."""
    try:
        return parse_endpoint(body)
    except InvalidArgument as exc:
        field = f"catalogue[{position}]" + exc.field.removeprefix("endpoint")
        raise InvalidArgument(f"{field}: {exc.message.split(': ', 1)[-1]}", field=field) from None
