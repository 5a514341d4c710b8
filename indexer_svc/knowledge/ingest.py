"""Ingesting source files into the knowledge collection, idempotently.

Each chunk is stored as one knowledge document with the id `<file slug>#<n>`. A chunk
whose content hash equals the stored one is left alone (no embedding); chunks a
shortened document no longer has are deleted. A file that cannot be read is reported
with its reason and the others are still ingested.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Protocol

from indexer_svc.knowledge.chunking import DEFAULT_MAX_CHARS, Chunk, chunk_document, chunk_id
from indexer_svc.knowledge.sources import LanguageGuesser, UnreadableSource, collect_files, read_source

# Bound on chunks looked for past the end of a shortened document.
MAX_STALE_PROBE = 10_000


class KnowledgeStore(Protocol):
    async def stored_hash(self, document_id: str) -> str | None:
        """Content hash of the stored chunk (as `stored_chunk_hash` computes it), or None."""
        ...

    async def put(self, chunk: Chunk) -> None: ...

    async def delete(self, document_id: str) -> bool: ...


def stored_chunk_hash(document: object) -> str:
    """The content hash of a stored knowledge document: the domain one or its proto
    message, both of which carry every field of Chunk."""
    values = {f.name: getattr(document, f.name) for f in fields(Chunk)}
    # A repeated proto field or a list is the chunk's tuple.
    values["keywords"] = tuple(values["keywords"])
    return Chunk(**values).content_hash


@dataclass
class FileReport:
    path: Path
    chunks: int = 0
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    error: str = ""


@dataclass
class IngestReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.error]

    @property
    def indexed(self) -> int:
        return sum(f.indexed for f in self.files)

    @property
    def unchanged(self) -> int:
        return sum(f.unchanged for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)

    def summary(self) -> str:
        ok = len(self.files) - len(self.failed)
        lines = [
            f"{ok} file(s) ingested: {self.indexed} passage(s) indexed, {self.unchanged} unchanged, "
            f"{self.removed} removed; {len(self.failed)} file(s) failed"
        ]
        lines += [f"  failed: {f.path}: {f.error}" for f in self.failed]
        return "\n".join(lines)

    def as_json(self) -> str:
        return json.dumps(
            {
                "files": len(self.files),
                "indexed": self.indexed,
                "unchanged": self.unchanged,
                "removed": self.removed,
                "failed": [{"path": str(f.path), "reason": f.error} for f in self.failed],
            },
            ensure_ascii=False,
        )


Progress = Callable[[int, int, str], None]


async def ingest_paths(
    paths: Sequence[Path],
    store: KnowledgeStore,
    detector: LanguageGuesser,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    progress: Progress | None = None,
) -> IngestReport:
    report = IngestReport()
    files, problems = collect_files(list(paths))
    report.files += [FileReport(path, error=reason) for path, reason in problems]
    slugs: dict[str, Path] = {}
    for position, path in enumerate(files, start=1):
        file_report = FileReport(path)
        report.files.append(file_report)
        try:
            # File reading, parsing and language detection stay off the event loop.
            document = await asyncio.to_thread(read_source, path, detector)
            if document.slug in slugs:
                raise UnreadableSource(f"same document name as {slugs[document.slug]}; rename one of them")
            slugs[document.slug] = path
            await _ingest_document(chunk_document(document, max_chars), document.slug, store, file_report)
        except UnreadableSource as exc:
            file_report.error = str(exc)
        if progress is not None:
            progress(position, len(files), path.name)
    return report


async def _ingest_document(chunks: list[Chunk], slug: str, store: KnowledgeStore, report: FileReport) -> None:
    report.chunks = len(chunks)
    for chunk in chunks:
        if await store.stored_hash(chunk.document_id) == chunk.content_hash:
            report.unchanged += 1
            continue
        await store.put(chunk)
        report.indexed += 1
    position = len(chunks)
    while position < MAX_STALE_PROBE and await store.delete(chunk_id(slug, position)):
        report.removed += 1
        position += 1
