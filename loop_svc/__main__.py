"""`python -m loop_svc`: serve atc.loop.v1.LoopService
(settings: ATC_LOOP_*) until SIGTERM/SIGINT."""

from __future__ import annotations

from loop_svc.app import build_server
from loop_svc.settings import LoopSettings
from services.runtime.server import run_service

if __name__ == "__main__":
    run_service("loop", LoopSettings(), build_server)
