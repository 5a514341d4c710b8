"""`atc import-openapi SPEC`: index every operation of an OpenAPI 3 spec as an endpoint."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TextIO

from atc.indexer.v1 import indexer_pb2_grpc
from devtools.catalogue_tools.index_command import Body, CatalogueIndexer, IndexReport, index_bodies
from devtools.catalogue_tools.openapi import SpecError, convert, load_spec
from devtools.catalogue_tools.progress import ProgressBar
from services.runtime.channels import open_channel


async def _index(
    bodies: list[Body], target: str, concurrency: int, timeout: float, err: TextIO
) -> IndexReport:
    channel = open_channel(target)
    try:
        indexer = CatalogueIndexer(indexer_pb2_grpc.IndexerServiceStub(channel), timeout)
        return await index_bodies(
            bodies, indexer, concurrency=concurrency, progress=ProgressBar(err, "index")
        )
    finally:
        await channel.close()


async def run_import_openapi(
    spec_path: Path,
    target: str,
    *,
    base_url: str = "",
    output: Path | None = None,
    concurrency: int = 4,
    timeout: float = 60.0,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """With `output`, writes the endpoint bodies there instead of indexing them."""
    try:
        text = await asyncio.to_thread(spec_path.read_text, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"atc import-openapi: cannot read {spec_path}: {exc}", file=err)
        return 1
    try:
        conversion = convert(load_spec(text), base_url=base_url)
    except SpecError as exc:
        print(f"atc import-openapi: {spec_path} is not a usable spec: {exc}", file=err)
        return 1
    print(conversion.summary(), file=out)
    if not conversion.endpoints:
        return 1
    if output is not None:
        body = json.dumps(conversion.endpoints, indent=2, ensure_ascii=False) + "\n"
        await asyncio.to_thread(output.write_text, body, encoding="utf-8")
        print(f"wrote {len(conversion.endpoints)} endpoint bodies to {output}", file=out)
        return 0
    bodies = [Body(f"{e['method']} {e['url']}", e) for e in conversion.endpoints]
    report = await _index(bodies, target, concurrency, timeout, err)
    print(report.summary(), file=out)
    return 1 if report.failed else 0
