"""Dense + hybrid search over one collection.

The query is embedded as a query (e5's "query: " role) unless the caller passes a
vector it already has (the classifier reuses one vector across collections). Hits come
in hybrid (RRF) order and each carries its real dense cosine, so callers can apply
cosine thresholds while ranking by fusion.

A query longer than `max_query_chars` is searched by its excerpt (services.text.excerpt:
its opening sentence and its last question): the embedding's cost grows faster than the
text, so a 10,000-character message would cost twenty short ones. Both channels, dense
and sparse, read the same excerpt, and so does the lexical evidence on each hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from indexer_svc.embeddings import Embedder
from indexer_svc.sparse import SparseEncoder
from indexer_svc.vector_index import PayloadFilter, ScoredPoint, VectorIndex
from services.errors import InvalidArgument
from services.text import excerpt

MAX_LIMIT = 100
# About 60 tokens: what a question needs, at the cost of a short one.
MAX_QUERY_CHARS = 256


@dataclass(frozen=True)
class RawSearchResult:
    points: list[ScoredPoint]
    query_embedding: list[float]
    # The text searched: the query, or its excerpt when it was long.
    query: str


class HybridSearcher:
    def __init__(
        self,
        index: VectorIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        *,
        default_limit: int = 5,
        min_candidates: int = 10,
        max_query_chars: int = MAX_QUERY_CHARS,
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._sparse = sparse
        self._default_limit = default_limit
        self._min_candidates = min_candidates
        self._max_query_chars = max_query_chars

    async def search(
        self,
        collection: str,
        *,
        query: str,
        query_embedding: Sequence[float] | None = None,
        limit: int = 0,
        where: PayloadFilter | None = None,
    ) -> RawSearchResult:
        if limit < 0:
            raise InvalidArgument("limit must not be negative", field="limit")
        limit = min(limit or self._default_limit, MAX_LIMIT)
        query = excerpt(query.strip(), self._max_query_chars)
        if query_embedding:
            if len(query_embedding) != self._embedder.dimension:
                raise InvalidArgument(
                    f"query_embedding has {len(query_embedding)} values; the index model "
                    f"({self._embedder.model_name}) makes {self._embedder.dimension}",
                    field="query_embedding",
                )
            dense = [float(x) for x in query_embedding]
        elif query:
            dense = (await self._embedder.embed_queries([query]))[0]
        else:
            raise InvalidArgument("query or query_embedding is required", field="query")
        # Each side fetches twice the asked-for hits, so a candidate ranked just below the
        # cut on one side can still be lifted by the other.
        candidates = max(limit * 2, self._min_candidates)
        points = await self._index.search(
            collection,
            dense=dense,
            sparse=self._sparse.encode(query) if query else None,
            limit=limit,
            candidates=candidates,
            where=where,
        )
        return RawSearchResult(points=points, query_embedding=dense, query=query)
