"""The `atc` command.

atc up    [--host 127.0.0.1] [--port 8080] [--data-dir .atc]   the whole mesh, in the foreground
atc chat  [--target 127.0.0.1:50052] [--lang et]              a terminal chat with classifier_svc
atc calibrate --catalog DIR [--catalog DIR2] [--oos-recall 0.7] [--out FILE]   fit the routing profile
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from services.language import SUPPORTED, parse_lang


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atc", description="ATC Mesh: run it, talk to it.")
    commands = parser.add_subparsers(dest="command", required=True)

    up = commands.add_parser("up", help="start the whole mesh (separate processes) in the foreground")
    up.add_argument("--host", default="127.0.0.1", help="edge host (default 127.0.0.1)")
    up.add_argument("--port", type=int, default=8080, help="edge port (default 8080)")
    up.add_argument(
        "--data-dir", type=Path, default=Path(".atc"), help="index, logs and caches (default .atc)"
    )
    up.add_argument(
        "--fixed-ports",
        action="store_true",
        help="internal services on their default ports (indexer 50051, classifier 50052, loop 50053, "
        "caller 50054, demo APIs 8090) instead of free ones",
    )
    up.add_argument(
        "--ready-timeout", type=float, default=60.0, help="seconds each service may take to be ready"
    )
    up.add_argument("--log-level", default="INFO")

    chat = commands.add_parser("chat", help="chat with classifier_svc from the terminal")
    chat.add_argument("--target", default="127.0.0.1:50052", help="classifier_svc address")
    chat.add_argument(
        "--lang", choices=SUPPORTED, default=None, help="language of the turns (default: detect)"
    )
    chat.add_argument("--timeout", type=float, default=120.0, help="seconds one turn may take")
    chat.add_argument("-v", "--verbose", action="store_true", help="show progress, calls and outcomes")

    calibrate = commands.add_parser("calibrate", help="fit the classifier's routing profile on eval folders")
    calibrate.add_argument(
        "--catalog",
        type=Path,
        action="append",
        required=True,
        help="folder with endpoints.json + routing_cases.jsonl",
    )
    calibrate.add_argument(
        "--oos-recall", type=float, default=0.7, help="share of out-of-scope cases to reject"
    )
    calibrate.add_argument(
        "--out", type=Path, default=None, help="profile file (default: the shipped classifier_svc profile)"
    )
    return parser


def _up(args: argparse.Namespace) -> int:
    from services.launcher.foreground import run_foreground
    from services.launcher.mesh import MeshConfigError, MeshOptions, plan_mesh, redis_url_from_env
    from services.runtime.listen import PortTaken
    from services.supervisor import Supervisor

    options = MeshOptions(
        host=args.host,
        port=args.port,
        data_dir=args.data_dir,
        fixed_ports=args.fixed_ports,
        ready_timeout=args.ready_timeout,
        log_level=args.log_level,
        redis_url=redis_url_from_env(),
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
        print(f"ATC Mesh is up: {plan.edge_url}", file=out)
        print(f"  logs: {plan.log_dir}/<service>.log", file=out)
        for name, address in plan.addresses.items():
            if name != "edge":
                print(f"  {name}: {address}", file=out)
        print("  Ctrl-C stops everything.", file=out, flush=True)

    supervisor = Supervisor(plan.specs, plan.log_dir)
    return asyncio.run(run_foreground(supervisor, out=out, on_up=announce))


def _chat(args: argparse.Namespace) -> int:
    from services.launcher.chat import run_chat

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
    from services.calibrate import run

    for folder in args.catalog:
        if not (folder / "endpoints.json").is_file() or not (folder / "routing_cases.jsonl").is_file():
            print(f"atc calibrate: {folder} needs endpoints.json and routing_cases.jsonl", file=sys.stderr)
            return 2
    if not 0.0 < args.oos_recall < 1.0:
        print("atc calibrate: --oos-recall must be between 0 and 1", file=sys.stderr)
        return 2
    profile = asyncio.run(run(args.catalog, args.oos_recall, args.out or DEFAULT_PROFILE_PATH))
    print(profile.model_dump_json(indent=2))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "up":
        return _up(args)
    if args.command == "calibrate":
        return _calibrate(args)
    return _chat(args)


if __name__ == "__main__":
    sys.exit(main())
