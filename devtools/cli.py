"""The `atc` command.

atc up    [--host 127.0.0.1] [--port 8080] [--data-dir .atc]   the whole mesh, in the foreground
atc seed  --target HOST:PORT --demo | --endpoints FILE [--services FILE] [--knowledge-dir DIR]
                                                                 index a catalogue into an indexer
atc chat  [--target 127.0.0.1:50052] [--lang et]              a terminal chat with classifier_svc
atc ingest PATH… [--target 127.0.0.1:50051]                   knowledge files → knowledge collection
atc index FILE|DIR… [--target …] [--base-url URL]             endpoint/service bodies → catalogue
atc import-openapi SPEC [--target …] [--out FILE]             OpenAPI 3 operations → endpoints
atc calibrate --catalog DIR [--cases FILE] [--catalog DIR2] [--oos-recall R]   fit the routing profile
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from devtools.catalogue_tools.commands import (
    CATALOGUE_COMMANDS,
    add_catalogue_commands,
    run_catalogue_command,
)
from services.language import SUPPORTED, parse_lang


class _CasesOfCatalog(argparse.Action):
    """`--cases FILE` belongs to the `--catalog` given before it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        catalogs = getattr(namespace, "catalog", None) or []
        if not catalogs:
            parser.error("--cases needs a --catalog before it")
        by_catalog = dict(getattr(namespace, self.dest) or {})
        by_catalog.setdefault(catalogs[-1], []).append(values)
        setattr(namespace, self.dest, by_catalog)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atc", description="ATC Mesh: run it, talk to it.")
    commands = parser.add_subparsers(dest="command", required=True)

    up = commands.add_parser("up", help="start the whole mesh (separate processes) in the foreground")
    up.add_argument("--host", default="127.0.0.1", help="Envoy's public host (default 127.0.0.1)")
    up.add_argument(
        "--port", type=int, default=8080, help="Envoy's public port, in front of the edge (default 8080)"
    )
    up.add_argument(
        "--admin-port", type=int, default=None, help="edge admin port on 127.0.0.1 (default: a free one)"
    )
    up.add_argument(
        "--data-dir", type=Path, default=Path(".atc"), help="index, logs and caches (default .atc)"
    )
    up.add_argument(
        "--fixed-ports",
        action="store_true",
        help="internal services on their default ports (indexer 50051, classifier 50052, loop 50053, "
        "caller 50054, demo APIs 8090; through Envoy 9051-9054) instead of free ones",
    )
    up.add_argument(
        "--ready-timeout", type=float, default=60.0, help="seconds each service may take to be ready"
    )
    up.add_argument("--log-level", default="INFO")
    up.add_argument(
        "--max-restarts",
        type=int,
        default=5,
        help="restarts of one crashed child within 5 minutes before atc up gives up (default 5)",
    )

    chat = commands.add_parser("chat", help="chat with classifier_svc from the terminal")
    chat.add_argument("--target", default="127.0.0.1:50052", help="classifier_svc address")
    chat.add_argument(
        "--lang", choices=SUPPORTED, default=None, help="language of the turns (default: detect)"
    )
    chat.add_argument("--timeout", type=float, default=120.0, help="seconds one turn may take")
    chat.add_argument("-v", "--verbose", action="store_true", help="show progress, calls and outcomes")

    seed = commands.add_parser("seed", help="index a catalogue (and knowledge) into a running indexer")
    seed.add_argument("--target", default="127.0.0.1:50051", help="indexer_svc address")
    seed.add_argument("--endpoints", type=Path, default=None, help="catalogue file (JSON list of endpoints)")
    seed.add_argument("--knowledge", type=Path, default=None, help="JSON list of knowledge documents")
    seed.add_argument("--services", type=Path, default=None, help="service bodies (as `atc index` reads)")
    seed.add_argument(
        "--knowledge-dir", type=Path, default=None, help="Markdown/HTML/text files (as `atc ingest` reads)"
    )
    seed.add_argument(
        "--demo",
        action="store_true",
        help="the demo's endpoints, services and knowledge base (from the installed package)",
    )
    seed.add_argument("--base-url", default="", help="replaces {base_url} in the catalogue's URLs")
    seed.add_argument("--skip-enrichment", action="store_true", help="index without LLM enrichment")
    seed.add_argument("--wait", type=float, default=300.0, help="seconds to wait for the indexer")
    add_catalogue_commands(commands)
    calibrate = commands.add_parser("calibrate", help="fit the classifier's routing profile on eval folders")
    calibrate.add_argument(
        "--catalog",
        type=Path,
        action="append",
        required=True,
        help="folder with endpoints.json (or catalogue.json) + routing_cases.jsonl",
    )
    calibrate.add_argument(
        "--cases",
        type=Path,
        action=_CasesOfCatalog,
        default={},
        help="case file for the --catalog before it (instead of its routing_cases.jsonl; repeatable): "
        "routing cases, or knowledge questions ({'questions': [...]}) that are out of its scope",
    )
    calibrate.add_argument(
        "--no-curated",
        action="store_true",
        help="leave out the curated negatives (devtools/calibration_negatives.jsonl)",
    )
    calibrate.add_argument(
        "--oos-recall", type=float, default=0.7, help="share of out-of-scope cases to reject"
    )
    calibrate.add_argument(
        "--out", type=Path, default=None, help="profile file (default: the shipped classifier_svc profile)"
    )
    calibrate.add_argument(
        "--no-guard",
        action="store_true",
        help="keep the guard's thresholds (skip fitting its embedding check)",
    )
    return parser


def _seed(args: argparse.Namespace) -> int:
    from devtools.launcher.seed import run_seed

    if args.demo:
        from devtools.launcher.mesh import CATALOGUE_FILE, KNOWLEDGE_DIR, SERVICES_FILE

        args.endpoints = args.endpoints or CATALOGUE_FILE
        args.services = args.services or SERVICES_FILE
        args.knowledge_dir = args.knowledge_dir or KNOWLEDGE_DIR
    if not any((args.endpoints, args.knowledge, args.services, args.knowledge_dir)):
        print("atc seed: give --demo, or --endpoints/--services/--knowledge/--knowledge-dir", file=sys.stderr)
        return 2
    options = {
        "endpoints_file": args.endpoints,
        "knowledge_file": args.knowledge,
        "services_file": args.services,
        "knowledge_dir": args.knowledge_dir,
        "base_url": args.base_url,
        "skip_enrichment": args.skip_enrichment,
        "wait_seconds": args.wait,
    }
    return run_seed(args.target, options)


def _up(args: argparse.Namespace) -> int:
    from devtools.launcher.foreground import run_foreground
    from devtools.launcher.mesh import MeshConfigError, MeshOptions, plan_mesh, redis_url_from_env
    from devtools.supervisor import RestartPolicy, Supervisor
    from services.runtime.listen import PortTaken

    options = MeshOptions(
        host=args.host,
        port=args.port,
        data_dir=args.data_dir,
        fixed_ports=args.fixed_ports,
        ready_timeout=args.ready_timeout,
        log_level=args.log_level,
        redis_url=redis_url_from_env(),
        admin_port=args.admin_port,
    )
    try:
        plan = plan_mesh(options)
    except PortTaken as exc:
        print(f"atc: {exc}; choose another with --port", file=sys.stderr)
        return 1
    except MeshConfigError as exc:
        print(f"atc: {exc}", file=sys.stderr)
        return 1

    out = sys.stdout
    names = ", ".join(spec.name for spec in plan.specs)
    print(f"atc: starting {names} (logs in {plan.log_dir}/)", file=out, flush=True)

    def announce() -> None:
        print(f"ATC Mesh is up: {plan.public_url}", file=out)
        print(f"  logs: {plan.log_dir}/<service>.log", file=out)
        print(f"  admin: {plan.admin_url}  (Authorization: Bearer {plan.admin_token})", file=out)
        print(f"  envoy admin: {plan.envoy_admin_url}", file=out)
        for name, address in plan.addresses.items():
            if name == "edge":
                print(f"  edge (behind Envoy): {address}", file=out)
            elif name != "envoy":
                print(f"  {name}: {address}", file=out)
        print("  Ctrl-C stops everything.", file=out, flush=True)

    supervisor = Supervisor(plan.specs, plan.log_dir, restart=RestartPolicy(max_restarts=args.max_restarts))
    return asyncio.run(run_foreground(supervisor, out=out, on_up=announce))


def _chat(args: argparse.Namespace) -> int:
    from devtools.launcher.chat import run_chat

    try:
        return asyncio.run(
            run_chat(
                args.target,
                stdin=sys.stdin,
                out=sys.stdout,
                err=sys.stderr,
                language=parse_lang(args.lang),
                timeout=args.timeout,
                verbose=args.verbose,
            )
        )
    except KeyboardInterrupt:
        return 0


def _calibrate(args: argparse.Namespace) -> int:
    from classifier_svc.calibration import DEFAULT_PROFILE_PATH
    from devtools.calibrate import load_folder, missing_files, run

    for folder in args.catalog:
        if problem := missing_files(folder, args.cases.get(folder, ())):
            print(f"atc calibrate: {problem}", file=sys.stderr)
            return 2
    if not 0.0 < args.oos_recall < 1.0:
        print("atc calibrate: --oos-recall must be between 0 and 1", file=sys.stderr)
        return 2
    folders = [load_folder(folder, args.cases.get(folder, ())) for folder in args.catalog]
    profile = asyncio.run(
        run(
            folders,
            args.oos_recall,
            args.out or DEFAULT_PROFILE_PATH,
            guard=not args.no_guard,
            curated=not args.no_curated,
        )
    )
    print(profile.model_dump_json(indent=2))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "up":
        return _up(args)
    if args.command == "seed":
        return _seed(args)
    if args.command in CATALOGUE_COMMANDS:
        return run_catalogue_command(args)
    if args.command == "calibrate":
        return _calibrate(args)
    return _chat(args)


if __name__ == "__main__":
    sys.exit(main())
