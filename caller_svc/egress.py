"""Egress guard: the caller only talks to public addresses, or to host:port
pairs an operator allow-listed.

Checked twice: on the URL before a call (credentials, metadata hostnames,
literal internal addresses in any spelling) and again inside the HTTP
transport on the address actually connected to, after DNS resolution, so a
hostname that resolves (or re-resolves) to an internal address is refused.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import ssl
import typing
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlsplit

import httpcore
import httpx

log = logging.getLogger("atc.caller.egress")

# Cloud metadata services by name (their addresses are link-local or private and refused anyway).
METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
        "100.100.100.200",
    }
)
_INTERNAL_SUFFIXES = (".internal", ".local", ".localhost", ".localdomain", ".home.arpa")

Resolver = Callable[[str, int], Awaitable[list[str]]]
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class EgressRefused(Exception):
    """A call the guard will not make; the message says why (for logs, not users)."""


def parse_allow_list(text: str | Iterable[str]) -> frozenset[str]:
    """'api.example.ee:443, 127.0.0.1:8090' → {'api.example.ee:443', '127.0.0.1:8090'}."""
    items = text.split(",") if isinstance(text, str) else list(text)
    allowed: set[str] = set()
    for item in (i.strip().lower() for i in items):
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not port.isdigit() or not host:
            raise ValueError(f"egress allow-list entry {item!r} must be host:port")
        allowed.add(f"{host.strip('[]')}:{int(port)}")
    return frozenset(allowed)


def literal_ip(host: str) -> IpAddress | None:
    """The address a host string denotes, in any spelling browsers and libc accept
    ('0x7f000001', '2130706433', '0177.0.0.1', '[fd00:ec2::254]'), else None."""
    bare = host.strip("[]")
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    try:
        # inet_aton takes the legacy forms: hex, octal, a single 32-bit number, a.b, a.b.c.
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except OSError:
        return None


# IPv6 prefixes that carry an IPv4 address inside: NAT64 (RFC 6052 well-known and the
# local-use 64:ff9b:1::/48 of RFC 8215). 6to4 (2002::/16) and Teredo (2001::/32) are read
# by the ipaddress module's own properties.
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for: IPv4-mapped (::ffff:a.b.c.d),
    IPv4-compatible (::a.b.c.d), 6to4 (2002:aabb:ccdd::), Teredo (2001::/32: server and
    client) and NAT64 (64:ff9b::a.b.c.d): each is refused as its IPv4 address would be."""
    found: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    packed = int(address)
    if any(address in net for net in _NAT64) or (packed >> 32 == 0 and packed > 0xFFFF):
        found.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    return found


def is_public(address: IpAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if not all(is_public(inner) for inner in embedded_ipv4(address)):
            return False
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
    return not (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    )


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class EgressGuard:
    def __init__(self, allow: frozenset[str] = frozenset(), resolver: Resolver = system_resolver) -> None:
        self._allow = allow
        self._resolve = resolver

    def allowed(self, host: str, port: int) -> bool:
        return f"{host.lower().strip('[]')}:{port}" in self._allow

    def check_url(self, url: str) -> None:
        """Refuse what can be refused without the network (raises EgressRefused)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise EgressRefused(f"scheme {parts.scheme!r} is not allowed")
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            raise EgressRefused("credentials in the URL are not allowed")
        host = (parts.hostname or "").lower().rstrip(".")
        if not host:
            raise EgressRefused("the URL has no host")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise EgressRefused(f"bad port: {exc}") from None
        if self.allowed(host, port):
            return
        if host in METADATA_HOSTS or host == "localhost" or host.endswith(_INTERNAL_SUFFIXES):
            raise EgressRefused(f"host {host!r} is internal")
        address = literal_ip(host)
        if address is not None and not is_public(address):
            raise EgressRefused(f"address {address} is not public")

    async def resolve(self, host: str, port: int) -> str:
        """The address to connect to: `host` itself when allow-listed, else its first
        resolved address, provided every resolved address is public."""
        host = host.lower().rstrip(".")
        if self.allowed(host, port):
            return host
        if host in METADATA_HOSTS:
            raise EgressRefused(f"host {host!r} is a metadata service")
        address = literal_ip(host)
        if address is not None:
            candidates = [str(address)]
        else:
            try:
                candidates = await self._resolve(host, port)
            except OSError as exc:
                raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        if not candidates:
            raise httpcore.ConnectError(f"{host} has no address")
        for candidate in candidates:
            parsed = literal_ip(candidate.split("%", 1)[0])
            if parsed is None or not is_public(parsed):
                raise EgressRefused(f"{host} resolves to {candidate}, which is not public")
        return candidates[0]


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Resolves and checks the host itself, then connects to the checked address
    (TLS still verifies the original hostname: httpcore passes it as SNI)."""

    def __init__(self, guard: EgressGuard, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._guard = guard
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = await self._guard.resolve(host, port)
        return await self._inner.connect_tcp(
            address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise EgressRefused("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with the guarded network backend and no proxies from the environment."""

    def __init__(self, guard: EgressGuard, *, limits: httpx.Limits | None = None) -> None:
        limits = limits or httpx.Limits()
        super().__init__(trust_env=False, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl.create_default_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedNetworkBackend(guard),
        )
