"""`python -m devtools.demo_apis`: serve the demo APIs (ATC_DEMO_HOST / ATC_DEMO_PORT)."""

from __future__ import annotations

import asyncio
import logging
import sys

import uvicorn

from devtools.demo_apis.app import create_app
from devtools.demo_apis.settings import DemoApiSettings
from services.logging_setup import configure_logging
from services.runtime.listen import PortTaken, bind_socket

log = logging.getLogger("atc.demo_apis")


async def main(settings: DemoApiSettings) -> None:
    try:
        sock = bind_socket(settings.host, settings.port)
    except PortTaken as exc:
        raise SystemExit(f"demo APIs: {exc} (the port is taken; set ATC_DEMO_PORT to another port)") from None
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
