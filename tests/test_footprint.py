"""Each service imports only what it uses: with no model configured (no ATC_<SERVICE>_LLM_MODEL),
starting a service as `python -m <service>` does (its __main__, settings, app and a built
server) imports neither DSPy nor litellm, ≈ 1.3 s and ≈ 5 s of imports and tens of MiB each.
With a model configured, the same build does import DSPy: the probe sees it when it is there.

Each build runs in a fresh interpreter (this test process has imported DSPy already)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("dspy", "litellm")

# Builds the service's server the way its __main__ does (settings from the environment),
# without starting it, then prints which of HEAVY were imported.
PROBE = """
import asyncio, importlib, json, sys
service, heavy = sys.argv[1], sys.argv[2:]
main = importlib.import_module(service + ".__main__")
app = importlib.import_module(service + ".app")
if hasattr(app, "build_server"):
    settings_class = next(
        value for name, value in vars(main).items() if name.endswith("Settings") and isinstance(value, type)
    )
    asyncio.run(app.build_server(settings_class()))
print(json.dumps({name: name in sys.modules for name in heavy}))
"""

# Every service that builds a model when one is configured, and its settings' env prefix.
LLM_SERVICES = {
    "indexer_svc": "ATC_INDEXER_",
    "classifier_svc": "ATC_CLASSIFIER_",
    "loop_svc": "ATC_LOOP_",
    "caller_svc": "ATC_CALLER_",
}


def imported_by_build(service: str, env: dict[str, str], modules: tuple[str, ...] = HEAVY) -> dict[str, bool]:
    # No ATC_* variable from outside: what a service gets is what this test sets.
    base = {k: v for k, v in os.environ.items() if not k.startswith("ATC_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, service, *modules],
        cwd=REPO,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def offline_settings(prefix: str, tmp_path: Path) -> dict[str, str]:
    """A build that reaches nothing: port 0, a fresh index folder, no catalogue, DSPy's
    cache under the test's folder."""
    return {
        f"{prefix}PORT": "0",
        f"{prefix}DATA_DIR": str(tmp_path / "index"),
        f"{prefix}CATALOGUE_FILE": "",
        f"{prefix}SERVICES_FILE": "",
        f"{prefix}KNOWLEDGE_DIR": "",
        f"{prefix}DSPY_CACHE_DIR": str(tmp_path / "dspy-cache"),
        "DSPY_CACHEDIR": str(tmp_path / "dspy-cache"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


@pytest.mark.parametrize("service", [*LLM_SERVICES, "edge_svc"])
def test_no_model_no_dspy_or_litellm(service: str, tmp_path: Path) -> None:
    prefix = LLM_SERVICES.get(service, "ATC_EDGE_")
    assert imported_by_build(service, offline_settings(prefix, tmp_path)) == dict.fromkeys(HEAVY, False)


@pytest.mark.parametrize("service", list(LLM_SERVICES))
def test_a_configured_model_imports_dspy(service: str, tmp_path: Path) -> None:
    prefix = LLM_SERVICES[service]
    env = offline_settings(prefix, tmp_path) | {
        f"{prefix}LLM_MODEL": "openai/footprint-probe",
        # Never called: building the LM sends nothing.
        f"{prefix}LLM_API_BASE": "http://127.0.0.1:9/v1",
        f"{prefix}LLM_API_KEY": "unused",
    }
    assert imported_by_build(service, env)["dspy"] is True


@pytest.mark.parametrize(("service", "loads"), [("classifier_svc", True), ("loop_svc", False)])
def test_only_the_classifier_loads_the_language_identifier(service: str, loads: bool, tmp_path: Path) -> None:
    # The classifier tells every turn's language and passes it on; the loop keeps a detector
    # only for a request that comes without one, so py3langid's model (≈ 80 MiB) stays unread.
    env = offline_settings(LLM_SERVICES[service], tmp_path)
    assert imported_by_build(service, env, ("py3langid.langid",)) == {"py3langid.langid": loads}
