"""The dev overlay run as written (tests/cluster/overlay.py): every pod of
`kubectl kustomize deploy/k8s/overlays/dev` starts with its own command, env, user,
volumes and read-only root in its own network namespace, the Services resolve by name, the
seeding Job indexes the catalogue, and deploy/README.md's commands hold the chats through
Envoy: an API answer, a knowledge answer with its source, the registered service's status;
the admin API and grpcurl through Envoy's debugging listener answer; a stored result is
read as its owner with a token minted from the mesh Secret (a forged one is refused); the
chat's owner is on record in Redis; every pod's metrics port serves /metrics (the edge's
public port does not); DSPy writes its disk cache on each LLM service's volumes under the
read-only root; Envoy's preStop hook drains it; and no container uses more memory than its
limit.

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

import httpx
import pytest
import redis.asyncio
import yaml

from edge_svc.chat_owners import KEY_PREFIX as CHAT_OWNER_KEY_PREFIX
from services.runtime.trust import OwnerTokens
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


async def run_line(
    line: str, replacements: dict[str, str], env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """The command as written, with only the forwarded ports (and paths) replaced: its exit
    status, stdout and stderr. Async: the port forwarders run on this event loop."""
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
    return process.returncode or 0, out.decode(), err.decode()


async def run_readme_line(line: str, replacements: dict[str, str], env: dict[str, str] | None = None) -> str:
    code, out, err = await run_line(line, replacements, env)
    assert code == 0, (line, err)
    return out


async def readme_assignment(
    line: str, replacements: dict[str, str], env: dict[str, str] | None = None
) -> str:
    """`NAME=$(...)` as written, and the value the shell gives NAME."""
    name = line.split("=", 1)[0]
    assert name.isidentifier(), line
    return await run_readme_line(f'{line}; printf %s "${name}"', replacements, env)


# Run in a fresh sandbox of each LLM service's container (its env, volumes, user and
# read-only root): what build_lm does before DSPy is imported, then one disk-cache write
# and read as DSPy's LM makes them. DSPy swallows a failed disk write, so it is read back.
DSPY_CACHE_CHECK = """
import importlib, inspect, json, os, sys
from services.llm import prepare_llm_environment
from services.settings import LLMServiceSettings
module = importlib.import_module(sys.argv[1] + ".settings")
(settings_class,) = [c for _, c in inspect.getmembers(module, inspect.isclass)
                     if issubclass(c, LLMServiceSettings) and c.__module__ == module.__name__]
prepare_llm_environment(settings_class().dspy_cache_dir)
import dspy
from dspy import clients
request = {"model": "overlay-run", "messages": [{"role": "user", "content": "ping"}]}
dspy.cache.put(request, "pong", enable_memory_cache=False)
try:
    open("/dspy-root-probe", "w")
    root = "writable"
except OSError as exc:
    root = exc.strerror
print(json.dumps({"dir": clients.DISK_CACHE_DIR, "limit": clients.DISK_CACHE_LIMIT,
                  "read_back": dspy.cache.get(request), "root": root}))
"""


async def dspy_cache_checks(run: OverlayRun) -> dict[str, dict[str, Any]]:
    async def check(pod_name: str) -> tuple[str, dict[str, Any]]:
        pod = run.pods[pod_name]
        (container,) = pod.spec["spec"]["template"]["spec"]["containers"]
        module = container["command"][2]
        process = await run.exec_in(pod, container, ["python", "-c", DSPY_CACHE_CHECK, module], "dspy-cache")
        out, _ = await asyncio.wait_for(process.communicate(), 180)
        assert process.returncode == 0, (pod_name, out.decode())
        return pod_name, json.loads(out.decode().strip().splitlines()[-1])

    names = ["atc-indexer", "atc-classifier", "atc-loop", "atc-caller"]
    return dict(await asyncio.gather(*(check(name) for name in names)))


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
        tax_question, tax, knowledge, service_question, service = answers
        jar = tmp_path / "jar"
        assert (tax_question["workflow"], tax_question["outcome"]) == (
            "api_tool_calling",
            "needs_input",
        )
        # An API answer: the caller reached the demo APIs (egress allow-list, NetworkPolicy).
        assert tax["outcome"] == "answered", tax
        assert tax["callOutcomes"] and tax["callOutcomes"][0]["success"], tax
        assert "123ABC" in tax["content"], tax
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

        # A stored result, read as its owner through the caller's debugging listener with a
        # token minted from the mesh Secret (deploy/README.md, verbatim but for the ports).
        (forward,) = [
            line for line in readme_commands("kubectl") if "port-forward svc/atc-envoy-grpc 9054" in line
        ]
        assert forward == "kubectl -n atc port-forward svc/atc-envoy-grpc 9054:9054"
        (owner_line,) = readme_commands("OWNER=")
        (secret_line,) = readme_commands("MESH_SECRET=")
        (mint_line,) = readme_commands("OWNER_TOKEN=")
        (get_result,) = [line for line in readme_commands(".venv/bin/grpcurl") if "x-atc-owner-token" in line]
        tools = {".venv/bin/": f"{ROOT}/.venv/bin/"}
        owner = await readme_assignment(owner_line, {**tools, " jar)": f" {jar})"})
        assert owner.startswith("anon:"), owner
        mesh_secret = kubectl_get_secret(run, secret_line)
        # Each line runs in a shell of its own: the variables the lines before set, passed on.
        owner_token = await readme_assignment(mint_line, tools, {"MESH_SECRET": mesh_secret, "OWNER": owner})
        result_id = tax["callOutcomes"][0]["resultId"]
        assert result_id, tax
        async with port_forward(run.service_ip("atc-envoy-grpc"), 9054) as caller_port:
            ports = {**tools, "127.0.0.1:9054": f"127.0.0.1:{caller_port}"}
            as_owner = {"OWNER": owner, "OWNER_TOKEN": owner_token, "RESULT_ID": result_id}
            stored = json.loads(await run_readme_line(get_result, ports, as_owner))["result"]
            # grpcurl prints the proto's own field names.
            assert (stored.get("result_id"), stored.get("owner_id")) == (result_id, owner), stored
            assert '"regNr": "123ABC"' in stored["response_json"], stored
            # Trust is on in every service: an assertion not signed with the mesh Secret is refused.
            forged = OwnerTokens(b"not-the-mesh-secret-0123456789").sign(owner)
            code, out, err = await run_line(get_result, ports, {**as_owner, "OWNER_TOKEN": forged})
            assert code != 0 and "Unauthenticated" in out + err, (code, out, err)
        # Who owns the chat is on record in the shared Redis (ATC_EDGE_REDIS_URL).
        store = redis.asyncio.Redis(host=run.service_ip("atc-redis"), port=6379)
        try:
            assert (await store.get(CHAT_OWNER_KEY_PREFIX + "k8s-1")) == owner.encode()
        finally:
            await store.aclose()

        # Every pod's metrics port (the annotation's) serves /metrics; the edge's public port does not.
        scraped: dict[str, str] = {}
        async with httpx.AsyncClient(timeout=10) as client:
            for name, pod in run.pods.items():
                annotations = pod.spec["spec"]["template"]["metadata"].get("annotations", {})
                if name in NOT_RUNNABLE or "prometheus.io/port" not in annotations:
                    continue
                response = await client.get(f"http://{pod.ip}:{annotations['prometheus.io/port']}/metrics")
                assert response.status_code == 200 and "# TYPE " in response.text, (
                    name,
                    response.status_code,
                )
                scraped[name] = response.text
            assert (await client.get(f"http://{run.pods['atc-edge'].ip}:8080/metrics")).status_code == 404
        assert {"atc-edge", "atc-envoy", "atc-indexer", "atc-classifier", "atc-loop", "atc-caller"} <= set(
            scraped
        )
        assert "atc_rpc_requests_total{" in scraped["atc-edge"] and "/v1/orchestrate" in scraped["atc-edge"]

        # DSPy's disk cache, as each LLM service would write it with a model configured.
        dspy_started = time.monotonic()
        dspy = await dspy_cache_checks(run)
        dspy_seconds = round(time.monotonic() - dspy_started, 1)
        for name, found in dspy.items():
            assert found["read_back"] == "pong" and found["root"] == "Read-only file system", (name, found)
            (container,) = run.pods[name].spec["spec"]["template"]["spec"]["containers"]
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert found["dir"] == env[f"ATC_{name.removeprefix('atc-').upper()}_DSPY_CACHE_DIR"], (
                name,
                found,
            )
            assert found["limit"] == int(env["DSPY_CACHE_LIMIT"]), (name, found)

        # grpcurl / buf curl through Envoy's gRPC debugging listener.
        async with port_forward(run.service_ip("atc-envoy-grpc"), 9052) as grpc_port:
            replacements = {"127.0.0.1:9052": f"127.0.0.1:{grpc_port}", ".venv/bin/": f"{ROOT}/.venv/bin/"}
            (grpcurl,) = [line for line in readme_commands(".venv/bin/grpcurl") if line.endswith(" list")]
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
                "dspy_cache_check_seconds": dspy_seconds,
                "not_run": NOT_RUNNABLE,
                "commands": shlex.join(["kubectl", "kustomize", "deploy/k8s/overlays/dev"]),
            }
        )
    )
