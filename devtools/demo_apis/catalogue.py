"""The demo endpoints in the seed's indexing format, with `{base_url}` filled in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CATALOGUE_PATH = Path(__file__).with_name("catalogue.json")
BASE_URL_PLACEHOLDER = "{base_url}"


def load_catalogue(base_url: str) -> list[dict[str, Any]]:
    """Endpoint bodies ready to index, pointing at the demo APIs served from `base_url`."""
    bodies: list[dict[str, Any]] = json.loads(CATALOGUE_PATH.read_text(encoding="utf-8"))
    root = base_url.rstrip("/")
    for body in bodies:
        body["url"] = body["url"].replace(BASE_URL_PLACEHOLDER, root)
    return bodies
