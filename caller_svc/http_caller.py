"""Real HTTP calls to registered endpoints: typed params, no redirects, a size
cap, a total timeout, a per-host circuit breaker and localized failures."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

import httpx

from caller_svc.egress import EgressGuard, EgressRefused
from caller_svc.endpoint import SERVICE_KIND, EndpointSpec
from caller_svc.messages import FailureKind, failure_message
from caller_svc.params import query_value, typed_params
from services.language import Lang
from services.runtime.telemetry import DomainTelemetry, NoTelemetry

log = logging.getLogger("atc.caller.http")

# Bodies above this are parsed off the event loop.
_PARSE_IN_THREAD_BYTES = 256 * 1024


class Breaker(Protocol):
    async def allow(self, host: str) -> bool: ...
    async def record_success(self, host: str) -> None: ...
    async def record_failure(self, host: str) -> object: ...


@dataclass(frozen=True)
class ApiCallResult:
    success: bool
    # 0 for network failures, timeouts and an open breaker.
    status_code: int
    # Parsed body for 2xx and 4xx (JSON, else text); "" for every other failure.
    data: Any
    error_message: str | None
    duration_ms: int
    failure: FailureKind | None = None

    @property
    def has_body(self) -> bool:
        """Whether `data` is a real response body worth keeping (2xx or 4xx)."""
        return self.success or self.failure == FailureKind.CLIENT_ERROR


class ResponseTooLarge(Exception):
    pass


def service_body(
    endpoint: EndpointSpec, values: Mapping[str, Any], chat_id: str, author_id: str
) -> dict[str, Any]:
    """A Bürokratt service call: the entities in the service's parameter order."""
    return {
        "chatId": chat_id,
        "authorId": author_id,
        "input": [values[p.name] for p in endpoint.params if p.name in values],
    }


_PATH_PARAM = re.compile(r"\{([A-Za-z_][\w.-]*)\}")


def fill_path(url: str, values: dict[str, Any]) -> str:
    """OpenAPI path parameters: "/items/{id}" takes (and removes) the value of `id`."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        return quote(query_value(values.pop(name)), safe="")

    return _PATH_PARAM.sub(value, url)


def host_of(url: str) -> str:
    """host[:port], without any user:password (it becomes a Redis key and a log line)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port else host


def breaker_key(url: str) -> str:
    """What the circuit breaker is keyed by: the endpoint's URL as the catalogue has it
    (scheme, host[:port] and path, without credentials or query), so one failing API
    behind a shared gateway does not block the other endpoints behind it."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{host_of(url)}{parts.path or '/'}"


class ApiCaller:
    def __init__(
        self,
        client: httpx.AsyncClient,
        breaker: Breaker,
        *,
        timeout_seconds: float = 10.0,
        max_response_bytes: int = 2 * 1024 * 1024,
        guard: EgressGuard | None = None,
        telemetry: DomainTelemetry | None = None,
    ) -> None:
        """`client` should use `GuardedTransport(guard)` so resolved addresses are checked too."""
        self._telemetry = telemetry or NoTelemetry()
        self._client = client
        self._guard = guard or EgressGuard()
        self._breaker = breaker
        self._timeout = timeout_seconds
        self._max_bytes = max_response_bytes

    async def call(
        self,
        endpoint: EndpointSpec,
        params: Mapping[str, str],
        lang: Lang,
        *,
        timeout_seconds: float | None = None,
        chat_id: str = "",
        author_id: str = "",
    ) -> ApiCallResult:
        """One call; never raises for HTTP or network trouble (only on cancellation).
        Traced as a `caller.api_call` span and counted as `api_calls{outcome}` (OK or the
        failure kind; egress refusals are also `egress_refusals`)."""
        with self._telemetry.span("caller.api_call", endpoint=endpoint.name, method=endpoint.method) as span:
            result = await self._call(
                endpoint, params, lang, timeout_seconds=timeout_seconds, chat_id=chat_id, author_id=author_id
            )
            outcome = result.failure.value if result.failure is not None else "OK"
            span.set_attribute("outcome", outcome)
            span.set_attribute("status_code", result.status_code)
        self._telemetry.increment("api_calls", outcome=outcome)
        if result.failure == FailureKind.EGRESS_REFUSED:
            self._telemetry.increment("egress_refusals")
        return result

    async def _call(
        self,
        endpoint: EndpointSpec,
        params: Mapping[str, str],
        lang: Lang,
        *,
        timeout_seconds: float | None,
        chat_id: str,
        author_id: str,
    ) -> ApiCallResult:
        host = host_of(endpoint.url)
        # Keyed by the endpoint's URL template (before its path parameters are filled in).
        breaker = breaker_key(endpoint.url)
        started = time.perf_counter()

        def failed(kind: FailureKind, status: int = 0, data: Any = "") -> ApiCallResult:
            elapsed = int((time.perf_counter() - started) * 1000)
            log.info(
                "%s %s failed: %s status=%d in %d ms", endpoint.method, endpoint.name, kind, status, elapsed
            )
            return ApiCallResult(False, status, data, failure_message(kind, lang), elapsed, kind)

        try:
            self._guard.check_url(endpoint.url)
        except EgressRefused as exc:
            log.warning("egress refused endpoint=%s host=%s: %s", endpoint.name, host, exc)
            return failed(FailureKind.EGRESS_REFUSED)
        if not await self._breaker.allow(breaker):
            return failed(FailureKind.CIRCUIT_BREAKER_OPEN)
        timeout = timeout_seconds if timeout_seconds is not None else self._timeout
        try:
            async with asyncio.timeout(timeout):
                status, body, content_type = await self._send(endpoint, params, timeout, chat_id, author_id)
        except (TimeoutError, httpx.TimeoutException):
            await self._breaker.record_failure(breaker)
            return failed(FailureKind.SERVICE_TIMEOUT)
        except EgressRefused as exc:
            # Raised by the transport after DNS resolution: not the host's fault, no breaker change.
            log.warning("egress refused endpoint=%s host=%s: %s", endpoint.name, host, exc)
            return failed(FailureKind.EGRESS_REFUSED)
        except ResponseTooLarge as exc:
            await self._breaker.record_success(breaker)
            return failed(FailureKind.RESPONSE_TOO_LARGE, int(str(exc) or 0))
        except (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
            # Refused or reset connections mean the service is down, not slow.
            log.info("%s %s: connection failed %s", endpoint.method, endpoint.name, type(exc).__name__)
            await self._breaker.record_failure(breaker)
            return failed(FailureKind.SERVICE_UNAVAILABLE)
        except httpx.HTTPError as exc:
            log.info("%s %s: network error %s", endpoint.method, endpoint.name, type(exc).__name__)
            await self._breaker.record_failure(breaker)
            return failed(FailureKind.SERVICE_TIMEOUT)

        if status >= 500:
            await self._breaker.record_failure(breaker)
            return failed(FailureKind.SERVICE_UNAVAILABLE, status)
        # The server answered: it is up, whatever it thought of our request.
        await self._breaker.record_success(breaker)
        if 300 <= status < 400:
            return failed(FailureKind.REDIRECT_NOT_FOLLOWED, status)
        data = await self._parse(body, content_type)
        if status >= 400:
            return failed(FailureKind.CLIENT_ERROR, status, data)
        elapsed = int((time.perf_counter() - started) * 1000)
        log.info("%s %s -> %d in %d ms", endpoint.method, endpoint.name, status, elapsed)
        return ApiCallResult(True, status, data, None, elapsed)

    async def _send(
        self, endpoint: EndpointSpec, params: Mapping[str, str], timeout: float, chat_id: str, author_id: str
    ) -> tuple[int, bytes, str]:
        values = typed_params(endpoint, params)
        method = endpoint.method.upper()
        # Path parameters are filled in (quoted: a value cannot change the path's shape).
        endpoint = replace(endpoint, url=fill_path(endpoint.url, values))
        if endpoint.kind == SERVICE_KIND:
            request = self._client.build_request(
                "POST", endpoint.url, json=service_body(endpoint, values, chat_id, author_id), timeout=timeout
            )
        elif method == "GET":
            # Merge with any query the registered URL already carries (httpx's params= would drop it).
            url = httpx.URL(endpoint.url).copy_merge_params({k: query_value(v) for k, v in values.items()})
            request = self._client.build_request("GET", url, timeout=timeout)
        else:
            request = self._client.build_request(method, endpoint.url, json=values, timeout=timeout)
        response = await self._client.send(request, stream=True, follow_redirects=False)
        try:
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > self._max_bytes:
                raise ResponseTooLarge(str(response.status_code))
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self._max_bytes:
                    raise ResponseTooLarge(str(response.status_code))
                chunks.append(chunk)
        finally:
            await response.aclose()
        return response.status_code, b"".join(chunks), response.headers.get("content-type", "")

    @staticmethod
    async def _parse(body: bytes, content_type: str) -> Any:
        if not body.strip():
            return None
        try:
            if len(body) > _PARSE_IN_THREAD_BYTES:
                return await asyncio.to_thread(json.loads, body)
            return json.loads(body)
        except ValueError:
            charset = "utf-8"
            if "charset=" in content_type:
                charset = content_type.split("charset=", 1)[1].split(";")[0].strip() or charset
            try:
                return body.decode(charset, errors="replace")
            except LookupError:  # a charset the server made up
                return body.decode("utf-8", errors="replace")
