"""`python -m classifier_svc`: serve atc.classifier.v1.ClassifierService
(settings: ATC_CLASSIFIER_*) until SIGTERM/SIGINT."""

from __future__ import annotations

from classifier_svc.app import build_server
from classifier_svc.settings import ClassifierSettings
from services.runtime.server import run_service

if __name__ == "__main__":
    run_service("classifier", ClassifierSettings(), build_server)
