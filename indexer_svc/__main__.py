"""python -m indexer_svc — settings from ATC_INDEXER_* variables."""

from __future__ import annotations

import asyncio
import logging

from indexer_svc.app import build_server
from indexer_svc.settings import IndexerSettings
from services.logging_setup import configure_logging
from services.runtime.server import GrpcServer, serve_until_signal


async def main(settings: IndexerSettings) -> None:
    server = await build_server(settings)

    def ready(started: GrpcServer) -> None:
        logging.getLogger("indexer_svc").info("indexer ready on %s", started.address)

    await serve_until_signal(server, ready=ready)


if __name__ == "__main__":
    settings = IndexerSettings()
    configure_logging(settings.log_level, "indexer")
    asyncio.run(main(settings))
