"""`atc ingest PATH…`: Markdown, HTML and text files into the knowledge collection."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from atc.indexer.v1 import indexer_pb2_grpc
from devtools.catalogue_tools.knowledge_store import IndexerKnowledgeStore
from devtools.catalogue_tools.progress import ProgressBar
from indexer_svc.knowledge.ingest import IngestReport, ingest_paths
from services.language import LanguageDetector
from services.runtime.channels import open_channel


async def run_ingest(
    paths: Sequence[Path],
    target: str,
    *,
    timeout: float = 60.0,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    as_json: bool = False,
) -> tuple[int, IngestReport]:
    """Exit code 0 when every file was ingested, 1 when some failed (the rest are in)."""
    channel = open_channel(target)
    try:
        store = IndexerKnowledgeStore(indexer_pb2_grpc.IndexerServiceStub(channel), timeout)
        report = await ingest_paths(paths, store, LanguageDetector(), progress=ProgressBar(err, "ingest"))
    finally:
        await channel.close()
    print(report.as_json() if as_json else report.summary(), file=out)
    return (1 if report.failed else 0), report
