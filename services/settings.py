"""Settings shared by every service. Each service subclasses `ServiceSettings`
with its own env prefix (ATC_INDEXER_, ATC_CLASSIFIER_, ...)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_", extra="ignore")

    host: str = "127.0.0.1"
    # 0 lets the OS choose; the bound port is logged and returned by serve().
    port: int = 0
    # Seconds in-flight RPCs get to finish after SIGTERM.
    grace_seconds: float = 5.0
    log_level: str = "INFO"
    # Deadline for calls to other services when the incoming call carries none.
    downstream_timeout_seconds: float = Field(default=60.0, gt=0)
