"""python -m edge_svc: the public HTTP edge on ATC_EDGE_HOST:ATC_EDGE_PORT and
the admin listener on ATC_EDGE_ADMIN_HOST:ATC_EDGE_ADMIN_PORT."""

from __future__ import annotations

import asyncio
import secrets
import signal
import socket
import sys

import uvicorn
from pydantic import SecretStr
from starlette.applications import Starlette

from edge_svc.app import create_apps
from edge_svc.http_protocol import EdgeH11Protocol
from edge_svc.settings import EdgeSettings
from services.logging_setup import configure_logging
from services.runtime.listen import PortTaken, bind_socket
from services.runtime.metrics_server import MetricsServer


def _server(app: Starlette, settings: EdgeSettings) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=int(settings.grace_seconds) or 1,
        access_log=False,
        # 431 for an oversized request head, and no reset after it (edge_svc/http_protocol.py).
        http=EdgeH11Protocol,
        # Our root logging format for every line, uvicorn's included.
        log_config=None,
    )
    return uvicorn.Server(config)


async def serve(settings: EdgeSettings, sock: socket.socket, admin_sock: socket.socket | None) -> None:
    apps = create_apps(settings)  # their lifespans open the gRPC channels in this loop
    servers = [_server(apps.public, settings).serve(sockets=[sock])]
    if apps.admin is not None and admin_sock is not None:
        servers.append(_server(apps.admin, settings).serve(sockets=[admin_sock]))
    # GET /metrics on a listener of its own: never on the public one.
    metrics: MetricsServer | None = None
    if settings.metrics_port is not None and apps.telemetry is not None:
        metrics = MetricsServer(
            apps.telemetry.metrics_text, host=settings.metrics_host, port=settings.metrics_port
        )
        port = await metrics.start()
        print(f"edge: metrics on http://{settings.metrics_host}:{port}/metrics", file=sys.stderr, flush=True)
    try:
        await asyncio.gather(*servers)
    finally:
        if metrics is not None:
            await metrics.stop()


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def with_admin_token(settings: EdgeSettings) -> tuple[EdgeSettings, bool]:
    """The settings with an admin token: the configured one, or a fresh random one
    (True: generated here, so it must be shown to the operator)."""
    if not settings.admin_enabled or settings.admin_token.get_secret_value():
        return settings, False
    token = SecretStr(secrets.token_urlsafe(24))
    return settings.model_copy(update={"admin_token": token}), True


def main() -> int:
    settings, generated = with_admin_token(EdgeSettings())
    configure_logging(settings.log_level, "edge")
    admin_sock: socket.socket | None = None
    try:
        sock = bind_socket(settings.host, settings.port)
        if settings.admin_enabled:
            admin_sock = bind_socket(settings.admin_host, settings.admin_port)
    except PortTaken as exc:
        print(f"edge: {exc}", file=sys.stderr)
        return 1
    print(f"edge: listening on http://{settings.host}:{sock.getsockname()[1]}/", file=sys.stderr, flush=True)
    if admin_sock is not None:
        where = f"http://{settings.admin_host}:{admin_sock.getsockname()[1]}/v1/admin/endpoints"
        shown = f" (token {settings.admin_token.get_secret_value()})" if generated else ""
        print(f"edge: admin on {where}{shown}", file=sys.stderr, flush=True)
    # uvicorn stops gracefully on SIGTERM, then re-raises it to the previous
    # handler: make that (and a SIGTERM before uvicorn starts) a clean exit 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        asyncio.run(serve(settings, sock, admin_sock))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        if admin_sock is not None:
            admin_sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
