"""Vector index port and its two Qdrant backends."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from indexer_svc.vector_index.models import (
    DENSE_VECTOR,
    SPARSE_VECTOR,
    IndexPoint,
    Page,
    PayloadFilter,
    ScoredPoint,
    SparseVector,
    StoredPoint,
)
from indexer_svc.vector_index.protocol import VectorIndex

Backend = Literal["edge", "qdrant"]


def open_vector_index(
    backend: Backend = "edge",
    *,
    data_dir: str | Path | None = None,
    qdrant_url: str = "",
    qdrant_api_key: str | None = None,
) -> VectorIndex:
    """edge: embedded qdrant-edge under `data_dir` (empty or ":memory:" → a temporary folder).
    qdrant: qdrant-client against `qdrant_url`; without a URL, its local mode (in `data_dir`
    when set, else in memory)."""
    if backend == "edge":
        from indexer_svc.vector_index.edge_index import EdgeVectorIndex

        return EdgeVectorIndex(data_dir)
    if backend == "qdrant":
        from indexer_svc.vector_index.client_index import ClientVectorIndex

        location = qdrant_url or (str(data_dir) if data_dir not in (None, "") else ":memory:")
        return ClientVectorIndex(location, api_key=qdrant_api_key)
    raise ValueError(f"unknown vector index backend {backend!r} (edge or qdrant)")


__all__ = [
    "DENSE_VECTOR",
    "SPARSE_VECTOR",
    "Backend",
    "IndexPoint",
    "Page",
    "PayloadFilter",
    "ScoredPoint",
    "SparseVector",
    "StoredPoint",
    "VectorIndex",
    "open_vector_index",
]
