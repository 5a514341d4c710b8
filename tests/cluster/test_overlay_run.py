"""The dev overlay run as written (tests/cluster/overlay.py): every pod of
`kubectl kustomize deploy/k8s/overlays/dev` starts with its own command, env, user,
volumes and read-only root in its own network namespace, the Services resolve by name, the
seeding Job indexes the catalogue, and deploy/README.md's commands hold the chats through
Envoy: an API answer, a knowledge answer with its source, the registered service's status;
the admin API and grpcurl through Envoy's debugging listener answer; Envoy's preStop hook
drains it; and no container uses more memory than its limit.

Needs root (network namespaces, mounts) — CI has it. Bounded: every wait has a limit, and
the whole run is measured (the JSON line it prints)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cluster.overlay import NOT_RUNNABLE, OverlayRun, overlay_run, pod_ready_checks, port_forward

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "deploy" / "README.md"
START_BOUND = 300.0

pytestmark = pytest.mark.timeout(600)


def rendered_dev() -> list[dict[str, Any]]:
    result = subprocess.run(
        ["kubectl", "kustomize", str(ROOT / "deploy/k8s/overlays/dev")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def readme_commands(marker: str) -> list[str]:
    """The lines of deploy/README.md's code blocks that start with `marker`."""
    lines, inside = [], False
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside and line.startswith(marker):
            lines.append(line)
    return lines


async def wait_until_ready(run: OverlayRun) -> dict[str, float]:
    """Seconds until each pod's readiness probe passed (and the Job completed)."""
    checks = pod_ready_checks(run)
    started = time.monotonic()
    ready: dict[str, float] = {}
    job = run.pods["atc-seed"].processes[0]
    while len(ready) < len(checks) or job.returncode is None:
        assert time.monotonic() - started < START_BOUND, {
            name: run.log(name)[-1500:] for name in checks if name not in ready
        }
        for name, pod in run.pods.items():
            for process in pod.processes:
                if name != "atc-seed":
                    assert process.returncode is None, f"{name} exited {process.returncode}:\n{run.log(name)}"
        assert job.returncode in (None, 0), f"the seeding Job failed:\n{run.log('atc-seed')}"
        for name, check in checks.items():
            if name not in ready:
                try:
                    if await check():
                        ready[name] = round(time.monotonic() - started, 1)
                except Exception:  # not ready yet
                    pass
        await asyncio.sleep(0.5)
    assert job.returncode == 0, f"the seeding Job failed:\n{run.log('atc-seed')}"
    ready["atc-seed"] = round(time.monotonic() - started, 1)
    return ready


async def run_readme_line(line: str, replacements: dict[str, str], env: dict[str, str] | None = None) -> str:
    """The command as written, with only the forwarded ports (and paths) replaced. Async: the
    port forwarders run on this event loop."""
    for old, new in replacements.items():
        line = line.replace(old, new)
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        line,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    out, err = await asyncio.wait_for(process.communicate(), 180)
    assert process.returncode == 0, (line, err.decode())
    return out.decode()


def kubectl_get_secret(run: OverlayRun, line: str) -> str:
    """`ADMIN_TOKEN=$(kubectl -n atc get secret NAME -o jsonpath='{.data.KEY}' | base64 -d)`,
    answered from the rendered Secret."""
    match = re.search(r"get secret (\S+) -o jsonpath='\{\.data\.([A-Za-z_]+)\}' \| base64 -d", line)
    assert match, line
    (secret,) = [d for d in run.docs if d["kind"] == "Secret" and d["metadata"]["name"] == match[1]]
    return base64.b64decode(secret["data"][match[2]]).decode()


async def test_the_dev_overlay_runs_as_written_and_holds_the_chats(tmp_path: Path) -> None:
    assert os.geteuid() == 0, "the overlay run needs root (network namespaces and mounts); CI has it"
    # deploy/README.md's first step, rendered offline.
    (apply,) = readme_commands("kubectl apply -k deploy/k8s/overlays/dev")
    assert apply == "kubectl apply -k deploy/k8s/overlays/dev"
    docs = rendered_dev()
    started = time.monotonic()
    async with overlay_run(docs, tmp_path) as run:
        ready = await wait_until_ready(run)
        seed_log = run.log("atc-seed")
        assert "indexed" in seed_log or "unchanged" in seed_log, seed_log

        # `kubectl -n atc port-forward svc/atc-envoy 8080:80`: the Service's port 80 is the
        # pod's port `http` (8000).
        assert "kubectl -n atc port-forward svc/atc-envoy 8080:80" in readme_commands(
            "kubectl -n atc port-forward"
        )
        async with port_forward(run.service_ip("atc-envoy"), 8000) as envoy_port:
            url = {
                "127.0.0.1:8080": f"127.0.0.1:{envoy_port}",
                "-c jar -b jar": f"-c {tmp_path}/jar -b {tmp_path}/jar",
            }
            answers = [
                json.loads(await run_readme_line(line, url)) for line in readme_commands("curl -s -c jar")
            ]
        holidays_question, holidays, knowledge, service_question, service = answers
        assert (holidays_question["workflow"], holidays_question["outcome"]) == (
            "api_tool_calling",
            "needs_input",
        )
        # An API answer: the caller reached the demo APIs (egress allow-list, NetworkPolicy).
        assert holidays["outcome"] == "answered", holidays
        assert holidays["callOutcomes"] and holidays["callOutcomes"][0]["success"], holidays
        assert "Independence Day" in holidays["content"] or "Iseseisvuspäev" in holidays["content"], holidays
        # A knowledge answer with its source (the Job ingested the knowledge base).
        assert knowledge["workflow"] == "rag" and knowledge["sources"], knowledge
        assert knowledge["sources"][0]["title"] == "Renewing an ID card"
        # The registered service (the Job indexed the services file), over two turns.
        assert (service_question["workflow"], service_question["outcome"]) == ("service", "needs_input")
        assert (service["workflow"], service["outcome"]) == ("service", "answered"), service
        assert "A1234567" in service["content"]

        # The admin API through its own Service, with the token from the Secret.
        (forward,) = [
            line for line in readme_commands("kubectl") if "port-forward svc/atc-edge-admin" in line
        ]
        (token_line,) = readme_commands("ADMIN_TOKEN=")
        (curl,) = [line for line in readme_commands("curl") if "$ADMIN_TOKEN" in line]
        assert forward.startswith("kubectl -n atc port-forward svc/atc-edge-admin 8081:8081")
        token = kubectl_get_secret(run, token_line)
        async with port_forward(run.service_ip("atc-edge-admin"), 8081) as admin_port:
            listed = json.loads(
                await run_readme_line(
                    curl, {"127.0.0.1:8081": f"127.0.0.1:{admin_port}"}, {"ADMIN_TOKEN": token}
                )
            )
        assert any(e["name"] == "get_national_holidays" for e in listed["endpoints"]), listed

        # grpcurl / buf curl through Envoy's gRPC debugging listener.
        async with port_forward(run.service_ip("atc-envoy-grpc"), 9052) as grpc_port:
            replacements = {"127.0.0.1:9052": f"127.0.0.1:{grpc_port}", ".venv/bin/": f"{ROOT}/.venv/bin/"}
            (grpcurl,) = readme_commands(".venv/bin/grpcurl")
            assert "atc.classifier.v1.ClassifierService" in await run_readme_line(grpcurl, replacements)
            (buf,) = readme_commands(".venv/bin/buf curl")
            assert "RouteTurn" in await run_readme_line(buf, replacements)

        # Memory as measured here, against what each container asks for.
        rss = {
            name: round(run.rss_mib(name), 1) for name in run.pods if name not in {*NOT_RUNNABLE, "atc-seed"}
        }
        for name, used in rss.items():
            limit = run.pods[name].spec["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"][
                "memory"
            ]
            assert used < float(limit[:-2]) * (1024 if limit.endswith("Gi") else 1), (name, used, limit)

        # Envoy's preStop hook, inside its container: health check failed, nothing in flight.
        envoy = run.pods["atc-envoy"]
        (container,) = envoy.spec["spec"]["template"]["spec"]["containers"]
        hook = await run.exec_in(
            envoy, container, container["lifecycle"]["preStop"]["exec"]["command"], "prestop"
        )
        out, _ = await asyncio.wait_for(hook.communicate(), 60)
        assert hook.returncode == 0 and "drain: done" in out.decode(), out.decode()
        checks = pod_ready_checks(run)
        assert not await checks["atc-envoy"](), "a draining Envoy must fail its readiness probe"
    print(
        json.dumps(
            {
                "overlay_run_seconds": round(time.monotonic() - started, 1),
                "ready_after_seconds": ready,
                "rss_mib": rss,
                "not_run": NOT_RUNNABLE,
                "commands": shlex.join(["kubectl", "kustomize", "deploy/k8s/overlays/dev"]),
            }
        )
    )
