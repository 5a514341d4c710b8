"""What indexer_svc loads at start besides endpoints: the services file and the
knowledge folder (both idempotent: unchanged content is not embedded again)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from indexer_svc.catalogue import Catalogue
from indexer_svc.knowledge.chunking import Chunk
from indexer_svc.knowledge.ingest import IngestReport, ingest_paths, stored_chunk_hash
from indexer_svc.knowledge.sources import LanguageGuesser
from indexer_svc.settings import IndexerSettings
from services.errors import InvalidArgument, NotFound

log = logging.getLogger(__name__)


class CatalogueKnowledgeStore:
    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue

    async def stored_hash(self, document_id: str) -> str | None:
        try:
            d = await self._catalogue.get("knowledge", document_id)
        except NotFound:
            return None
        return stored_chunk_hash(d)

    async def put(self, chunk: Chunk) -> None:
        await self._catalogue.index_knowledge_document(
            {
                "document_id": chunk.document_id,
                "title": chunk.title,
                "section": chunk.section,
                "text": chunk.text,
                "source_url": chunk.source_url,
                "language": chunk.language,
                "keywords": list(chunk.keywords),
            }
        )

    async def delete(self, document_id: str) -> bool:
        return await self._catalogue.delete("knowledge", document_id)


def read_services_file(path: str | Path, base_url: str = "") -> list[dict[str, Any]]:
    """A JSON list of service bodies; "{base_url}" in a url is replaced like in the catalogue file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidArgument(f"cannot read services file {path}: {exc}", field="services_file") from exc
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InvalidArgument(f"{path} must hold a JSON list of service objects", field="services_file")
    base = base_url.rstrip("/")
    return [
        {**body, "url": body["url"].replace("{base_url}", base)} if isinstance(body.get("url"), str) else body
        for body in data
    ]


async def load_services(catalogue: Catalogue, bodies: list[dict[str, Any]]) -> int:
    for body in bodies:
        await catalogue.index_service(body)
    return len(bodies)


async def load_knowledge(catalogue: Catalogue, folder: str | Path, detector: LanguageGuesser) -> IngestReport:
    report = await ingest_paths([Path(folder)], CatalogueKnowledgeStore(catalogue), detector)
    for failed in report.failed:
        log.warning("knowledge %s not ingested: %s", failed.path, failed.error)
    log.info("knowledge %s: %s", folder, report.summary().splitlines()[0])
    return report


async def load_startup_content(catalogue: Catalogue, settings: IndexerSettings) -> None:
    if settings.services_file:
        count = await load_services(
            catalogue, read_services_file(settings.services_file, settings.catalogue_base_url)
        )
        log.info("services %s: %d indexed", settings.services_file, count)
    if settings.knowledge_dir:
        from services.language import LanguageDetector

        await load_knowledge(catalogue, settings.knowledge_dir, LanguageDetector())
