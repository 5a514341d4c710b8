"""Service-to-service trust: who may say which owner a call acts for, and optional mTLS.

The edge verifies a citizen's credential and then signs the owner into a short-lived
token (`x-atc-owner-token`: the owner and an expiry under an HMAC-SHA256 of the mesh
secret). Every service's server interceptor verifies it before a handler runs: a call
that names an owner (`x-atc-owner`) without a valid token, or with a token for another
owner, is refused (UNAUTHENTICATED / PERMISSION_DENIED), and with trust on a body's
`owner_id` counts only when a verified token vouches for it. The token is forwarded
unchanged to the next hop, so a turn carries one assertion end to end; it expires after
`ttl` (5 minutes: longer than a turn's deadline), so a captured one is not good for long.

Where the secret comes from: `ATC_MESH_SECRET`, or the file `ATC_MESH_SECRET_FILE`
names (a mounted Kubernetes Secret). `make run` creates one in `.atc/secrets/` once.
Unset, trust is off (a bare test server) and the owner header is taken as it is.

mTLS between services, optional: `ATC_MESH_TLS_CERT_FILE`, `ATC_MESH_TLS_KEY_FILE` and
`ATC_MESH_TLS_CA_FILE` (the files cert-manager mounts: tls.crt, tls.key, ca.crt). With
all three set, servers listen with TLS and require a client certificate from that CA,
and channels present theirs; files are read when a server starts or a channel opens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from services.errors import PermissionDenied, Unauthenticated

OWNER_TOKEN_HEADER = "x-atc-owner-token"
MESH_SECRET_ENV = "ATC_MESH_SECRET"
MESH_SECRET_FILE_ENV = "ATC_MESH_SECRET_FILE"
TLS_CERT_ENV = "ATC_MESH_TLS_CERT_FILE"
TLS_KEY_ENV = "ATC_MESH_TLS_KEY_FILE"
TLS_CA_ENV = "ATC_MESH_TLS_CA_FILE"
DEFAULT_TTL_SECONDS = 300
_VERSION = "v1"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class OwnerTokens:
    """Signs and verifies owner assertions under one mesh secret (injected clock)."""

    def __init__(
        self, secret: bytes, *, ttl_seconds: int = DEFAULT_TTL_SECONDS, clock: Callable[[], float] = time.time
    ) -> None:
        if len(secret) < 16:
            raise ValueError("the mesh secret must be at least 16 bytes")
        self._secret = secret
        self._ttl = ttl_seconds
        self._clock = clock

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()

    def sign(self, owner: str) -> str:
        payload = f"{owner}\n{int(self._clock()) + self._ttl}".encode()
        return f"{_VERSION}.{_b64(payload)}.{_b64(self._mac(payload))}"

    def verify(self, token: str) -> str:
        """The owner `token` vouches for; Unauthenticated when it is forged, malformed or expired."""
        try:
            version, payload_text, mac_text = token.split(".")
            payload, mac = _unb64(payload_text), _unb64(mac_text)
        except ValueError:
            raise Unauthenticated("the owner assertion is malformed", reason="OWNER_NOT_SIGNED") from None
        if version != _VERSION or not hmac.compare_digest(mac, self._mac(payload)):
            raise Unauthenticated("the owner assertion is not signed by the mesh", reason="OWNER_NOT_SIGNED")
        owner, _, expiry = payload.decode("utf-8", "replace").rpartition("\n")
        if not expiry.isdigit() or int(expiry) < self._clock():
            raise Unauthenticated("the owner assertion has expired", reason="OWNER_TOKEN_EXPIRED")
        return owner

    def vouched_owner(self, owner: str | None, token: str | None) -> str | None:
        """The owner a call acts for, from its metadata: None when it names none;
        raises when it names one the token does not vouch for."""
        if owner is None and token is None:
            return None
        verified = self.verify(token or "")
        if owner is not None and owner != verified:
            raise PermissionDenied(
                "x-atc-owner is not the owner the assertion vouches for", reason="OWNER_MISMATCH"
            )
        return verified


_UNSET = object()
_override: object = _UNSET


def _secret_from_env() -> bytes | None:
    value = os.environ.get(MESH_SECRET_ENV, "")
    if value:
        return value.encode()
    path = os.environ.get(MESH_SECRET_FILE_ENV, "")
    if path:
        text = Path(path).read_text(encoding="utf-8").strip()
        return text.encode() if text else None
    return None


def mesh_tokens() -> OwnerTokens | None:
    """The mesh's owner tokens (None: trust off), from the environment unless a test set them."""
    if _override is not _UNSET:
        return _override  # type: ignore[return-value]
    secret = _secret_from_env()
    return OwnerTokens(secret) if secret else None


def use_tokens(tokens: OwnerTokens | object | None = _UNSET) -> None:
    """For tests: make `tokens` the mesh's (None: trust off); no argument: back to the environment."""
    global _override
    _override = tokens


def trust_required() -> bool:
    return mesh_tokens() is not None


# --- mTLS ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    ca: Path

    @classmethod
    def from_env(cls) -> TlsFiles | None:
        names = [os.environ.get(name, "") for name in (TLS_CERT_ENV, TLS_KEY_ENV, TLS_CA_ENV)]
        if not any(names):
            return None
        if not all(names):
            raise ValueError(f"mTLS needs all of {TLS_CERT_ENV}, {TLS_KEY_ENV} and {TLS_CA_ENV}")
        return cls(Path(names[0]), Path(names[1]), Path(names[2]))

    def server_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.key.read_bytes(), self.cert.read_bytes())],
            root_certificates=self.ca.read_bytes(),
            require_client_auth=True,
        )

    def channel_credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca.read_bytes(),
            private_key=self.key.read_bytes(),
            certificate_chain=self.cert.read_bytes(),
        )
