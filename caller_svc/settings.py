from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.settings import LLMServiceSettings


class CallerSettings(LLMServiceSettings):
    # LLM_* (LLMServiceSettings): the DSPy formatter; no model = deterministic formatter.
    model_config = SettingsConfigDict(env_prefix="ATC_CALLER_", extra="ignore")

    port: int = 50054
    # The result store (`agent_result:{uuid}`) and the circuit breakers' state.
    redis_url: str = "redis://127.0.0.1:6379/0"
    # Redis is on the request path: fail fast and fall back rather than stall the answer.
    redis_timeout_seconds: float = Field(default=0.5, gt=0)
    # Timeout of one outbound HTTP call.
    http_timeout_seconds: float = Field(default=10.0, gt=0)
    # All calls of one turn together.
    batch_timeout_seconds: float = Field(default=30.0, gt=0)
    # A call that finds nothing is tried with the broader values the loop sends (an
    # address's street alone, its town); a row found so is answered as a near match when
    # its words are at least this near to those asked (caller_svc/near_match.py).
    near_match_min_similarity: float = Field(default=0.8, gt=0, le=1)
    # ...and when each of the asked name words is at least this near to one of its words.
    near_match_min_word_similarity: float = Field(default=0.6, ge=0, le=1)
    # A yes/no question about a period is asked of at least this many days from its start,
    # so a "no" can name the first row after the period ("next week? no; the next is …").
    yes_no_lookahead_days: int = Field(default=366, ge=0)
    # Failures in a row that open an endpoint's circuit breaker, and how long it stays open
    # before one half-open probe (`breaker_cooldown_seconds`).
    breaker_failure_threshold: int = Field(default=5, ge=1)
    breaker_cooldown_seconds: float = Field(default=30.0, ge=0)
    # Lifetime of a stored result (`agent_result:{uuid}`).
    result_ttl_seconds: int = Field(default=3600, ge=1)
    # The largest API response body accepted; a larger one fails the call, unread.
    max_response_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    # Longer lists are cut to this many bullets plus "and N more".
    formatter_max_items: int = Field(default=10, ge=1)
    # User-Agent of outbound calls.
    user_agent: str = "atc-mesh-caller/0.1"
    # host:port pairs (comma-separated) the caller may reach although they are
    # loopback/private: only the demo's own APIs. Everything else must be public.
    egress_allow: str = ""
    # Time kept back from the incoming deadline for storing, formatting and streaming after
    # the calls: this share of what is left, within [`reply_margin_min_seconds`,
    # `reply_margin_max_seconds`].
    reply_margin_fraction: float = Field(default=0.2, ge=0, lt=1)
    reply_margin_min_seconds: float = Field(default=0.25, ge=0)
    reply_margin_max_seconds: float = Field(default=3.0, ge=0)
    # Where CallEndpoint looks endpoints up (only registered endpoints may be called);
    # empty refuses CallEndpoint.
    indexer_target: str = ""
    # Operator instructions for the LLM formatter: for every answer, and per endpoint name.
    formatter_instructions: str = ""
    # ...and per endpoint name: JSON {"endpoint_name": "..."}.
    formatter_endpoint_instructions: dict[str, str] = Field(default_factory=dict)
    # Time zone for dates and times in answers.
    time_zone: str = "Europe/Tallinn"
    # The LLM formatter's whole answer (its tool calls included) within this; past it the
    # deterministic answer is sent.
    formatter_timeout_seconds: float = Field(default=30.0, gt=0)
    # Operator instructions for the LLM formatter per answer language ({"et": "..."}).
    formatter_language_instructions: dict[str, str] = Field(default_factory=dict)
    # Pause between the word chunks of an answer that is complete before it is sent (the
    # deterministic one, a buffered multi-result one): 0 sends it at once. Pacing is only
    # for demos; a model's answer streams as the model writes it either way.
    stream_chunk_delay_seconds: float = Field(default=0.0, ge=0)
