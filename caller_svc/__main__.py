"""`python -m caller_svc`: serve atc.caller.v1.CallerService (settings: ATC_CALLER_*)."""

from __future__ import annotations

import asyncio
import logging

from caller_svc.app import build_server
from caller_svc.settings import CallerSettings
from services.logging_setup import configure_logging
from services.runtime.server import serve_until_signal

log = logging.getLogger("atc.caller")


async def main(settings: CallerSettings) -> None:
    server = await build_server(settings)
    await serve_until_signal(server, ready=lambda s: log.info("caller_svc ready on %s", s.address))


if __name__ == "__main__":
    caller_settings = CallerSettings()
    configure_logging(caller_settings.log_level, "caller_svc")
    asyncio.run(main(caller_settings))
