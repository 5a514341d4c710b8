"""Edge settings (env prefix ATC_EDGE_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from services.message_bounds import MessageBounds
from services.settings import ServiceSettings

# The mesh's bounds on a turn's text: the edge's defaults and ceilings.
_BOUNDS = MessageBounds()


class EdgeSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="ATC_EDGE_", extra="ignore")

    port: int = 8080
    # classifier_svc (chat turns, readiness).
    classifier_target: str = "127.0.0.1:50052"
    # indexer_svc, for the admin routes (the endpoint catalogue).
    indexer_target: str = "127.0.0.1:50051"
    # For GET /v1/results/{id} (CallerService/GetResult).
    caller_target: str = "127.0.0.1:50054"
    # Deadline of one GetResult call behind GET /v1/results/{id}.
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
    # Chat turns: admitted while the turns still waiting for their first event can get it
    # within `overload_target_seconds` at the turn rate the edge measured, and while fewer
    # than `max_concurrent_rpcs` are under way; past it 429 with Retry-After at once.
    max_concurrent_rpcs: int = Field(default=256, ge=0)
    overload_target_seconds: float = Field(default=0.5, ge=0)
    overload_min_waiting: int = Field(default=4, ge=1)
    # The admin listener's `admin_host` and `admin_port` (`atc up` picks a free port and prints it).
    admin_host: str = "127.0.0.1"
    admin_port: int = 8081
    # The admin routes' bearer token (`atc up` makes a fresh one and prints it); empty: no admin listener.
    admin_token: SecretStr = SecretStr("")

    # --- identity (edge_svc/identity.py)
    # Bearer JWTs of signed-in users: verified against a JWKS file or a PEM public key.
    jwt_jwks_file: Path | None = None
    # ...or one PEM public key.
    jwt_public_key_file: Path | None = None
    # The `iss` and `aud` a signed-in user's JWT must carry: `jwt_issuer`, `jwt_audience`
    # (empty: not checked).
    jwt_issuer: str = ""
    jwt_audience: str = ""
    # Accepted JWT algorithms (asymmetric only).
    jwt_algorithms: list[str] = Field(default_factory=lambda: ["RS256", "ES256", "EdDSA"])
    # Anonymous citizens get a signed chat token on their first turn.
    anonymous_enabled: bool = True
    # HMAC key of chat tokens; every edge replica needs the same one. Empty: a random
    # key per process (tokens die with it; fine for one `make run` edge).
    chat_token_secret: SecretStr = SecretStr("")
    # How long a chat token stays valid.
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
    # How long a chat id's owner is kept on record.
    chat_owner_ttl_seconds: int = Field(default=24 * 3600, gt=0)

    # --- input limits (edge_svc/limits.py)
    # A chat turn's body must have arrived whole this soon after the request head;
    # only then does the turn take a concurrency slot.
    body_read_timeout_seconds: float = Field(default=10.0, gt=0)
    # Body size of a chat turn and (`max_admin_body_bytes`) of an admin call (413 past it).
    max_body_bytes: int = Field(default=256 * 1024, gt=0)
    max_admin_body_bytes: int = Field(default=1024 * 1024, gt=0)
    # JSON nesting depth, counted without parsing (400 past it).
    max_json_depth: int = Field(default=16, gt=0)
    # Digits in one JSON number (400 past it).
    max_number_digits: int = Field(default=20, gt=0)
    # Characters of `message` (400, field `message`). This and the history bounds are at
    # most the mesh's (services.message_bounds), which the classifier and the loop enforce
    # as well: a looser edge would forward turns they refuse.
    max_message_chars: int = Field(default=_BOUNDS.max_message_chars, gt=0, le=_BOUNDS.max_message_chars)
    # `conversationHistory`: items, characters in total (`max_history_chars`), characters per
    # item (`max_history_item_chars`); 400 naming the field past any.
    max_history_items: int = Field(default=_BOUNDS.max_history_items, ge=0, le=_BOUNDS.max_history_items)
    max_history_chars: int = Field(default=_BOUNDS.max_history_chars, ge=0, le=_BOUNDS.max_history_chars)
    max_history_item_chars: int = Field(
        default=_BOUNDS.max_history_item_chars, gt=0, le=_BOUNDS.max_history_item_chars
    )
    # gRPC messages the edge sends or accepts (explicit on every hop).
    grpc_max_message_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
