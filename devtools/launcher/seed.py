"""`atc seed`: index a catalogue file, registered services and knowledge into a running
indexer over gRPC — the Kubernetes seeding Job runs exactly this (`atc seed --demo`: the
demo's endpoints, services and knowledge base, from the installed package).

Endpoint bodies are the seed's indexing body (a JSON list, `{base_url}` in URLs
replaced by --base-url); knowledge documents are a JSON list of
atc.common.v1.KnowledgeDocument in camelCase. Re-running is idempotent: the
indexer replaces an entry with the same id.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from google.protobuf import json_format

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from indexer_svc.catalogue_file import read_catalogue_file
from services.clients import IndexerClient
from services.errors import InvalidArgument, MeshError
from services.runtime.channels import open_channel


def _knowledge(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidArgument(f"cannot read knowledge file {path}: {exc}", field="knowledge") from exc
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InvalidArgument(f"{path} must hold a JSON list of documents", field="knowledge")
    return data


def _parse(body: dict[str, Any], message: Any, where: str) -> Any:
    try:
        return json_format.ParseDict(body, message)
    except json_format.ParseError as exc:
        raise InvalidArgument(f"{where}: {str(exc).splitlines()[0]}", field=where) from exc


async def seed(
    target: str,
    *,
    endpoints_file: Path | None,
    knowledge_file: Path | None = None,
    services_file: Path | None = None,
    knowledge_dir: Path | None = None,
    base_url: str = "",
    skip_enrichment: bool = False,
    timeout: float = 120.0,
    wait_seconds: float = 300.0,
    out: TextIO | None = None,
) -> int:
    """Index everything; the number of entries indexed. Waits (up to `wait_seconds`)
    for the indexer to come up, since a Job may start before it. `services_file` (service
    bodies, as `atc index` reads them) and `knowledge_dir` (Markdown/HTML/text, as `atc
    ingest` reads them) go in after the endpoints; a failure in either is an error."""
    endpoints = [
        _parse(body, catalogue_pb2.Endpoint(), f"endpoints[{i}]")
        for i, body in enumerate(read_catalogue_file(endpoints_file, base_url) if endpoints_file else [])
    ]
    documents = [
        _parse(body, catalogue_pb2.KnowledgeDocument(), f"knowledge[{i}]")
        for i, body in enumerate(_knowledge(knowledge_file) if knowledge_file else [])
    ]
    out = out or sys.stdout
    channel = open_channel(target)
    try:
        await asyncio.wait_for(channel.channel_ready(), wait_seconds)
        client = IndexerClient(channel)
        for endpoint in endpoints:
            response = await client.index_endpoint(endpoint, skip_enrichment=skip_enrichment, timeout=timeout)
            verb = "replaced" if response.replaced else "indexed"
            print(f"{verb} endpoint {endpoint.name} ({endpoint.endpoint_id})", file=out, flush=True)
        stub = indexer_pb2_grpc.IndexerServiceStub(channel)
        for document in documents:
            await stub.IndexKnowledgeDocument(
                indexer_pb2.IndexKnowledgeDocumentRequest(document=document), timeout=timeout
            )
            print(f"indexed document {document.title or document.document_id}", file=out, flush=True)
    finally:
        await channel.close(None)
    count = len(endpoints) + len(documents)
    if services_file is not None:
        from devtools.catalogue_tools.index_command import run_index

        code, services = await run_index([services_file], target, base_url=base_url, timeout=timeout, out=out)
        if code != 0:
            raise InvalidArgument(
                f"services from {services_file} failed: {services.failed}", field="services"
            )
        count += len(services.indexed) + len(services.unchanged)
    if knowledge_dir is not None:
        from devtools.catalogue_tools.ingest_command import run_ingest

        code, report = await run_ingest([knowledge_dir], target, timeout=timeout, out=out)
        if code != 0:
            raise InvalidArgument(
                f"knowledge from {knowledge_dir} failed: {report.failed}", field="knowledge"
            )
        count += 1
    return count


def run_seed(argv_target: str, options: dict[str, Any], err: TextIO | None = None) -> int:
    err = err or sys.stderr
    try:
        count = asyncio.run(seed(argv_target, **options))
    except MeshError as exc:
        print(f"atc seed: {exc.message}", file=err)
        return 1
    except TimeoutError:
        print(f"atc seed: the indexer at {argv_target} did not become reachable in time", file=err)
        return 1
    print(f"atc seed: {count} entries in the catalogue at {argv_target}", file=err)
    return 0


__all__: Sequence[str] = ["run_seed", "seed"]
