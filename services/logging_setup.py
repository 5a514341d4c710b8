"""One log format for every process of the mesh."""

from __future__ import annotations

import logging


def configure_logging(level: str = "INFO", service: str = "atc") -> None:
    logging.basicConfig(
        level=level.upper(),
        format=f"%(asctime)s {service} %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    # httpx logs every request at INFO; ours are logged by the caller already.
    logging.getLogger("httpx").setLevel(logging.WARNING)
