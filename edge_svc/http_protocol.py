"""uvicorn's h11 protocol with two edge rules:

- a request head over the size limit (`h11_max_incomplete_event_size`, 16 KiB by
  default) is answered `431 Request Header Fields Too Large`: h11 alone bounds only a
  head still incomplete, and uvicorn answers that with 400 and closes at once, so the
  bytes still arriving turned the close into a TCP reset;
- after such an answer the connection is closed gracefully: our side is shut for
  writing, what the client still sends is read and dropped for a moment, then it is
  closed, so the client reads the 431 instead of a reset.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# h11's default limit on a request head (request line and headers).
MAX_HEAD_BYTES = 16 * 1024
_LINGER_SECONDS = 2.0


class EdgeH11Protocol(H11Protocol):
    _discarding = False

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        if self.conn.their_state is h11.IDLE:
            # Waiting for a request head: h11 bounds only a head that is still incomplete,
            # so one that arrives whole in a single read is measured here.
            limit = self._head_limit()
            pending = self.conn.trailing_data[0] + data
            end = pending.find(b"\r\n\r\n", 0, limit + 4)
            if end == -1 and len(pending) > limit:
                self._send_431()
                return
        super().data_received(data)

    def _head_limit(self) -> int:
        configured = self.config.h11_max_incomplete_event_size
        return configured if configured is not None else MAX_HEAD_BYTES

    def _send_431(self) -> None:
        self.logger.info("request head over %d bytes: 431", self._head_limit())
        body = b'{"error":{"message":"the request headers are too large","reason":"HEADERS_TOO_LARGE"}}'
        head = (
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n"
        )
        self.transport.write(head + body)
        self._discarding = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        asyncio.get_running_loop().call_later(_LINGER_SECONDS, self.transport.close)
