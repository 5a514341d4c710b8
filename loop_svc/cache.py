"""The ATC response cache (seed Part 8), both tiers in Redis, holding result ids of
caller_svc's result store — the bodies stay there, and only there.

L1 `atc:cache:{chat_id}:{api_name}:{param_hash}` → the result id of that call,
   TTL = the endpoint's cache_ttl_seconds or the default.
L2 `atc:last:{chat_id}` → JSON list of LastCallContext (one per endpoint of the last
   successful call: its result id and the sketch of its rows), sliding TTL (every write
   restarts it).

No entry outlives the result it names: every write is capped by the seconds the caller
said the result has left (`CachedResult.ttl_seconds`). A result gone all the same (Redis
flushed) is a miss at the caller, which then makes the call.

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
from services.result_sketch import EMPTY, ResultSketch

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


def _within(ttl: int, result_ttl: int | None) -> int:
    """The entry's lifetime: its own, cut to the result's when that is known."""
    return ttl if result_ttl is None else min(ttl, result_ttl)


class LastCallContext(BaseModel):
    api_name: str
    endpoint: EndpointSpec
    collected_params: dict[str, str] = Field(default_factory=dict)
    # The call's result in caller_svc's result store (a hit sends it as cached_result_id).
    result_id: str = ""
    # What the result's rows carry, for telling a question about them (never the body).
    sketch: ResultSketch = EMPTY
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
    ) -> str | None:
        """The result id cached for these params and this owner, if any."""
        raw = await self._redis.get(self.l1_key(chat_id, api_name, params))
        if raw is None:
            return None
        entry = json.loads(raw)
        if entry.get("owner_id", "") != owner_id:
            return None
        # An entry from before result ids (it held the body) is a miss.
        result_id = entry.get("result_id")
        return result_id if isinstance(result_id, str) and result_id else None

    async def set_l1(
        self,
        chat_id: str,
        endpoint: EndpointSpec,
        params: Mapping[str, Any],
        result_id: str,
        owner_id: str,
        ttl_seconds: int | None = None,
        *,
        result_ttl_seconds: int | None = None,
    ) -> None:
        """`ttl_seconds`: the endpoint's own (else the default); `result_ttl_seconds`: what
        the result has left in the caller's store, which the entry never outlives."""
        own = ttl_seconds if ttl_seconds and ttl_seconds > 0 else self._default_ttl
        ttl = _within(own, result_ttl_seconds)
        if ttl <= 0:
            return
        value = json.dumps({"owner_id": owner_id, "result_id": result_id}, ensure_ascii=False)
        await self._redis.set(self.l1_key(chat_id, endpoint.name, params), value, ex=ttl)

    async def get_l2(self, chat_id: str, owner_id: str) -> list[LastCallContext]:
        raw = await self._redis.get(self.l2_key(chat_id))
        if raw is None:
            return []
        # A context from before result ids (it held the body) names none: a question about
        # its rows then reaches the caller as a call to make, not a hit.
        contexts = [LastCallContext.model_validate(item) for item in json.loads(raw)]
        return [c for c in contexts if c.owner_id == owner_id]

    async def set_l2(
        self, chat_id: str, contexts: list[LastCallContext], *, result_ttl_seconds: int | None = None
    ) -> None:
        """`result_ttl_seconds`: the least any of the contexts' results has left."""
        ttl = _within(self._last_ttl, result_ttl_seconds)
        if ttl <= 0:
            await self.invalidate_l2(chat_id)
            return
        payload = json.dumps([c.model_dump(mode="json") for c in contexts], ensure_ascii=False)
        await self._redis.set(self.l2_key(chat_id), payload, ex=ttl)

    async def invalidate_l2(self, chat_id: str) -> bool:
        """Only L2: L1 entries are keyed by their params and expire by themselves."""
        return bool(await self._redis.delete(self.l2_key(chat_id)))
