"""The catalogue file indexed at start: a JSON list of endpoint bodies (the design's
indexing format). URLs may hold the literal "{base_url}", replaced by a configured base
so one file serves local demo APIs and deployed ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from services.errors import InvalidArgument

BASE_URL_PLACEHOLDER = "{base_url}"


def read_catalogue_file(path: str | Path, base_url: str = "") -> list[dict[str, Any]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidArgument(f"cannot read catalogue file {path}: {exc}", field="catalogue_file") from exc
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InvalidArgument(f"{path} must hold a JSON list of endpoint objects", field="catalogue_file")
    base = base_url.rstrip("/")
    bodies = []
    for position, body in enumerate(data):
        url = body.get("url")
        if isinstance(url, str) and BASE_URL_PLACEHOLDER in url:
            if not base:
                raise InvalidArgument(
                    f"catalogue[{position}].url uses {BASE_URL_PLACEHOLDER} but no catalogue_base_url is set",
                    field=f"catalogue[{position}].url",
                )
            body = {**body, "url": url.replace(BASE_URL_PLACEHOLDER, base)}
        bodies.append(body)
    return bodies
