"""A tiny authoritative DNS responder over UDP for the tests' own names: A records for
the names it is given (each under its bare, namespace and cluster-domain forms, as a
Kubernetes Service resolves), NXDOMAIN for any other name, an empty answer for other
record types of a known name. Enough for glibc, c-ares (gRPC) and Envoy's resolver."""

from __future__ import annotations

import asyncio
import ipaddress
import struct
from collections.abc import Iterable, Mapping

CLUSTER_DOMAIN = "svc.cluster.local"
_A, _AAAA = 1, 28
_TTL = 5


def cluster_names(service: str, namespace: str) -> list[str]:
    """Every spelling a pod may look a Service up by."""
    return [
        service,
        f"{service}.{namespace}",
        f"{service}.{namespace}.svc",
        f"{service}.{namespace}.{CLUSTER_DOMAIN}",
    ]


def _read_name(packet: bytes, offset: int) -> tuple[str, int]:
    labels: list[str] = []
    while True:
        length = packet[offset]
        if length == 0:
            return ".".join(labels), offset + 1
        if length & 0xC0:  # a compression pointer never appears in a question
            raise ValueError("compressed name in a question")
        labels.append(packet[offset + 1 : offset + 1 + length].decode("ascii", "replace"))
        offset += 1 + length


def answer(query: bytes, records: Mapping[str, list[str]]) -> bytes | None:
    """The response to one query packet, or None for a packet that is not a query."""
    if len(query) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    if flags & 0x8000 or qdcount != 1:
        return None
    name, end = _read_name(query, 12)
    qtype, qclass = struct.unpack("!HH", query[end : end + 4])
    question = query[12 : end + 4]
    key = name.lower().rstrip(".")
    addresses = records.get(key)
    rcode = 3 if addresses is None else 0  # NXDOMAIN / NOERROR
    answers = b""
    count = 0
    if addresses and qtype == _A and qclass == 1:
        for address in addresses:
            # 0xC00C: a pointer to the question's name.
            answers += struct.pack("!HHHIH", 0xC00C, _A, 1, _TTL, 4) + ipaddress.IPv4Address(address).packed
            count += 1
    header = struct.pack("!HHHHHH", ident, 0x8400 | (flags & 0x0100) | rcode, 1, count, 0, 0)
    return header + question + answers


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, records: Mapping[str, list[str]]) -> None:
        self._records = records
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        try:
            reply = answer(data, self._records)
        except (ValueError, IndexError, struct.error):
            return
        if reply is not None and self.transport is not None:
            self.transport.sendto(reply, addr)  # type: ignore[attr-defined]


class DnsResponder:
    """`records`: name → addresses; names are matched case-insensitively, without the
    trailing dot. Mutable while running (a test may add a replica)."""

    def __init__(self, records: Mapping[str, Iterable[str]], host: str = "127.0.0.1", port: int = 0) -> None:
        self.records: dict[str, list[str]] = {k.lower(): list(v) for k, v in records.items()}
        self._host = host
        self._port = port
        self._transport: asyncio.BaseTransport | None = None
        self.port = 0

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(
            lambda: _Protocol(self.records), local_addr=(self._host, self._port)
        )
        self._transport = transport
        self.port = transport.get_extra_info("sockname")[1]

    async def stop(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    async def __aenter__(self) -> DnsResponder:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
