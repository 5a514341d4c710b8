"""Test support: serve an ASGI app with a real uvicorn server on a free loopback port
(`serve_asgi` runs it in the test's event loop, `serve_asgi_in_thread` in a thread)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from starlette.types import ASGIApp

from devtools.launcher.inprocess import Lifespan, serve_asgi, server_url, uvicorn_server
from services.runtime.telemetry import Telemetry

__all__ = ["SEED_BODY", "metric_reaching", "metric_value", "serve_asgi", "serve_asgi_in_thread"]


@contextlib.contextmanager
def serve_asgi_in_thread(app: ASGIApp, host: str = "127.0.0.1", lifespan: Lifespan = "off") -> Iterator[str]:
    """Run `app` in a background thread (for fixtures that outlive one event loop)."""
    server = uvicorn_server(app, host, lifespan)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(1000):
            if server.started:
                break
            if not thread.is_alive():
                raise RuntimeError("uvicorn exited at start")
            threading.Event().wait(0.01)
        else:
            raise RuntimeError("uvicorn did not start")
        yield server_url(server, host)
    finally:
        server.should_exit = True
        thread.join(timeout=5)


# The design document's indexing body, verbatim.
SEED_BODY: dict[str, Any] = {
    "endpointId": "a3f7c2d1-84e6-4b19-92f3-d51c7e890ab2",
    "serviceId": "",
    "name": "get_national_holidays",
    "description": "Fetch national holidays for a specific country to see when they have public days off.",
    "method": "GET",
    "url": "https://openholidaysapi.org/PublicHolidays",
    "visibility": "public",
    "type": "custom_endpoint",
    "params": [
        {
            "name": "countryIsoCode",
            "type": "string",
            "required": True,
            "description": "The 2-letter ISO country code (e.g., EE for Estonia, DE for Germany)",
        },
        {
            "name": "languageIsoCode",
            "type": "string",
            "required": False,
            "description": "The 2-letter ISO language code (e.g., ET, EN)",
        },
        {
            "name": "validFrom",
            "type": "date",
            "required": False,
            "description": "Start date for the holiday search (YYYY-MM-DD)",
        },
        {
            "name": "validTo",
            "type": "date",
            "required": False,
            "description": "End date for the holiday search (YYYY-MM-DD)",
        },
    ],
}


def metric_value(telemetry: Telemetry, name: str, labels: Mapping[str, str]) -> float:
    """One sample's value in a service's registry (0 when absent)."""
    value = telemetry.registry.get_sample_value(name, dict(labels))
    return float(value) if value is not None else 0.0


async def metric_reaching(
    telemetry: Telemetry, name: str, labels: Mapping[str, str], expected: float, *, polls: int = 200
) -> float:
    """The sample's value once it equals `expected`, or its last value after `polls` looks.

    A server records an RPC's outcome after the reply has left it, so a client that has its reply
    can look before the count moves; polling (not a deadline) keeps a busy machine from flaking."""
    value = metric_value(telemetry, name, labels)
    for _ in range(polls):
        if value == expected:
            break
        await asyncio.sleep(0.01)
        value = metric_value(telemetry, name, labels)
    return value
