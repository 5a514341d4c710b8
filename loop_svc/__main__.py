"""`python -m loop_svc`: serve LoopService until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio

from loop_svc.app import build_server
from loop_svc.settings import LoopSettings
from services.logging_setup import configure_logging
from services.runtime.server import serve_until_signal


async def main(settings: LoopSettings) -> None:
    server = await build_server(settings)
    await serve_until_signal(server)


if __name__ == "__main__":
    loop_settings = LoopSettings()
    configure_logging(loop_settings.log_level, "loop_svc")
    asyncio.run(main(loop_settings))
