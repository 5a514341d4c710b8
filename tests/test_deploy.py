"""deploy/ must match the code: every env var names a real setting of the
service it configures, every container has probes, and Envoy keeps SSE open."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from caller_svc.settings import CallerSettings
from classifier_svc.settings import ClassifierSettings
from indexer_svc.settings import IndexerSettings
from loop_svc.settings import LoopSettings
from services.edge.settings import EdgeSettings

K8S = Path(__file__).resolve().parent.parent / "deploy" / "k8s"
SETTINGS = {
    "indexer_svc": IndexerSettings,
    "classifier_svc": ClassifierSettings,
    "loop_svc": LoopSettings,
    "caller_svc": CallerSettings,
    "services.edge": EdgeSettings,
}


def documents() -> list[dict]:
    docs: list[dict] = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name in ("kustomization.yaml", "envoy-bootstrap.yaml"):
            continue
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def deployments() -> list[dict]:
    return [d for d in documents() if d["kind"] == "Deployment"]


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "envoy-bootstrap.yaml"}
    assert listed == on_disk


@pytest.mark.parametrize("deployment", deployments(), ids=lambda d: d["metadata"]["name"])
def test_env_vars_are_real_settings(deployment: dict) -> None:
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        if container.get("command", [])[:2] != ["python", "-m"]:
            continue
        settings = SETTINGS[container["command"][2]]
        prefix = settings.model_config["env_prefix"]
        for env in container.get("env", []):
            assert env["name"].startswith(prefix), env["name"]
            field = env["name"].removeprefix(prefix).lower()
            assert field in settings.model_fields, f"{env['name']} is not a setting of {settings.__name__}"
        assert "readinessProbe" in container and "livenessProbe" in container


def test_services_select_their_deployments() -> None:
    labels = {d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"] for d in deployments()}
    for service in (d for d in documents() if d["kind"] == "Service"):
        selector = service["spec"]["selector"]
        assert any(selector.items() <= pod.items() for pod in labels.values()), service["metadata"]["name"]


def test_envoy_keeps_server_sent_events_open() -> None:
    bootstrap = yaml.safe_load((K8S / "envoy-bootstrap.yaml").read_text())
    (listener,) = bootstrap["static_resources"]["listeners"]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    assert manager["stream_idle_timeout"] == "0s" and manager["request_timeout"] == "0s"
    routes = manager["route_config"]["virtual_hosts"][0]["routes"]
    stream = next(r for r in routes if r["match"].get("prefix") == "/v1/orchestrate/stream")
    assert stream["route"]["timeout"] == "0s" and stream["route"]["idle_timeout"] == "0s"


@pytest.mark.parametrize("deployment", deployments(), ids=lambda d: d["metadata"]["name"])
def test_grpc_readiness_asks_for_the_service_and_metrics_are_scraped(deployment: dict) -> None:
    template = deployment["spec"]["template"]
    for container in template["spec"]["containers"]:
        probe = container.get("readinessProbe", {}).get("grpc")
        if probe is None:
            continue
        # The overall status stays SERVING while the process lives; the service's own
        # status is what drops when it cannot work (loop_svc without Redis).
        assert probe["service"].startswith("atc.") and probe["service"].endswith("Service")
        metrics_port = int(template["metadata"]["annotations"]["prometheus.io/port"])
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert any(k.endswith("_METRICS_PORT") and int(v) == metrics_port for k, v in env.items() if v)
        assert metrics_port in {p["containerPort"] for p in container["ports"]}


def test_envoy_hides_metrics_like_the_admin_api() -> None:
    bootstrap = yaml.safe_load((K8S / "envoy-bootstrap.yaml").read_text())
    manager = bootstrap["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]
    routes = manager["route_config"]["virtual_hosts"][0]["routes"]
    blocked = [r["match"].get("prefix") for r in routes if "direct_response" in r]
    assert "/metrics" in blocked and "/v1/admin" in blocked
