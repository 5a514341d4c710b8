"""Edge settings (env prefix ATC_EDGE_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from services.settings import ServiceSettings


class EdgeSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_EDGE_", extra="ignore")

    port: int = 8080
    classifier_target: str = "127.0.0.1:50052"
    indexer_target: str = "127.0.0.1:50051"
    # For GET /v1/results/{id} (CallerService/GetResult).
    caller_target: str = "127.0.0.1:50054"
    results_timeout_seconds: float = Field(default=10.0, gt=0)
    # Deadline of one chat turn (the whole stream), passed to the classifier.
    request_timeout_seconds: float = Field(default=120.0, gt=0)
    # Deadline of one admin call to the indexer.
    admin_timeout_seconds: float = Field(default=60.0, gt=0)
    # Deadline of the classifier health check behind /readyz.
    readiness_timeout_seconds: float = Field(default=2.0, gt=0)

    # --- admin listener: a separate port that Envoy never routes, behind a bearer token.
    # Off when the token is empty (the public listener never serves /v1/admin).
    admin_enabled: bool = True
    # Chat turns served at once; past it 429 with Retry-After (below the services' limits).
    # `make bench` on 2 cores: ~20 turns/s, so 32 in flight keeps the first event within ~2 s.
    max_concurrent_rpcs: int = Field(default=32, ge=0)
    admin_host: str = "127.0.0.1"
    admin_port: int = 8081
    admin_token: SecretStr = SecretStr("")

    # --- identity (edge_svc/identity.py)
    # Bearer JWTs of signed-in users: verified against a JWKS file or a PEM public key.
    jwt_jwks_file: Path | None = None
    jwt_public_key_file: Path | None = None
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwt_algorithms: list[str] = Field(default_factory=lambda: ["RS256", "ES256", "EdDSA"])
    # Anonymous citizens get a signed chat token on their first turn.
    anonymous_enabled: bool = True
    # HMAC key of chat tokens; every edge replica needs the same one. Empty: a random
    # key per process (tokens die with it; fine for one `make run` edge).
    chat_token_secret: SecretStr = SecretStr("")
    chat_token_ttl_seconds: int = Field(default=24 * 3600, gt=0)
    # Secure cookies need HTTPS (Envoy/ingress terminates TLS in production).
    cookie_secure: bool = False

    # --- cross-site requests (edge_svc/csrf.py): origins besides the edge's own whose
    # POSTs are accepted, e.g. ["https://www.eesti.ee"]; the chat page is same-origin.
    allowed_origins: list[str] = Field(default_factory=list)

    # --- metrics: GET /metrics on a listener of its own (never the public one); unset: none.
    metrics_host: str = "127.0.0.1"

    # --- chat ownership (edge_svc/chat_owners.py): a chat id belongs to the owner that
    # started it, recorded in Redis for the chat's lifetime. Empty: in process memory
    # (one edge replica only).
    redis_url: str = ""
    chat_owner_ttl_seconds: int = Field(default=24 * 3600, gt=0)

    # --- input limits (edge_svc/limits.py)
    # A chat turn's body must have arrived whole this soon after the request head;
    # only then does the turn take a concurrency slot.
    body_read_timeout_seconds: float = Field(default=10.0, gt=0)
    max_body_bytes: int = Field(default=256 * 1024, gt=0)
    max_admin_body_bytes: int = Field(default=1024 * 1024, gt=0)
    max_json_depth: int = Field(default=16, gt=0)
    max_number_digits: int = Field(default=20, gt=0)
    max_message_chars: int = Field(default=10_000, gt=0)
    max_history_items: int = Field(default=50, ge=0)
    max_history_chars: int = Field(default=40_000, ge=0)
    max_history_item_chars: int = Field(default=10_000, gt=0)
    # gRPC messages the edge sends or accepts (explicit on every hop).
    grpc_max_message_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
