from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.settings import ServiceSettings


class CallerSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_CALLER_", extra="ignore")

    port: int = 50054
    redis_url: str = "redis://127.0.0.1:6379/0"
    # Redis is on the request path: fail fast and fall back rather than stall the answer.
    redis_timeout_seconds: float = Field(default=0.5, gt=0)
    http_timeout_seconds: float = Field(default=10.0, gt=0)
    batch_timeout_seconds: float = Field(default=30.0, gt=0)
    breaker_failure_threshold: int = Field(default=5, ge=1)
    breaker_cooldown_seconds: float = Field(default=30.0, ge=0)
    result_ttl_seconds: int = Field(default=3600, ge=1)
    max_response_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    # Longer lists are cut to this many bullets plus "and N more".
    formatter_max_items: int = Field(default=20, ge=1)
    user_agent: str = "atc-mesh-caller/0.1"
