"""Sockets the project binds itself (edge, demo APIs, `atc up`) send without Nagle's delay."""

from __future__ import annotations

import asyncio
import socket

import uvicorn

from services.runtime.listen import bind_socket


def test_an_accepted_connection_has_tcp_nodelay() -> None:
    listener = bind_socket("127.0.0.1", 0)
    client = socket.create_connection(listener.getsockname()[:2])
    try:
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        client.close()
        listener.close()


async def test_uvicorn_serving_a_bound_socket_answers_with_tcp_nodelay() -> None:
    seen: list[int] = []

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        # The socket already listens: the connection waits in its backlog until uvicorn serves.
        host, port = sock.getsockname()[:2]
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        await writer.drain()
        assert (await reader.readline()).startswith(b"HTTP/1.1 200")
        # The server side of this very connection, found among uvicorn's live connections.
        for connection in server.server_state.connections:
            peer = connection.transport.get_extra_info("socket")  # type: ignore[attr-defined]
            seen.append(peer.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()
    finally:
        server.should_exit = True
        await task
        sock.close()
    assert seen and all(seen)
