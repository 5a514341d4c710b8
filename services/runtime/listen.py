"""Binding a listening socket up front (edge, demo APIs, `atc up`), so a taken port is
a clear error naming it rather than a server traceback."""

from __future__ import annotations

import errno
import socket


class PortTaken(Exception):
    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"cannot listen on {host}:{port}: {reason}")
        self.host = host
        self.port = port


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (SO_REUSEADDR like uvicorn, so only a
    live listener makes the port count as taken) whose connections send at once.

    asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; a plain
    `socket(family, SOCK_STREAM)` has proto 0, so every connection accepted from it
    kept Nagle on and each reply on a reused connection waited ~40 ms for a delayed
    ACK. Naming the protocol fixes that, and Linux also copies TCP_NODELAY from the
    listener to every accepted socket."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        reason = "the port is already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise PortTaken(host, port, reason) from exc
    sock.set_inheritable(True)
    return sock


def ensure_port_free(host: str, port: int) -> None:
    """Raise PortTaken if nothing could listen on host:port right now."""
    bind_socket(host, port).close()
