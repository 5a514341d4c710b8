"""Settings shared by every service. Each service subclasses `ServiceSettings`
with its own env prefix (ATC_INDEXER_, ATC_CLASSIFIER_, ...)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.llm import LLMConfig


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_", extra="ignore")

    # Listen address; 0.0.0.0 in a container.
    host: str = "127.0.0.1"
    # 0 lets the OS choose; the bound port is logged and returned by serve().
    port: int = 0
    # Seconds in-flight RPCs get to finish after SIGTERM.
    grace_seconds: float = 5.0
    # Clients resolve a service's name again when a connection ends: the server ends each
    # connection after this age (GOAWAY; streams in flight get the grace below), so pods added
    # later join every client's round robin. 0: connections live forever.
    max_connection_age_seconds: float = Field(default=300.0, ge=0)
    # Longer than a chat turn (the edge's 120 s), so an ageing connection never cuts one.
    max_connection_age_grace_seconds: float = Field(default=150.0, ge=0)
    # Python logging level of the service's JSON log lines (DEBUG, INFO, WARNING, ...).
    log_level: str = "INFO"
    # Deadline for calls to other services when the incoming call carries none.
    downstream_timeout_seconds: float = Field(default=60.0, gt=0)
    # Prometheus scrapes `GET /metrics` on this port (0: any free port, logged); unset: no port.
    metrics_port: int | None = None
    # OTLP/gRPC collector for traces, e.g. http://otel-collector:4317; empty: no export.
    otlp_endpoint: str = ""
    # Admission (services/runtime/backpressure.py): an RPC is admitted while the work waiting
    # for its first response can be answered within `overload_target_seconds` at the capacity
    # this process measured (at least `overload_min_waiting` at once; target 0: slots only),
    # and while fewer than `max_concurrent_rpcs` are served at once (health and reflection
    # aside; 0: unbounded). Past either, RESOURCE_EXHAUSTED with a RetryInfo comes back at
    # once (the time the excess needs, at least `overload_retry_after_seconds`) instead of a
    # queue that outlives every deadline.
    max_concurrent_rpcs: int = Field(default=128, ge=0)
    overload_retry_after_seconds: float = Field(default=1.0, ge=0)
    overload_target_seconds: float = Field(default=2.0, ge=0)
    overload_min_waiting: int = Field(default=8, ge=1)


class LLMServiceSettings(ServiceSettings):
    """A service with DSPy steps: `<PREFIX>LLM_MODEL` (any litellm model) and its access;
    no model → every step takes its deterministic path."""

    # A litellm model name, e.g. azure/gpt-4o-mini; empty: no model, deterministic paths.
    llm_model: str = ""
    # The model's API base URL and key (empty: litellm's default for the provider).
    llm_api_base: str = ""
    # The model's API key (a Secret in a cluster).
    llm_api_key: str = ""
    # Sampling temperature and answer length limit; unset: the model's defaults.
    llm_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    # The longest answer the model may write; unset: the model's default.
    llm_max_tokens: int | None = Field(default=None, gt=0)
    # One model request's limit; past it the step takes its deterministic path.
    llm_timeout_seconds: float = Field(default=20.0, gt=0)
    # Retries of a failed model request (each one a request the model receives, counted).
    llm_num_retries: int = Field(default=0, ge=0)
    # DSPy's response cache (off: prompts carry one citizen's data and "today").
    llm_cache: bool = False
    # DSPy's disk cache of model answers.
    dspy_cache_dir: str = ".atc/dspy-cache"

    def llm_config(self) -> LLMConfig:
        return LLMConfig(
            model=self.llm_model or None,
            api_base=self.llm_api_base or None,
            api_key=self.llm_api_key or None,
            temperature=self.llm_temperature,
            max_tokens=self.llm_max_tokens,
            timeout_seconds=self.llm_timeout_seconds,
            num_retries=self.llm_num_retries,
            cache=self.llm_cache,
        )
