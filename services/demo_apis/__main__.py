"""`python -m services.demo_apis`: serve the demo APIs (ATC_DEMO_HOST / ATC_DEMO_PORT)."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import sys

import uvicorn

from services.demo_apis.app import create_app
from services.demo_apis.settings import DemoApiSettings
from services.logging_setup import configure_logging

log = logging.getLogger("atc.demo_apis")


def bind(host: str, port: int) -> socket.socket:
    """Bind first so a taken port fails with a message naming it, not a uvicorn traceback."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise SystemExit(
                f"demo APIs: cannot listen on {host}:{port}: the port is taken "
                "(set ATC_DEMO_PORT to another port)"
            ) from None
        raise SystemExit(f"demo APIs: cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


async def main(settings: DemoApiSettings) -> None:
    sock = bind(settings.host, settings.port)
    config = uvicorn.Config(create_app(), log_level=settings.log_level.lower(), access_log=False)
    log.info("demo APIs on %s", settings.base_url)
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    demo_settings = DemoApiSettings()
    configure_logging(demo_settings.log_level, "demo_apis")
    try:
        asyncio.run(main(demo_settings))
    except KeyboardInterrupt:
        sys.exit(0)
