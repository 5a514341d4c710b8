"""Egress guard: internal addresses and metadata hosts are refused before the call
and after DNS resolution; only allow-listed host:port pairs on loopback are reached."""

from __future__ import annotations

import asyncio
import socket
import struct

import httpx
import pytest

from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.egress import EgressGuard, EgressRefused, GuardedTransport, parse_allow_list
from caller_svc.endpoint import EndpointSpec
from caller_svc.http_caller import ApiCaller, host_of
from caller_svc.messages import FAILURE_MESSAGES, FailureKind

REFUSED_URLS = [
    "http://127.0.0.1:6379/",  # a valkey port
    "http://127.0.0.1:50052/",  # a mesh gRPC port
    "http://10.0.0.5/admin",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://[::1]:8080/",
    "http://[::ffff:127.0.0.1]/",
    "http://localhost:8080/v1/admin/endpoints",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://0.0.0.0:8080/",
    "https://user:secret@api.example.ee/",
    "ftp://api.example.ee/file",
    # IPv6 forms that carry an internal IPv4 address (issue 16): 6to4 of loopback and of
    # 10/8, Teredo, NAT64 (well-known and local-use prefixes), IPv4-compatible.
    "http://[2002:7f00:1::]/",
    "http://[2002:a00:1::1]/",
    "http://[2002:a9fe:a9fe::]/latest/meta-data/",
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b:1::a00:5]/",
    "http://[::127.0.0.1]/",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_internal_targets_are_refused_before_the_call(url: str) -> None:
    with pytest.raises(EgressRefused):
        EgressGuard().check_url(url)


async def test_a_hostname_resolving_to_6to4_of_loopback_is_refused() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["2002:7f00:1::"]

    with pytest.raises(EgressRefused):
        await EgressGuard(resolver=resolver).resolve("rebind.example", 80)


def test_public_and_allow_listed_targets_pass() -> None:
    guard = EgressGuard(parse_allow_list("127.0.0.1:8090, [::1]:9000"))
    guard.check_url("https://api.example.ee/v1/holidays")
    guard.check_url("http://127.0.0.1:8090/PublicHolidays")
    guard.check_url("http://[::1]:9000/x")
    with pytest.raises(EgressRefused):
        guard.check_url("http://127.0.0.1:8091/")  # the allow-list names ports, not hosts


def test_allow_list_entries_need_a_port() -> None:
    with pytest.raises(ValueError, match="host:port"):
        parse_allow_list("127.0.0.1")


async def test_hostnames_resolving_to_internal_addresses_are_refused() -> None:
    # The system resolver: localhost is loopback.
    with pytest.raises(EgressRefused, match="not public"):
        await EgressGuard().resolve("localhost", 80)

    async def resolver(host: str, port: int) -> list[str]:
        return {"mixed.example": ["93.184.215.14", "10.1.2.3"], "ok.example": ["93.184.215.14"]}[host]

    guard = EgressGuard(resolver=resolver)
    # One internal address among public ones is enough to refuse.
    with pytest.raises(EgressRefused):
        await guard.resolve("mixed.example", 443)
    assert await guard.resolve("ok.example", 443) == "93.184.215.14"


def _caller(guard: EgressGuard, client: httpx.AsyncClient) -> ApiCaller:
    return ApiCaller(client, CircuitBreaker(None), timeout_seconds=5, guard=guard)


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_dns_rebinding_to_loopback_is_refused_at_connect(test_api, lang) -> None:
    # The name passes the URL check (it is not an address), then resolves to the test server.
    port = int(host_of(test_api.url).rsplit(":", 1)[1])

    async def rebinding(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    guard = EgressGuard(resolver=rebinding)
    before = test_api.hits["/echo"]
    async with httpx.AsyncClient(transport=GuardedTransport(guard)) as client:
        result = await _caller(guard, client).call(
            EndpointSpec("rebound", "GET", f"http://rebind.example:{port}/echo"), {}, lang
        )
    assert (result.success, result.failure) == (False, FailureKind.EGRESS_REFUSED)
    assert result.error_message == FAILURE_MESSAGES[FailureKind.EGRESS_REFUSED][lang]
    assert test_api.hits["/echo"] == before


async def test_only_the_allow_listed_port_is_reached(test_api, demo_api_url, caplog) -> None:
    guard = EgressGuard(parse_allow_list(host_of(demo_api_url)))
    async with httpx.AsyncClient(transport=GuardedTransport(guard)) as client:
        caller = _caller(guard, client)
        allowed = await caller.call(
            EndpointSpec("votings", "GET", f"{demo_api_url}/votings?limit=1"), {}, "en"
        )
        before = test_api.hits["/echo"]
        refused = await caller.call(EndpointSpec("other", "GET", f"{test_api.url}/echo"), {}, "et")
    assert allowed.success and len(allowed.data) == 1
    assert refused.failure == FailureKind.EGRESS_REFUSED
    assert refused.error_message == "Seda teenust ei saa turvalisuse tõttu siit välja kutsuda."
    assert test_api.hits["/echo"] == before
    assert "egress refused endpoint=other" in caplog.text


async def test_connection_reset_is_service_unavailable() -> None:
    async def reset(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        sock = writer.get_extra_info("socket")
        # SO_LINGER 0: close() sends RST instead of FIN.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    server = await asyncio.start_server(reset, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    guard = EgressGuard(parse_allow_list(f"127.0.0.1:{port}"))
    try:
        async with httpx.AsyncClient(transport=GuardedTransport(guard)) as client:
            result = await _caller(guard, client).call(
                EndpointSpec("resetting", "GET", f"http://127.0.0.1:{port}/"), {}, "ru"
            )
    finally:
        server.close()
        await server.wait_closed()
    assert (result.success, result.status_code, result.failure) == (False, 0, FailureKind.SERVICE_UNAVAILABLE)
    assert result.error_message == "Сервис сейчас недоступен. Пожалуйста, попробуйте позже."
