"""loop_svc settings, from ATC_LOOP_* environment variables."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import SettingsConfigDict

from services.settings import LLMServiceSettings


class LoopSettings(LLMServiceSettings):
    # LLM_* (LLMServiceSettings): ParamExtractionModule and follow-up detection; no model =
    # rules only.
    model_config = SettingsConfigDict(env_prefix="ATC_LOOP_", extra="ignore", populate_by_name=True)

    port: int = 50053
    # Sessions and the response cache.
    redis_url: str = "redis://127.0.0.1:6379/0"
    # caller_svc (ExecuteCalls, GetResult).
    caller_target: str = "127.0.0.1:50054"
    # Sliding: every save of a session starts the period again.
    session_ttl_seconds: int = Field(default=1800, gt=0)
    # A turn holds the chat's lock while it reads, decides and writes the session, and waits
    # at most `session_lock_wait_seconds` for it.
    session_lock_seconds: float = Field(default=30.0, gt=0)
    session_lock_wait_seconds: float = Field(default=5.0, ge=0)
    # Turns one endpoint's parameters may take; at `continuation_turn` an unfinished one asks
    # "Shall we continue? (yes/no)".
    max_turns: int = Field(default=5, ge=1)
    continuation_turn: int = Field(default=3, ge=1)
    # Several endpoints get min(3 × N, this) turns.
    multi_max_turns_cap: int = Field(default=9, ge=1)
    # The ATC response cache (seed Part 8): ATC_RESPONSE_CACHE_ENABLED is the seed's master switch.
    response_cache_enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices("ATC_RESPONSE_CACHE_ENABLED", "ATC_LOOP_RESPONSE_CACHE_ENABLED"),
    )
    # Relative dates ("today", "next month") are read in this zone.
    time_zone: str = "Europe/Tallinn"
    # The citizens' own country (ISO alpha-2): a required country parameter whose
    # description names it as its example defaults to it when the message names none.
    home_country: str = Field(default="EE", pattern=r"^[A-Za-z]{2}$")
    # L1 lifetime unless the endpoint sets `cache_ttl_seconds`; `last_call_ttl_seconds`: L2's,
    # sliding.
    cache_default_ttl_seconds: int = Field(default=1800, gt=0)
    last_call_ttl_seconds: int = Field(default=1800, gt=0)

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"unknown time zone {value!r}: use an IANA name (Europe/Tallinn)") from error
        return value
