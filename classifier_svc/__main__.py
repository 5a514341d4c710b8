"""python -m classifier_svc — the entry router of the mesh."""

from __future__ import annotations

import asyncio

from classifier_svc.app import build_server
from classifier_svc.settings import ClassifierSettings
from services.logging_setup import configure_logging
from services.runtime.server import serve_until_signal


async def main() -> None:
    settings = ClassifierSettings()
    configure_logging(settings.log_level, "classifier")
    await serve_until_signal(await build_server(settings))


if __name__ == "__main__":
    asyncio.run(main())
