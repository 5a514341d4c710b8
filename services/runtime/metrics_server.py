"""A tiny asyncio HTTP server for Prometheus scrapes: `GET /metrics` on the metrics port.

The gRPC services have no HTTP server of their own; a second port keeps scrapes out of
the RPC path (the edge serves `/metrics` on its own app instead)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST

log = logging.getLogger("atc.metrics")

_MAX_REQUEST_HEAD = 8192


class MetricsServer:
    def __init__(self, render: Callable[[], bytes], *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._render = render
        self._host = host
        self._requested_port = port
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, self._host, self._requested_port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("metrics on http://%s:%d/metrics", self._host, self.port)
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=10)
            request_line = head[:_MAX_REQUEST_HEAD].split(b"\r\n", 1)[0].decode("latin-1")
            parts = request_line.split(" ")
            if len(parts) == 3 and parts[0] == "GET" and parts[1].split("?", 1)[0] == "/metrics":
                status, body, content_type = "200 OK", self._render(), CONTENT_TYPE_LATEST
            else:
                status, body, content_type = "404 Not Found", b"only GET /metrics here\n", "text/plain"
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()
