"""The local mesh's footprint: `atc up` started twice on one data folder, each time until
one turn is served, then the memory of every process it runs, then a clean stop.

    .venv/bin/python -m bench.footprint

The first start is cold (a fresh folder: the catalogue is embedded from scratch); the second
is warm (the index, Redis's file and DSPy's cache are on disk, the OS has the venv's files
cached). `warm_start_s` is the second start's time from launch to a served turn.
`idle_rss_mib_total` sums the resident memory of every process of the mesh (`atc up` itself,
the demo APIs, every service, Redis/valkey, Envoy) after a start and one turn: shared pages
(libraries, the venv's mapped files) count once per process, as `ps` shows them;
`idle_pss_mib_total` splits shared pages among their processes (what the mesh costs the
machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from devtools.launcher.subprocess_mesh import MeshProcess, atc_up
from devtools.redis_server import free_port

QUESTION = "What are the public holidays in Estonia?"
PACING_ENV = "ATC_CALLER_STREAM_CHUNK_DELAY_SECONDS"


@dataclass(frozen=True)
class ProcessMemory:
    pid: int
    # The command's module (`python -m NAME`) or its program's file name; "atc up" for the launcher.
    name: str
    rss_kib: int
    # Proportional set size: shared pages divided among the processes that map them.
    pss_kib: int | None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


def _kib(text: str, key: str) -> int | None:
    line = next((line for line in text.splitlines() if line.startswith(key)), None)
    return int(line.split()[1]) if line else None


def process_tree(root_pid: int) -> list[ProcessMemory]:
    """`root_pid` and every process under it, with their memory (from /proc)."""
    found: list[ProcessMemory] = []
    pending = [root_pid]
    while pending:
        pid = pending.pop()
        pending += _children(pid)
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue  # gone meanwhile
        try:
            pss = _kib(Path(f"/proc/{pid}/smaps_rollup").read_text(), "Pss:")
        except OSError:
            pss = None
        args = [a.decode(errors="replace") for a in cmdline if a]
        name = args[args.index("-m") + 1] if "-m" in args else Path(args[0]).name if args else str(pid)
        if name == "devtools.cli":
            name = "atc up"
        found.append(ProcessMemory(pid, name, _kib(status, "VmRSS:") or 0, pss))
    return found


def mib(kib: float) -> float:
    return round(kib / 1024, 1)


async def served_turn(url: str) -> float:
    """One turn of a new chat through Envoy and the edge; its seconds. (A chat of an earlier
    start is owned by the token that start issued: the second start opens another.)"""
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        started = time.perf_counter()
        reply = await client.post("/v1/orchestrate", json={"chatId": str(uuid.uuid4()), "message": QUESTION})
        reply.raise_for_status()
        return time.perf_counter() - started


def memory_row(mesh: MeshProcess) -> dict[str, Any]:
    processes = process_tree(mesh.process.pid)
    pss = [p.pss_kib for p in processes]
    return {
        "rss_mib_total": mib(sum(p.rss_kib for p in processes)),
        "pss_mib_total": mib(sum(p for p in pss if p is not None)) if None not in pss else None,
        "processes": len(processes),
        "rss_mib": {p.name: mib(p.rss_kib) for p in sorted(processes, key=lambda p: -p.rss_kib)},
    }


async def one_start(data_dir: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """`atc up` on `data_dir` until one turn is served; the memory then; a clean stop."""
    started = time.perf_counter()
    async with atc_up(free_port(), data_dir, env=env) as mesh:
        up = time.perf_counter() - started
        first_turn = await served_turn(mesh.url)
        start_to_turn = time.perf_counter() - started
        memory = memory_row(mesh)
        stop_started = time.perf_counter()
        exit_code = await mesh.stop()
        stopped = time.perf_counter() - stop_started
    return {
        "start_to_url_s": round(up, 2),
        "first_turn_ms": round(first_turn * 1000),
        "start_to_turn_s": round(start_to_turn, 2),
        "stop_s": round(stopped, 2),
        "exit_code": exit_code,
        **memory,
    }


async def run(pacing_seconds: float = 0.0) -> dict[str, Any]:
    """Both starts with the caller's word pacing at `pacing_seconds` (0, as in the mesh
    bench: ≈ 2 s of pauses would be most of the first turn)."""
    env = {PACING_ENV: str(pacing_seconds)}
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder) / "up"
        cold = await one_start(data_dir, env)
        warm = await one_start(data_dir, env)
    for name, row in (("cold", cold), ("warm", warm)):
        print(f"\n{name} start of atc up")
        print(f"  launch to URL:         {row['start_to_url_s']:.1f} s")
        print(f"  first turn:            {row['first_turn_ms']} ms")
        print(f"  launch to served turn: {row['start_to_turn_s']:.1f} s")
        print(f"  clean stop on SIGTERM: {row['stop_s']:.1f} s (exit code {row['exit_code']})")
        total = f"{row['rss_mib_total']} MiB (PSS {row['pss_mib_total']} MiB)"
        print(f"  RSS of its {row['processes']} processes: {total}")
        print("  RSS MiB per process:", json.dumps(row["rss_mib"]))
    return {
        "idle_rss_mib_total": cold["rss_mib_total"],
        "idle_rss_mib_total_warm": warm["rss_mib_total"],
        "idle_pss_mib_total": cold["pss_mib_total"],
        "warm_start_s": warm["start_to_turn_s"],
        "cold_start_s": cold["start_to_turn_s"],
        "cold": cold,
        "warm": warm,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run())))
