"""`atc index FILE|DIR…`: endpoints and services in the seed's indexing body format.

A file holds one body or a JSON list of bodies; a folder means every *.json in it. A
body with an `endpointId` is an endpoint, one with only a `serviceId` a service. Bodies
are indexed concurrently (bounded); one equal to what the catalogue already holds is
reported unchanged and not sent (no enrichment, no embedding).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from atc.common.v1 import catalogue_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from devtools.catalogue_tools.progress import ProgressBar
from services.runtime.channels import open_channel

BASE_URL_PLACEHOLDER = "{base_url}"


@dataclass(frozen=True)
class Body:
    origin: str  # "file.json" or "file.json[3]"
    data: dict[str, Any]

    @property
    def kind(self) -> str:
        return "endpoint" if self.data.get("endpointId") or self.data.get("endpoint_id") else "service"


@dataclass
class IndexReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"{len(self.indexed)} indexed, {len(self.unchanged)} unchanged, {len(self.failed)} failed"]
        lines += [f"  failed: {origin}: {reason}" for origin, reason in self.failed]
        return "\n".join(lines)

    def as_json(self) -> str:
        return json.dumps(
            {
                "indexed": len(self.indexed),
                "unchanged": len(self.unchanged),
                "failed": [{"item": o, "reason": r} for o, r in self.failed],
            },
            ensure_ascii=False,
        )


def read_bodies(paths: Sequence[Path], base_url: str = "") -> tuple[list[Body], list[tuple[str, str]]]:
    files: list[Path] = []
    problems: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.json"))
            if not found:
                problems.append((str(path), "no .json files in this folder"))
            files += found
        elif path.is_file():
            files.append(path)
        else:
            problems.append((str(path), "no such file or folder"))
    bodies: list[Body] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            problems.append((str(file), f"cannot read: {exc}"))
            continue
        except json.JSONDecodeError as exc:
            problems.append((str(file), f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"))
            continue
        items = data if isinstance(data, list) else [data]
        for position, item in enumerate(items):
            origin = f"{file}[{position}]" if isinstance(data, list) else str(file)
            if not isinstance(item, dict):
                problems.append((origin, "must be a JSON object (an endpoint or service body)"))
                continue
            url = item.get("url")
            if isinstance(url, str) and BASE_URL_PLACEHOLDER in url:
                if not base_url:
                    problems.append((origin, f"url uses {BASE_URL_PLACEHOLDER}; pass --base-url"))
                    continue
                item = {**item, "url": url.replace(BASE_URL_PLACEHOLDER, base_url.rstrip("/"))}
            bodies.append(Body(origin, item))
    return bodies, problems


def _parse(body: Body, message: Message) -> Message:
    return json_format.ParseDict(body.data, message, ignore_unknown_fields=True)


def _same(stored: Message, wanted: Message) -> bool:
    """Equal apart from a generated enriched_context the body did not supply."""
    stored = type(stored).FromString(stored.SerializeToString())
    if not getattr(wanted, "enriched_context", ""):
        stored.ClearField("enriched_context")  # type: ignore[arg-type]
    return stored == wanted


class CatalogueIndexer:
    def __init__(self, stub: indexer_pb2_grpc.IndexerServiceStub, timeout: float) -> None:
        self._stub = stub
        self._timeout = timeout

    async def index(self, body: Body) -> bool:
        """True when (re)indexed, False when unchanged. Raises AioRpcError or ParseError."""
        if body.kind == "endpoint":
            endpoint = _parse(body, catalogue_pb2.Endpoint())
            assert isinstance(endpoint, catalogue_pb2.Endpoint)
            stored = await self._stored(
                self._stub.GetEndpoint, indexer_pb2.GetEndpointRequest, endpoint.endpoint_id
            )
            if stored is not None and _same(stored.endpoint, endpoint):
                return False
            await self._stub.IndexEndpoint(
                indexer_pb2.IndexEndpointRequest(endpoint=endpoint), timeout=self._timeout
            )
            return True
        service = _parse(body, catalogue_pb2.Service())
        assert isinstance(service, catalogue_pb2.Service)
        stored = await self._stored(self._stub.GetService, indexer_pb2.GetServiceRequest, service.service_id)
        if stored is not None and _same(stored.service, service):
            return False
        await self._stub.IndexService(indexer_pb2.IndexServiceRequest(service=service), timeout=self._timeout)
        return True

    async def _stored(self, method: Any, request_type: Any, entity_id: str) -> Any:
        if not entity_id:
            return None
        field_name = "endpoint_id" if request_type is indexer_pb2.GetEndpointRequest else "service_id"
        try:
            return await method(request_type(**{field_name: entity_id}), timeout=self._timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise


def _reason(exc: Exception) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {exc.details()}"
    return str(exc) or type(exc).__name__


async def index_bodies(
    bodies: Sequence[Body], indexer: CatalogueIndexer, *, concurrency: int, progress: ProgressBar | None
) -> IndexReport:
    report = IndexReport()
    limit = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(body: Body) -> None:
        nonlocal done
        async with limit:
            try:
                changed = await indexer.index(body)
            except (grpc.aio.AioRpcError, json_format.ParseError) as exc:
                report.failed.append((body.origin, _reason(exc)))
            else:
                (report.indexed if changed else report.unchanged).append(body.origin)
            done += 1
            if progress is not None:
                progress(done, len(bodies), body.origin)

    await asyncio.gather(*(one(body) for body in bodies))
    return report


async def run_index(
    paths: Sequence[Path],
    target: str,
    *,
    base_url: str = "",
    concurrency: int = 4,
    timeout: float = 60.0,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    as_json: bool = False,
) -> tuple[int, IndexReport]:
    bodies, problems = read_bodies(paths, base_url)
    channel = open_channel(target)
    try:
        indexer = CatalogueIndexer(indexer_pb2_grpc.IndexerServiceStub(channel), timeout)
        report = await index_bodies(
            bodies, indexer, concurrency=concurrency, progress=ProgressBar(err, "index") if bodies else None
        )
    finally:
        await channel.close()
    report.failed = problems + report.failed
    print(report.as_json() if as_json else report.summary(), file=out)
    return (1 if report.failed else 0), report
