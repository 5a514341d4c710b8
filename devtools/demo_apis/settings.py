from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class DemoApiSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_DEMO_", extra="ignore")

    # Where the demo APIs listen (`atc up` picks a free port unless --fixed-ports).
    host: str = "127.0.0.1"
    port: int = 8090
    # Python logging level.
    log_level: str = "INFO"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"
