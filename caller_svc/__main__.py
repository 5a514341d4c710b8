"""`python -m caller_svc`: serve atc.caller.v1.CallerService
(settings: ATC_CALLER_*) until SIGTERM/SIGINT."""

from __future__ import annotations

from caller_svc.app import build_server
from caller_svc.settings import CallerSettings
from services.runtime.server import run_service

if __name__ == "__main__":
    run_service("caller", CallerSettings(), build_server)
