"""The layout the README describes, as an import graph with no upward arrow:

    devtools/ (the `atc` CLI, launcher, demo APIs, catalogue tools)  ──▶ anything
    edge_svc/ indexer_svc/ classifier_svc/ loop_svc/ caller_svc/     ──▶ itself, services/
    services/ (the shared service kit: runtime, clients, errors, i18n, stubs) ──▶ nothing of ours

A service never imports another service (they talk over gRPC) nor the tooling, and the kit
imports no service. Read from the source (every import statement, also inside functions),
so a lazy import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KIT = "services"
SERVICES = ("edge_svc", "indexer_svc", "classifier_svc", "loop_svc", "caller_svc")
TOOLING = "devtools"
OURS = (KIT, *SERVICES, TOOLING)


def imported_modules(source: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            # `from services import runtime` names the package as an imported name.
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def top_package(module: str) -> str:
    return module.split(".", 1)[0]


def allowed(importer: str) -> set[str]:
    """The packages of ours that code in the top-level package `importer` may import."""
    if importer == KIT:
        return {KIT}
    if importer in SERVICES:
        return {importer, KIT}
    return set(OURS)


def upward_imports(package: str) -> list[str]:
    """`file: module` for every import in `package` that the layout forbids."""
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        if relative.startswith("services/gen/"):
            continue
        for module in sorted(imported_modules(path.read_text(encoding="utf-8"))):
            top = top_package(module)
            if top in OURS and top not in allowed(package):
                found.append(f"{relative}: {module}")
    return found


def test_the_checker_sees_every_form_of_import() -> None:
    source = (
        "import devtools.cli\n"
        "from devtools.launcher import mesh\n"
        "from services import runtime\n"
        "def lazy():\n    import loop_svc.session\n"
    )
    assert {top_package(m) for m in imported_modules(source)} == {"devtools", "services", "loop_svc"}


def test_the_top_level_is_the_layout_the_readme_describes() -> None:
    for package in OURS:
        assert (REPO / package / "__init__.py").is_file(), package
    for service in SERVICES:
        for part in ("__main__.py", "settings.py", "app.py", "servicer.py"):
            if service == "edge_svc" and part == "servicer.py":
                continue  # the edge serves HTTP: its routes/ are its servicer
            assert (REPO / service / part).is_file(), f"{service}/{part}"
    assert not (REPO / "services" / "edge").exists()
    assert not (REPO / "services" / "devtools").exists()


def test_no_upward_import_anywhere() -> None:
    offending = [line for package in (KIT, *SERVICES) for line in upward_imports(package)]
    assert not offending, "imports the layout forbids:\n" + "\n".join(offending)


def test_the_check_fails_on_an_upward_import(tmp_path: Path) -> None:
    # The same rule over a file that breaks it: a service importing another service.
    modules = imported_modules("from loop_svc.session import SessionStore\n")
    assert any(top_package(m) not in allowed("classifier_svc") for m in modules if top_package(m) in OURS)
