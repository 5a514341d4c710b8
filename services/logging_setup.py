"""One log format for every process of the mesh: one JSON object per line, with the
service, the request id and the trace id of the RPC or request being served."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from services.runtime.request_context import current_request_id
from services.runtime.telemetry import current_trace_id

# Attributes every LogRecord has; anything else was passed with `extra=` and is logged too.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self._service = service

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self._service,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = current_request_id.get()
        if request_id:
            entry["request_id"] = request_id
        trace_id = current_trace_id()
        if trace_id:
            entry["trace_id"] = trace_id
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_logging(level: str = "INFO", service: str = "atc") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(service))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    # httpx logs every request at INFO; ours are logged by the caller already.
    logging.getLogger("httpx").setLevel(logging.WARNING)
