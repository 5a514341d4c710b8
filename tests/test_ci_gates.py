"""CI gates beyond the tests themselves: typed code, backward-compatible protos, pinned dependencies."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from io import BytesIO
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TYPED_PACKAGES = [
    "services",
    "edge_svc",
    "indexer_svc",
    "classifier_svc",
    "loop_svc",
    "caller_svc",
    "devtools",
]


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, check=False)


def test_mypy_is_clean_with_untyped_defs_disallowed() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--disallow-untyped-defs", *TYPED_PACKAGES],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _baseline_ref() -> str | None:
    """The commit the protos must stay compatible with: on main (CI's clone) the previous
    commit, on a branch the point where it left main. None for a first commit."""
    if _git("rev-parse", "--git-dir").returncode != 0:
        pytest.fail("buf breaking needs the git history: run the tests in a clone, not an export")
    head = _git("rev-parse", "HEAD").stdout.strip()
    main = _git("rev-parse", "--verify", "--quiet", "main").stdout.strip()
    if main and main != head:
        base = _git("merge-base", "HEAD", "main").stdout.decode().strip()
        if base and base.encode() != head:
            return base
    if _git("rev-parse", "--verify", "--quiet", "HEAD~1").returncode == 0:
        return "HEAD~1"
    shallow = _git("rev-parse", "--is-shallow-repository").stdout.strip() == b"true"
    assert not shallow, "a shallow clone hides the previous commit: fetch the full history for buf breaking"
    return None


def test_protos_stay_backward_compatible(tmp_path: Path) -> None:
    buf = BIN / "buf"
    assert shutil.which(str(buf)), f"{buf} is missing: run `make test` (it installs buf-bin)"
    ref = _baseline_ref()
    if ref is None:
        return  # the first commit has nothing to break
    archive = _git("archive", "--format=tar", ref, "buf.yaml", "protos")
    if archive.returncode != 0:
        return  # the baseline predates the protos: nothing to compare with
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")
    result = subprocess.run(
        [str(buf), "breaking", "--against", str(tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"breaking change against {ref}:\n{result.stdout}{result.stderr}"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_declared_dependency_is_pinned() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    declared = {_name(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]}
    pinned = {}
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert "==" in line, f"constraints.txt pins exact versions only: {line!r}"
            name, version = line.split("==", 1)
            pinned[_name(name)] = version
    missing = sorted(declared - set(pinned))
    assert not missing, f"run `make constraints`: not pinned {missing}"
