"""Edge settings (env prefix ATC_EDGE_)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.settings import ServiceSettings


class EdgeSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_EDGE_", extra="ignore")

    port: int = 8080
    classifier_target: str = "127.0.0.1:50052"
    indexer_target: str = "127.0.0.1:50051"
    # Deadline of one chat turn (the whole stream), passed to the classifier.
    request_timeout_seconds: float = Field(default=120.0, gt=0)
    # Deadline of one admin call to the indexer.
    admin_timeout_seconds: float = Field(default=60.0, gt=0)
    # Deadline of the classifier health check behind /readyz.
    readiness_timeout_seconds: float = Field(default=2.0, gt=0)
    # The /v1/admin routes; in production Envoy guards them, here they can be switched off.
    admin_enabled: bool = True
    # Chat turns served at once; past it 429 with Retry-After (below the services' limits).
    # `make bench` on 2 cores: ~20 turns/s, so 32 in flight keeps the first event within ~2 s.
    max_concurrent_rpcs: int = Field(default=32, ge=0)
