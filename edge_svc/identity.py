"""Who is asking: the one place the edge resolves the owner of a request.

Two credentials, both as `Authorization: Bearer <token>` (the chat token also as
the HttpOnly cookie `atc_chat_token`, for the chat page):

- a signed-in user's JWT, verified against configured keys (a JWKS file or a PEM
  public key) with its issuer and audience checked; the owner is `user:<sub>`;
- the edge's own anonymous chat token (HS256 under `chat_token_secret`), issued on
  a chat's first turn in the `X-Chat-Token` response header and the cookie; it binds
  a chat id to an anonymous owner `anon:<random>`. The chat page asks for one before
  its first turn (`POST /v1/identity`, bound to no chat yet), so every tab of one
  browser acts as one owner.

The owner never comes from the request body. Routes call `resolve_owner(request)`;
the chat routes also call `IdentityResolver.for_chat` to get (or mint) the chat token.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from starlette.requests import Request
from starlette.responses import Response

from services.errors import Unauthenticated
from services.runtime.owner import is_valid_owner

CHAT_TOKEN_HEADER = "X-Chat-Token"
CHAT_TOKEN_COOKIE = "atc_chat_token"
CHAT_TOKEN_ISSUER = "atc-edge"
CHAT_TOKEN_AUDIENCE = "atc-chat"
_CHAT_TOKEN_ALGORITHM = "HS256"
# The cookie is only sent to the chat API (and the results route beside it).
_COOKIE_PATH = "/v1/"


@dataclass(frozen=True)
class Owner:
    """The verified owner of a request."""

    owner_id: str
    kind: str  # "user" | "anonymous"
    # Anonymous only: the chat the presented token was issued for.
    chat_id: str | None = None


@dataclass(frozen=True)
class ChatBinding:
    """The owner a chat turn acts for, and the chat token to hand back (None when
    the caller already holds the right one or is a signed-in user)."""

    owner: Owner
    issued_token: str | None = None


def _load_keys(jwks_file: Path | None, pem_file: Path | None) -> list[Any]:
    keys: list[Any] = []
    if jwks_file is not None:
        jwk_set = jwt.PyJWKSet.from_dict(json.loads(jwks_file.read_text(encoding="utf-8")))
        keys += [key.key for key in jwk_set.keys]
    if pem_file is not None:
        keys.append(pem_file.read_bytes())
    return keys


class IdentityResolver:
    def __init__(
        self,
        *,
        chat_token_secret: str,
        chat_token_ttl_seconds: int,
        anonymous_enabled: bool = True,
        jwt_keys: list[Any] | None = None,
        jwt_issuer: str = "",
        jwt_audience: str = "",
        jwt_algorithms: list[str] | None = None,
        cookie_secure: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if jwt_keys and not (jwt_issuer and jwt_audience):
            raise ValueError("JWT verification needs both an issuer and an audience")
        # An HMAC algorithm for user JWTs would let a public key sign tokens.
        algorithms = [a for a in (jwt_algorithms or ["RS256", "ES256", "EdDSA"]) if not a.startswith("HS")]
        self._secret = chat_token_secret or secrets.token_urlsafe(32)
        self._ttl = chat_token_ttl_seconds
        self._anonymous = anonymous_enabled
        self._jwt_keys = jwt_keys or []
        self._issuer = jwt_issuer
        self._audience = jwt_audience
        self._algorithms = algorithms
        self._cookie_secure = cookie_secure
        self._clock = clock

    @classmethod
    def from_settings(cls, settings: Any) -> IdentityResolver:
        return cls(
            chat_token_secret=settings.chat_token_secret.get_secret_value(),
            chat_token_ttl_seconds=settings.chat_token_ttl_seconds,
            anonymous_enabled=settings.anonymous_enabled,
            jwt_keys=_load_keys(settings.jwt_jwks_file, settings.jwt_public_key_file),
            jwt_issuer=settings.jwt_issuer,
            jwt_audience=settings.jwt_audience,
            jwt_algorithms=settings.jwt_algorithms,
            cookie_secure=settings.cookie_secure,
        )

    # --- resolving

    def resolve(self, request: Request) -> Owner | None:
        """The verified owner, or None when the request carries no credential.
        Raises Unauthenticated for a credential that does not verify."""
        token = self._presented_token(request)
        if token is None:
            return None
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise Unauthenticated("the bearer token is not a JWT", reason="INVALID_TOKEN") from None
        if claims.get("iss") == CHAT_TOKEN_ISSUER:
            return self._verify_chat_token(token)
        return self._verify_user_token(token)

    def _presented_token(self, request: Request) -> str | None:
        header = request.headers.get("authorization")
        if header is not None:
            scheme, _, value = header.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise Unauthenticated("Authorization must be 'Bearer <token>'", reason="INVALID_TOKEN")
            return value.strip()
        return request.cookies.get(CHAT_TOKEN_COOKIE) or None

    def _verify_chat_token(self, token: str) -> Owner:
        if not self._anonymous:
            raise Unauthenticated("anonymous chat tokens are not accepted here", reason="INVALID_TOKEN")
        claims = self._decode(
            token, self._secret, [_CHAT_TOKEN_ALGORITHM], CHAT_TOKEN_ISSUER, CHAT_TOKEN_AUDIENCE, "chat token"
        )
        owner, chat_id = claims.get("sub"), claims.get("chat")
        if not isinstance(owner, str) or not owner.startswith("anon:") or not isinstance(chat_id, str):
            raise Unauthenticated("the chat token is malformed", reason="INVALID_TOKEN")
        return Owner(owner_id=owner, kind="anonymous", chat_id=chat_id)

    def _verify_user_token(self, token: str) -> Owner:
        if not self._jwt_keys:
            raise Unauthenticated("no user tokens are accepted here", reason="INVALID_TOKEN")
        last: Unauthenticated | None = None
        for key in self._jwt_keys:
            try:
                claims = self._decode(token, key, self._algorithms, self._issuer, self._audience, "token")
            except Unauthenticated as exc:
                if exc.reason != "BAD_SIGNATURE":
                    raise
                last = exc
                continue
            return Owner(owner_id=_user_owner(claims.get("sub")), kind="user")
        raise last or Unauthenticated("the token's signature does not verify", reason="BAD_SIGNATURE")

    def _decode(
        self, token: str, key: Any, algorithms: list[str], issuer: str, audience: str, what: str
    ) -> dict[str, Any]:
        try:
            return jwt.decode(
                token,
                key,
                algorithms=algorithms,
                issuer=issuer,
                audience=audience,
                options={"require": ["exp", "iss", "aud", "sub"]},
                leeway=30,
            )
        except jwt.ExpiredSignatureError:
            raise Unauthenticated(f"the {what} has expired", reason="TOKEN_EXPIRED") from None
        except jwt.InvalidAudienceError:
            raise Unauthenticated(f"the {what} is for another audience", reason="WRONG_AUDIENCE") from None
        except jwt.InvalidIssuerError:
            raise Unauthenticated(f"the {what} is from another issuer", reason="WRONG_ISSUER") from None
        except (jwt.InvalidSignatureError, jwt.InvalidAlgorithmError, jwt.InvalidKeyError):
            raise Unauthenticated(f"the {what}'s signature does not verify", reason="BAD_SIGNATURE") from None
        except jwt.PyJWTError as exc:
            raise Unauthenticated(f"the {what} is not valid: {exc}", reason="INVALID_TOKEN") from None

    # --- chat tokens

    def for_chat(self, request: Request, chat_id: str) -> ChatBinding:
        return self.bind(self.resolve(request), chat_id)

    def bind(self, owner: Owner | None, chat_id: str) -> ChatBinding:
        """The owner a turn on `chat_id` acts for. A signed-in user acts as itself;
        an anonymous caller keeps its owner and gets a token bound to this chat when
        it has none for it yet (its first turn here). Whether the chat already
        belongs to someone else is for the services that hold it (loop_svc's
        sessions) to say: they refuse with PERMISSION_DENIED, which is a 403 here."""
        if owner is not None and owner.kind == "user":
            return ChatBinding(owner)
        if owner is not None and owner.chat_id == chat_id:
            return ChatBinding(owner)
        if not self._anonymous:
            raise Unauthenticated("a bearer token is required", reason="UNAUTHENTICATED")
        owner_id = owner.owner_id if owner is not None else f"anon:{uuid.uuid4().hex}"
        bound = Owner(owner_id=owner_id, kind="anonymous", chat_id=chat_id)
        return ChatBinding(bound, issued_token=self.issue_chat_token(owner_id, chat_id))

    def for_page(self, request: Request) -> ChatBinding:
        """The identity a chat page holds before its first turn. Minted on a first turn
        instead, two tabs opened at once each got an owner of their own while the
        browser kept only the last cookie, so the other tab's next turn was refused as
        someone else's chat. A caller with a valid credential keeps it; a cookie that no
        longer verifies (expired, or from a rotated secret) is replaced, while a bad
        bearer token is still an error."""
        try:
            owner = self.resolve(request)
        except Unauthenticated:
            if request.headers.get("authorization") is not None:
                raise
            owner = None
        if owner is not None:
            return ChatBinding(owner)
        if not self._anonymous:
            raise Unauthenticated("a bearer token is required", reason="UNAUTHENTICATED")
        owner_id = f"anon:{uuid.uuid4().hex}"
        # Bound to no chat: the first turn of each chat gets a token bound to it.
        return ChatBinding(
            Owner(owner_id=owner_id, kind="anonymous", chat_id=""),
            issued_token=self.issue_chat_token(owner_id, ""),
        )

    def issue_chat_token(self, owner_id: str, chat_id: str) -> str:
        now = int(self._clock())
        claims = {
            "iss": CHAT_TOKEN_ISSUER,
            "aud": CHAT_TOKEN_AUDIENCE,
            "sub": owner_id,
            "chat": chat_id,
            "iat": now,
            "exp": now + self._ttl,
        }
        return jwt.encode(claims, self._secret, algorithm=_CHAT_TOKEN_ALGORITHM)

    def attach(self, response: Response, binding: ChatBinding) -> None:
        """Hand a newly issued chat token back: header for API clients, cookie for the page."""
        if binding.issued_token is None:
            return
        response.headers[CHAT_TOKEN_HEADER] = binding.issued_token
        response.set_cookie(
            CHAT_TOKEN_COOKIE,
            binding.issued_token,
            max_age=self._ttl,
            path=_COOKIE_PATH,
            httponly=True,
            secure=self._cookie_secure,
            samesite="strict",
        )


def _user_owner(sub: Any) -> str:
    if not isinstance(sub, str) or not sub:
        raise Unauthenticated("the token has no subject", reason="INVALID_TOKEN")
    owner = f"user:{sub}"
    # Metadata must be printable ASCII: other subjects travel as a stable digest.
    return owner if is_valid_owner(owner) else "user:sha256:" + hashlib.sha256(sub.encode()).hexdigest()


def identity_of(request: Request) -> IdentityResolver:
    resolver = getattr(request.app.state, "identity", None)
    if not isinstance(resolver, IdentityResolver):
        raise RuntimeError("the app has no identity resolver (create_app sets app.state.identity)")
    return resolver


def resolve_owner(request: Request) -> Owner:
    """The verified owner of a request. Raises Unauthenticated (HTTP 401) when it
    carries no valid credential."""
    owner = identity_of(request).resolve(request)
    if owner is None:
        raise Unauthenticated("a bearer token or chat token is required", reason="UNAUTHENTICATED")
    return owner
