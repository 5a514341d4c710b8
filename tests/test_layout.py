"""The layout the README describes: developer tooling (services/devtools) is never
imported by what runs in production — the four services, the edge, the shared runtime
and the other shared modules of services/. Read from the source (every import statement,
also inside functions), so a lazy import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOOLING = "services.devtools"
SERVING = ["indexer_svc", "classifier_svc", "loop_svc", "caller_svc", "services"]


def imported_modules(source: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            # `from services import devtools` names the package as an imported name.
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def imports_tooling(module: str) -> bool:
    return module == TOOLING or module.startswith(TOOLING + ".")


def serving_files() -> list[Path]:
    files = []
    for top in SERVING:
        for path in sorted((REPO / top).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative.startswith(("services/devtools/", "services/gen/")):
                continue
            files.append(path)
    return files


def test_the_checker_sees_every_form_of_import() -> None:
    source = (
        "import services.devtools.cli\n"
        "from services.devtools.launcher import mesh\n"
        "from services import devtools\n"
        "def lazy():\n    import services.devtools.redis_server\n"
        "from services.runtime import server\n"
    )
    found = {m for m in imported_modules(source) if imports_tooling(m)}
    assert found == {
        "services.devtools.cli",
        "services.devtools.launcher",
        "services.devtools.launcher.mesh",
        "services.devtools",
        "services.devtools.redis_server",
    }


def test_the_serving_code_covers_the_services_edge_and_runtime() -> None:
    names = {path.relative_to(REPO).as_posix() for path in serving_files()}
    for expected in (
        "indexer_svc/app.py",
        "classifier_svc/servicer.py",
        "loop_svc/app.py",
        "caller_svc/app.py",
        "services/edge/app.py",
        "services/runtime/server.py",
    ):
        assert expected in names


@pytest.mark.parametrize("path", serving_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_serving_code_never_imports_the_tooling(path: Path) -> None:
    offending = sorted(m for m in imported_modules(path.read_text(encoding="utf-8")) if imports_tooling(m))
    assert not offending, f"{path.relative_to(REPO)} imports developer tooling: {offending}"
