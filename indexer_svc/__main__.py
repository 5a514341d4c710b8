"""`python -m indexer_svc`: serve atc.indexer.v1.IndexerService
(settings: ATC_INDEXER_*) until SIGTERM/SIGINT."""

from __future__ import annotations

from indexer_svc.app import build_server
from indexer_svc.settings import IndexerSettings
from services.runtime.server import run_service

if __name__ == "__main__":
    run_service("indexer", IndexerSettings(), build_server)
