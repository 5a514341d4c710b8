"""python -m services.edge: the HTTP edge on ATC_EDGE_HOST:ATC_EDGE_PORT."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys

import uvicorn

from services.edge.app import create_app
from services.edge.settings import EdgeSettings
from services.logging_setup import configure_logging
from services.runtime.listen import PortTaken, bind_socket


async def serve(settings: EdgeSettings, sock: socket.socket) -> None:
    app = create_app(settings)  # its lifespan opens the gRPC channels in this loop
    config = uvicorn.Config(
        app,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=int(settings.grace_seconds) or 1,
        access_log=False,
        # Our root logging format for every line, uvicorn's included.
        log_config=None,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main() -> int:
    settings = EdgeSettings()
    configure_logging(settings.log_level, "edge")
    try:
        sock = bind_socket(settings.host, settings.port)
    except PortTaken as exc:
        print(f"edge: {exc}", file=sys.stderr)
        return 1
    print(f"edge: listening on http://{settings.host}:{sock.getsockname()[1]}/", file=sys.stderr, flush=True)
    # uvicorn stops gracefully on SIGTERM, then re-raises it to the previous
    # handler: make that (and a SIGTERM before uvicorn starts) a clean exit 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        asyncio.run(serve(settings, sock))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
