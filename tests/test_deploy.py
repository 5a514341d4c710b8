"""deploy/ runs as written: both overlays render with kustomize and every object
passes kubernetes-validate --strict; the Envoy bootstrap parses into Envoy's own
Bootstrap proto; the manifests match the code's settings and the hardening rules.

kubernetes-validate and xds-protos live in the tools venv (`make tools`, .venv-tools):
they install top-level packages that clash with the mesh's own. Nothing is skipped:
if kubectl or the tools venv is missing, these tests fail.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from caller_svc.settings import CallerSettings
from classifier_svc.settings import ClassifierSettings
from devtools.demo_apis.settings import DemoApiSettings
from edge_svc.settings import EdgeSettings
from indexer_svc.settings import IndexerSettings
from loop_svc.settings import LoopSettings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
OVERLAYS = ("dev", "prod")
TOOLS_PYTHON = ROOT / ".venv-tools" / "bin" / "python"
SETTINGS: dict[str, Any] = {
    "indexer_svc": IndexerSettings,
    "classifier_svc": ClassifierSettings,
    "loop_svc": LoopSettings,
    "caller_svc": CallerSettings,
    "edge_svc": EdgeSettings,
    "devtools.demo_apis": DemoApiSettings,
}
# Read by libraries, not by our settings.
LIBRARY_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP", "HOME"}
MESH_IMAGE = "registry.example.ee/atc/atc-mesh"


@pytest.fixture(scope="session")
def tools_python() -> Path:
    """The tools venv, built by the Makefile (a no-op once built)."""
    result = subprocess.run(["make", "-s", "tools"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"make tools failed:\n{result.stdout}\n{result.stderr}"
    assert TOOLS_PYTHON.exists()
    return TOOLS_PYTHON


@cache
def rendered_text(overlay: str) -> str:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the overlays (kubectl kustomize works offline)"
    result = subprocess.run(
        [kubectl, "kustomize", str(DEPLOY / "k8s" / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def rendered(overlay: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(rendered_text(overlay)) if doc]


def of_kind(docs: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in kinds]


def pod_specs(docs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (d["metadata"]["name"], d["spec"]["template"]["spec"])
        for d in of_kind(docs, "Deployment", "StatefulSet", "Job")
    ]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_object_passes_strict_validation(
    overlay: str, tools_python: Path, tmp_path: Path
) -> None:
    manifest = tmp_path / f"{overlay}.yaml"
    manifest.write_text(rendered_text(overlay))
    validator = tools_python.parent / "kubernetes-validate"
    result = subprocess.run(
        [str(validator), "--strict", "--quiet", str(manifest)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(rendered(overlay)) > 30


def test_the_validator_really_rejects_unknown_fields(tools_python: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"
        "spec: {selector: {app: x}, ports: [{port: 80, targetPrt: 80}]}\n"
    )
    validator = tools_python.parent / "kubernetes-validate"
    result = subprocess.run(
        [str(validator), "--strict", "--quiet", str(broken)], capture_output=True, text=True
    )
    assert result.returncode != 0


@pytest.fixture(scope="session")
def envoy(tools_python: Path) -> dict[str, Any]:
    result = subprocess.run(
        [
            str(tools_python),
            str(ROOT / "tests" / "tools" / "envoy_bootstrap.py"),
            str(DEPLOY / "envoy" / "envoy.yaml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_envoy_normalises_paths_and_keeps_admin_private(envoy: dict[str, Any]) -> None:
    assert envoy["admin_address"] == "127.0.0.1"
    public = envoy["listeners"]["public_http"]
    assert public["normalize_path"] and public["merge_slashes"]
    assert public["escaped_slashes"] in ("REJECT_REQUEST", "UNESCAPE_AND_REDIRECT")
    admin = next(r for r in public["routes"] if r["match"] == "/v1/admin")
    assert admin["direct_status"] == 404 and not admin["cluster"]
    assert public["routes"].index(admin) == 0, "the admin block comes before any route to the edge"
    # No route of the public listener reaches a gRPC service: only the edge.
    assert {r["cluster"] for r in public["routes"]} <= {"", "edge"}


def edge_turn_seconds(overlay: str) -> float:
    """The edge's turn deadline as deployed (its env), else the setting's default."""
    (edge,) = [d for d in of_kind(rendered(overlay), "Deployment") if d["metadata"]["name"] == "atc-edge"]
    env = {e["name"]: e.get("value") for e in edge["spec"]["template"]["spec"]["containers"][0]["env"]}
    deployed = env.get("ATC_EDGE_REQUEST_TIMEOUT_SECONDS")
    return float(deployed) if deployed else EdgeSettings().request_timeout_seconds


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_envoy_outlasts_the_edges_turn(envoy: dict[str, Any], overlay: str) -> None:
    turn = edge_turn_seconds(overlay)
    public = envoy["listeners"]["public_http"]
    for path in ("/v1/orchestrate/stream", "/v1/orchestrate"):
        route = next(r for r in public["routes"] if r["match"] == path and r["exact"])
        assert route["timeout"] > turn, path
    assert public["request_timeout"] == 0 or public["request_timeout"] > turn
    assert public["stream_idle_timeout"] > 15, "longer than sse-starlette's ping interval"


def test_envoy_has_a_grpc_listener_per_service(envoy: dict[str, Any]) -> None:
    for name, port in (("indexer", 9051), ("classifier", 9052), ("loop", 9053), ("caller", 9054)):
        listener = envoy["listeners"][f"grpc_{name}"]
        assert listener["port"] == port
        assert [r["cluster"] for r in listener["routes"]] == [name]
        assert listener["routes"][0]["timeout"] == 0, "streams are bounded by their own deadlines"
    routed = {r["cluster"] for lst in envoy["listeners"].values() for r in lst["routes"]} - {""}
    assert routed == set(envoy["clusters"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_envoy_configmap_is_the_bootstrap_file(overlay: str) -> None:
    docs = rendered(overlay)
    (config,) = [d for d in of_kind(docs, "ConfigMap") if d["metadata"]["name"].startswith("envoy-bootstrap")]
    assert config["data"]["envoy.yaml"] == (DEPLOY / "envoy" / "envoy.yaml").read_text()
    (deployment,) = [d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] == "atc-envoy"]
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    assert any(v.get("configMap", {}).get("name") == config["metadata"]["name"] for v in volumes)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_env_vars_are_real_settings(overlay: str) -> None:
    for name, spec in pod_specs(rendered(overlay)):
        for container in spec["containers"]:
            command = container.get("command", [])
            if command[:2] != ["python", "-m"]:
                continue
            settings = SETTINGS[command[2]]
            prefix = settings.model_config["env_prefix"]
            for env in container.get("env", []):
                if env["name"] in LIBRARY_ENV:
                    continue
                assert env["name"].startswith(prefix), (name, env["name"])
                field = env["name"].removeprefix(prefix).lower()
                assert field in settings.model_fields, (
                    f"{env['name']} is not a setting of {settings.__name__}"
                )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_is_hardened_probed_and_sized(overlay: str) -> None:
    for name, spec in pod_specs(rendered(overlay)):
        pod_security = spec["securityContext"]
        assert pod_security["runAsNonRoot"] is True, name
        assert pod_security["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"] == {"drop": ["ALL"]}, name
            assert container["resources"]["requests"] and container["resources"]["limits"]["memory"], name
            image = container["image"]
            assert ":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest"), (name, image)
            if name != "atc-seed":
                assert "readinessProbe" in container and "livenessProbe" in container, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_mesh_image_is_set_in_one_place(overlay: str) -> None:
    images = {
        c["image"]
        for _, spec in pod_specs(rendered(overlay))
        for c in spec["containers"]
        if c["image"].startswith(MESH_IMAGE)
    }
    (image,) = images
    image_component = DEPLOY / "k8s" / "components" / "image" / "kustomization.yaml"
    kustomization = yaml.safe_load(image_component.read_text())
    (entry,) = kustomization["images"]
    assert image == f"{entry['newName']}:{entry['newTag']}"
    # `make image` tags with that same entry.
    assert "deploy/k8s/components/image/kustomization.yaml" in (ROOT / "Makefile").read_text()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grpc_services_use_health_probes_and_named_ports(overlay: str) -> None:
    docs = rendered(overlay)
    for deployment in of_kind(docs, "Deployment"):
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            if container.get("command", [None, None, ""])[2:3] in (
                ["indexer_svc"],
                ["classifier_svc"],
                ["loop_svc"],
                ["caller_svc"],
            ):
                assert "grpc" in container["readinessProbe"] and "grpc" in container["livenessProbe"]
                if container["command"][2] == "indexer_svc":
                    assert "grpc" in container["startupProbe"]
    labels = {
        d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"]
        for d in of_kind(docs, "Deployment", "StatefulSet")
    }
    for service in of_kind(docs, "Service"):
        selector = service["spec"]["selector"]
        assert any(selector.items() <= pod.items() for pod in labels.values()), service["metadata"]["name"]
        for port in service["spec"]["ports"]:
            if port.get("appProtocol") == "grpc":
                assert port["name"].startswith("grpc")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_autoscaling_and_disruption_budgets_point_at_real_deployments(overlay: str) -> None:
    docs = rendered(overlay)
    deployments = {d["metadata"]["name"] for d in of_kind(docs, "Deployment")}
    scaled = {h["spec"]["scaleTargetRef"]["name"] for h in of_kind(docs, "HorizontalPodAutoscaler")}
    assert {"atc-edge", "atc-classifier", "atc-loop", "atc-caller", "atc-envoy"} <= scaled <= deployments
    budgets = {p["spec"]["selector"]["matchLabels"]["app"] for p in of_kind(docs, "PodDisruptionBudget")}
    assert scaled <= budgets


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_deny_by_default_and_expose_only_envoy(overlay: str) -> None:
    policies = of_kind(rendered(overlay), "NetworkPolicy")
    deny = next(p for p in policies if p["metadata"]["name"] == "default-deny")
    assert deny["spec"]["podSelector"] == {} and set(deny["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    open_to_all = [
        p["spec"]["podSelector"].get("matchLabels", {}).get("app")
        for p in policies
        for rule in p["spec"].get("ingress", [])
        if "from" not in rule
    ]
    assert open_to_all == ["atc-envoy"]
    caller = next(p for p in policies if p["metadata"]["name"] == "caller")
    assert "Egress" in caller["spec"]["policyTypes"] and caller["spec"]["egress"]


def test_dev_runs_its_own_stores_and_seeds_with_the_cli() -> None:
    docs = rendered("dev")
    stateful = {d["metadata"]["name"]: d for d in of_kind(docs, "StatefulSet")}
    assert {"atc-redis", "atc-qdrant"} <= set(stateful)
    assert all(s["spec"]["volumeClaimTemplates"] for s in stateful.values())
    (job,) = of_kind(docs, "Job")
    assert job["spec"]["template"]["spec"]["containers"][0]["command"][:2] == ["atc", "seed"]
    assert any(d["metadata"]["name"] == "atc-demo-apis" for d in of_kind(docs, "Deployment"))


def test_prod_takes_redis_and_qdrant_from_secrets_it_does_not_ship() -> None:
    docs = rendered("prod")
    assert not of_kind(docs, "StatefulSet") and not of_kind(docs, "Secret")
    refs = {
        env["valueFrom"]["secretKeyRef"]["name"]
        for _, spec in pod_specs(docs)
        for c in spec["containers"]
        for env in c.get("env", [])
        if "valueFrom" in env
    }
    assert {"atc-redis", "atc-qdrant", "atc-edge"} <= refs


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grpc_services_are_scraped_on_their_metrics_port(overlay: str) -> None:
    for deployment in of_kind(rendered(overlay), "Deployment"):
        template = deployment["spec"]["template"]
        for container in template["spec"]["containers"]:
            if container.get("readinessProbe", {}).get("grpc") is None or container["name"] == "envoy":
                continue
            metrics_port = int(template["metadata"]["annotations"]["prometheus.io/port"])
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert any(k.endswith("_METRICS_PORT") and v and int(v) == metrics_port for k, v in env.items())
            assert metrics_port in {p["containerPort"] for p in container["ports"]}


def test_envoy_hides_metrics_like_the_admin_api() -> None:
    bootstrap = yaml.safe_load((DEPLOY / "envoy" / "envoy.yaml").read_text())
    public = next(lst for lst in bootstrap["static_resources"]["listeners"] if lst["name"] == "public_http")
    manager = public["filter_chains"][0]["filters"][0]["typed_config"]
    routes = manager["route_config"]["virtual_hosts"][0]["routes"]
    blocked = [r["match"].get("prefix") for r in routes if "direct_response" in r]
    assert "/metrics" in blocked and "/v1/admin" in blocked
