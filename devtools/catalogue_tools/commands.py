"""The catalogue subcommands of `atc` (argument parsing and dispatch)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

CATALOGUE_COMMANDS = frozenset({"ingest", "index", "import-openapi"})
DEFAULT_INDEXER = "127.0.0.1:50051"


def add_catalogue_commands(commands: Any) -> None:
    ingest = commands.add_parser(
        "ingest", help="ingest Markdown, HTML and text files into the knowledge base (idempotent)"
    )
    ingest.add_argument("paths", nargs="+", type=Path, help="files or folders")
    ingest.add_argument("--target", default=DEFAULT_INDEXER, help="indexer_svc address")
    ingest.add_argument("--json", action="store_true", help="print the summary as JSON")

    index = commands.add_parser("index", help="index endpoint and service bodies (the seed's format)")
    index.add_argument("paths", nargs="+", type=Path, help="JSON files (one body or a list) or folders")
    index.add_argument("--target", default=DEFAULT_INDEXER, help="indexer_svc address")
    index.add_argument("--base-url", default="", help='replaces "{base_url}" in URLs')
    index.add_argument("--concurrency", type=int, default=4, help="bodies indexed at once (default 4)")
    index.add_argument("--json", action="store_true", help="print the summary as JSON")

    openapi = commands.add_parser("import-openapi", help="index each OpenAPI 3 operation as an endpoint")
    openapi.add_argument("spec", type=Path, help="OpenAPI 3 spec (JSON or YAML)")
    openapi.add_argument("--target", default=DEFAULT_INDEXER, help="indexer_svc address")
    openapi.add_argument("--base-url", default="", help="server URL (default: the spec's first server)")
    openapi.add_argument(
        "--out", type=Path, default=None, help="write the endpoint bodies here, do not index"
    )
    openapi.add_argument("--concurrency", type=int, default=4)


def run_catalogue_command(args: argparse.Namespace) -> int:
    from devtools.catalogue_tools.index_command import run_index
    from devtools.catalogue_tools.ingest_command import run_ingest
    from devtools.catalogue_tools.openapi_command import run_import_openapi

    if args.command == "ingest":
        import grpc

        try:
            code, _ = asyncio.run(run_ingest(args.paths, args.target, as_json=args.json))
        except grpc.aio.AioRpcError as exc:
            print(
                f"atc ingest: indexer at {args.target} failed: {exc.code().name}: {exc.details()}",
                file=sys.stderr,
            )
            return 1
        return code
    if args.command == "index":
        code, _ = asyncio.run(
            run_index(
                args.paths,
                args.target,
                base_url=args.base_url,
                concurrency=args.concurrency,
                as_json=args.json,
            )
        )
        return code
    return asyncio.run(
        run_import_openapi(
            args.spec, args.target, base_url=args.base_url, output=args.out, concurrency=args.concurrency
        )
    )
