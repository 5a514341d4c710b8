"""The ATC response cache (seed Part 8), both tiers in Redis.

L1 `atc:cache:{chat_id}:{api_name}:{param_hash}` → the raw API response (JSON),
   TTL = the endpoint's cache_ttl_seconds or the default.
L2 `atc:last:{chat_id}` → JSON list of LastCallContext (one per endpoint of the last
   successful call), sliding TTL (every write restarts it).

Both are scoped to one chat; an entry written for one owner is not read for another.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, Field

from loop_svc.schema import EndpointSpec

_NUMERIC = frozenset("0123456789")


def _normalised(value: Any) -> Any:
    """The seed's normalisation: strip, "2026" → 2026, alphabetic strings ("EE") lower-cased."""
    if not isinstance(value, str):
        return value
    stripped = value.strip()
    if stripped and set(stripped.lstrip("-")) <= _NUMERIC and stripped.lstrip("-"):
        return int(stripped)
    if stripped.isalpha():
        return stripped.lower()
    return stripped


def param_hash(params: Mapping[str, Any]) -> str:
    """16 hex characters of the normalised, key-sorted params: {"year": "2026",
    "country": "EE"} and {"country": "ee", "year": 2026} hash the same."""
    canonical = json.dumps(
        {key: _normalised(params[key]) for key in sorted(params)}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class LastCallContext(BaseModel):
    api_name: str
    endpoint: EndpointSpec
    collected_params: dict[str, str] = Field(default_factory=dict)
    raw_response: Any = None
    original_query: str = ""
    timestamp: float = Field(default_factory=time.time)
    owner_id: str = ""
    language: str = "en"
    # The shape the answer had (services.answer_shape.to_dict): "and last weekend?" keeps it.
    shape: dict[str, Any] = Field(default_factory=dict)


class ResponseCache:
    def __init__(
        self,
        client: aioredis.Redis,
        *,
        default_ttl_seconds: int = 1800,
        last_call_ttl_seconds: int = 1800,
    ) -> None:
        self._redis = client
        self._default_ttl = default_ttl_seconds
        self._last_ttl = last_call_ttl_seconds

    @staticmethod
    def l1_key(chat_id: str, api_name: str, params: Mapping[str, Any]) -> str:
        return f"atc:cache:{chat_id}:{api_name}:{param_hash(params)}"

    @staticmethod
    def l2_key(chat_id: str) -> str:
        return f"atc:last:{chat_id}"

    async def get_l1(
        self, chat_id: str, api_name: str, params: Mapping[str, Any], owner_id: str
    ) -> Any | None:
        raw = await self._redis.get(self.l1_key(chat_id, api_name, params))
        if raw is None:
            return None
        entry = json.loads(raw)
        if entry.get("owner_id", "") != owner_id:
            return None
        return entry.get("response")

    async def set_l1(
        self,
        chat_id: str,
        endpoint: EndpointSpec,
        params: Mapping[str, Any],
        response: Any,
        owner_id: str,
        ttl_seconds: int | None = None,
    ) -> None:
        ttl = ttl_seconds if ttl_seconds and ttl_seconds > 0 else self._default_ttl
        value = json.dumps({"owner_id": owner_id, "response": response}, ensure_ascii=False)
        await self._redis.set(self.l1_key(chat_id, endpoint.name, params), value, ex=ttl)

    async def get_l2(self, chat_id: str, owner_id: str) -> list[LastCallContext]:
        raw = await self._redis.get(self.l2_key(chat_id))
        if raw is None:
            return []
        contexts = [LastCallContext.model_validate(item) for item in json.loads(raw)]
        return [c for c in contexts if c.owner_id == owner_id]

    async def set_l2(self, chat_id: str, contexts: list[LastCallContext]) -> None:
        payload = json.dumps([c.model_dump(mode="json") for c in contexts], ensure_ascii=False)
        await self._redis.set(self.l2_key(chat_id), payload, ex=self._last_ttl)

    async def invalidate_l2(self, chat_id: str) -> bool:
        """Only L2: L1 entries are keyed by their params and expire by themselves."""
        return bool(await self._redis.delete(self.l2_key(chat_id)))
