"""`atc up`: fail fast on a taken port, the process plan, and the foreground loop
(driven in a real subprocess with tiny children, since the real services are
started by the end-to-end test)."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from pathlib import Path

import pytest

from devtools.launcher.mesh import MeshOptions, plan_mesh
from devtools.redis_server import free_port

DRIVER = r"""
import asyncio, sys
from pathlib import Path
from devtools.launcher.foreground import run_foreground
from devtools.supervisor import ChildSpec, Supervisor, http_ready
script, record, logs = sys.argv[1:4]
specs = []
for arg in sys.argv[4:]:
    name, port, mode = arg.split(":")
    specs.append(ChildSpec(name=name, argv=[sys.executable, script, name, port, record, mode],
                           ready=http_ready(f"http://127.0.0.1:{port}/"), address=f"port {port}"))
up = lambda: print("UP", flush=True)
sys.exit(asyncio.run(run_foreground(Supervisor(specs, Path(logs)), out=sys.stdout, on_up=up)))
"""


async def test_up_fails_fast_naming_host_and_port_when_the_edge_port_is_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "devtools.cli",
            "up",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "atc"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert f"127.0.0.1:{port}" in stderr.decode()
    assert "already in use" in stderr.decode()
    assert "Traceback" not in stderr.decode()
    assert b"ATC Mesh is up" not in stdout
    assert not (tmp_path / "atc" / "logs").exists()  # nothing was started


async def test_edge_alone_fails_with_a_clear_message_on_a_taken_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "edge_svc",
            env={**__import__("os").environ, "ATC_EDGE_PORT": str(port)},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in stderr.decode()
    assert "Traceback" not in stderr.decode()


def test_plan_wires_every_service_to_its_neighbours(tmp_path: Path) -> None:
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    edge_port = free_port()
    plan = plan_mesh(MeshOptions(port=edge_port, data_dir=tmp_path / "atc", catalogue_file=catalogue))
    specs = {spec.name: spec for spec in plan.specs}
    assert list(specs) == ["redis", "demo_apis", "indexer", "caller", "loop", "classifier", "edge", "envoy"]
    # The URL to open is Envoy's; the edge is behind it on an internal port.
    assert plan.public_url == f"http://127.0.0.1:{edge_port}/"
    assert plan.edge_url != plan.public_url
    redis_url = specs["redis"].address
    indexer, caller, loop, classifier = (
        specs[n].address for n in ("indexer", "caller", "loop", "classifier")
    )
    assert specs["caller"].env["ATC_CALLER_REDIS_URL"] == redis_url
    assert specs["loop"].env["ATC_LOOP_REDIS_URL"] == redis_url
    assert specs["loop"].env["ATC_LOOP_CALLER_TARGET"] == caller
    assert specs["classifier"].env["ATC_CLASSIFIER_INDEXER_TARGET"] == indexer
    assert specs["classifier"].env["ATC_CLASSIFIER_LOOP_TARGET"] == loop
    assert specs["edge"].env["ATC_EDGE_CLASSIFIER_TARGET"] == classifier
    assert specs["edge"].env["ATC_EDGE_PORT"] != str(edge_port)
    assert specs["edge"].env["ATC_EDGE_HOST"] == "127.0.0.1"
    assert specs["indexer"].env["ATC_INDEXER_CATALOGUE_FILE"] == str(catalogue)
    assert specs["indexer"].env["ATC_INDEXER_CATALOGUE_BASE_URL"] == specs["demo_apis"].address
    assert specs["indexer"].env["ATC_INDEXER_DATA_DIR"] == str((tmp_path / "atc" / "index").resolve())
    assert specs["classifier"].argv[1:] == ["-m", "classifier_svc"]
    assert plan.log_dir == (tmp_path / "atc" / "logs").resolve()
    ports = [spec.address.rsplit(":", 1)[1].split("/")[0] for spec in plan.specs]
    assert len(set(ports)) == len(ports)


def test_a_mesh_pinned_to_a_day_keeps_envoy_on_the_real_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Envoy hangs at start under libfaketime; the Python services keep the faked day.
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    monkeypatch.setenv("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
    plan = plan_mesh(MeshOptions(port=free_port(), data_dir=tmp_path / "atc", catalogue_file=catalogue))
    specs = {spec.name: spec for spec in plan.specs}
    assert specs["envoy"].argv[:3] == ["env", "-u", "LD_PRELOAD"]
    assert specs["classifier"].argv[0] != "env"
    monkeypatch.delenv("LD_PRELOAD")
    plan = plan_mesh(MeshOptions(port=free_port(), data_dir=tmp_path / "atc", catalogue_file=catalogue))
    assert {spec.name: spec for spec in plan.specs}["envoy"].argv[0] != "env"


def test_plan_keeps_the_chat_and_mesh_secrets_across_restarts(tmp_path: Path) -> None:
    """`make run` after `make run`: the same chat-token secret (open chats keep their
    tokens) and mesh secret (owner assertions), made once in the data dir, owner-only."""
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    plans = [
        plan_mesh(MeshOptions(port=free_port(), data_dir=tmp_path / "atc", catalogue_file=catalogue))
        for _ in range(2)
    ]
    edges = [{s.name: s for s in plan.specs}["edge"].env for plan in plans]
    secret = edges[0]["ATC_EDGE_CHAT_TOKEN_SECRET"]
    assert len(secret) >= 32 and edges[1]["ATC_EDGE_CHAT_TOKEN_SECRET"] == secret
    assert edges[0]["ATC_EDGE_REDIS_URL"] == {s.name: s for s in plans[0].specs}["redis"].address
    services = {"demo_apis", "indexer", "caller", "loop", "classifier", "edge"}
    meshes = {spec.env["ATC_MESH_SECRET"] for plan in plans for spec in plan.specs if spec.name in services}
    assert len(meshes) == 1 and meshes != {secret}
    stored = tmp_path / "atc" / "secrets" / "chat-token-secret"
    assert stored.read_text().strip() == secret and stored.stat().st_mode & 0o077 == 0
    # A file cut short is made anew, not trusted.
    stored.write_text("")
    third = plan_mesh(MeshOptions(port=free_port(), data_dir=tmp_path / "atc", catalogue_file=catalogue))
    assert len({s.name: s for s in third.specs}["edge"].env["ATC_EDGE_CHAT_TOKEN_SECRET"]) >= 32


def test_plan_uses_an_existing_redis_when_given(tmp_path: Path) -> None:
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    plan = plan_mesh(
        MeshOptions(
            port=free_port(), data_dir=tmp_path, catalogue_file=catalogue, redis_url="redis://r:6379/2"
        )
    )
    names = [spec.name for spec in plan.specs]
    assert "redis" not in names
    assert plan.specs[names.index("loop")].env["ATC_LOOP_REDIS_URL"] == "redis://r:6379/2"


async def _start_driver(children, tmp_path: Path, *child_args: str) -> asyncio.subprocess.Process:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(driver),
        str(children.script),
        str(children.record),
        str(tmp_path / "logs"),
        *child_args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    seen = []
    while True:
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        assert line, f"driver ended before UP: {''.join(seen)}"
        seen.append(line)
        if line.strip() == "UP":
            return process


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
async def test_foreground_stops_everything_in_reverse_order_on_signal_and_exits_0(
    children, tmp_path: Path, stop_signal: signal.Signals
) -> None:
    process = await _start_driver(children, tmp_path, f"a:{free_port()}:serve", f"b:{free_port()}:serve")
    process.send_signal(stop_signal)
    output, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, output.decode()
    assert children.terminated() == ["b", "a"]
    assert "atc: stopped" in output.decode()


async def test_foreground_reports_a_dying_child_and_stops_the_rest(children, tmp_path: Path) -> None:
    process = await _start_driver(children, tmp_path, f"a:{free_port()}:serve", f"b:{free_port()}:die")
    children.make_die()
    output, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert "b exited with code 3; stopping the rest" in output.decode()
    assert "b booting" in output.decode()  # the tail of its log
    assert children.terminated() == ["a"]


def test_plan_never_gives_two_children_one_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A free port is released before its child binds it, so the kernel may return the same
    one twice (seen: the indexer and the edge both on one port in `make bench`)."""
    import itertools

    import devtools.launcher.mesh as mesh_module

    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    public = free_port()
    repeating = itertools.chain([41001, 41001, 41002, 41002, public], itertools.count(41003))
    monkeypatch.setattr(mesh_module, "free_port", lambda host="127.0.0.1": next(repeating))
    plan = plan_mesh(MeshOptions(port=public, data_dir=tmp_path / "atc", catalogue_file=catalogue))
    ports = [spec.address.rsplit(":", 1)[1].split("/")[0] for spec in plan.specs]
    assert len(set(ports)) == len(ports), ports


def test_envoys_own_listeners_take_no_port_a_child_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Envoy's admin, metrics and gRPC listeners are chosen with the children's ports: a
    port planned for the loop but not bound yet was handed to Envoy too (seen: "cannot bind
    127.0.0.1:38371: Address already in use" in `make test`). Every free port the kernel
    gives here comes twice."""
    import itertools

    import yaml

    import devtools.launcher.mesh as mesh_module
    import devtools.redis_server as redis_server

    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text("[]")
    public = free_port()
    twice = itertools.chain([public], (p for n in itertools.count(42001) for p in (n, n)))
    monkeypatch.setattr(mesh_module, "free_port", lambda host="127.0.0.1": next(twice))
    monkeypatch.setattr(redis_server, "free_port", lambda host="127.0.0.1": next(twice))
    plan = plan_mesh(MeshOptions(port=public, data_dir=tmp_path / "atc", catalogue_file=catalogue))
    children = [
        int(spec.address.rsplit(":", 1)[1].split("/")[0]) for spec in plan.specs if spec.name != "envoy"
    ]
    bootstrap = yaml.safe_load((tmp_path / "atc" / "envoy" / "envoy.yaml").read_text())
    listeners = [
        entry["address"]["socket_address"]["port_value"]
        for entry in bootstrap["static_resources"]["listeners"]
    ] + [bootstrap["admin"]["address"]["socket_address"]["port_value"]]
    taken = children + listeners
    assert len(set(taken)) == len(taken), (children, listeners)
