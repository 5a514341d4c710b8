"""The docs say what the code does: docs/configuration.md is what the generator prints from
the settings classes, and every command in a fenced shell block of README.md, docs/*.md and
the services' READMEs is run here when that is cheap (`atc` through its parser, `make -n`),
named with the test that runs it elsewhere, or marked as needing a running mesh or a cluster.
deploy/README.md has its own check (tests/test_deploy_readme.py)."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools import settings_doc

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ("edge_svc", "classifier_svc", "indexer_svc", "loop_svc", "caller_svc")
DOCS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / s / "README.md" for s in SERVICES)]
)
SHELL_BLOCKS = {"sh", "bash", "shell"}
# A comment line with one of these marks the rest of its block; a trailing one, its command.
MARKERS = ("needs a cluster", "needs a running mesh")

# (pattern of a command, where it is checked)
CHECKED: list[tuple[str, str]] = [
    (
        r"make (run|test)$",
        "every test run: `make test` runs the suite, tests/cli/test_cli_up_mesh.py runs `atc up`",
    ),
    (
        r"make run ARGS=--fixed-ports$",
        "test_make_targets_in_the_docs_exist (make -n); `atc up --fixed-ports` parses",
    ),
    (r"make (lint|proto|bench|constraints|test-fast)$", "test_make_targets_in_the_docs_exist (make -n)"),
    (
        r"python -m devtools\.settings_doc --write$",
        "test_configuration_md_is_what_the_generator_prints (its output, unwritten)",
    ),
    (
        r"python -m (edge_svc|classifier_svc|indexer_svc|loop_svc|caller_svc)$",
        "atc up starts every service so (devtools/launcher/mesh.py); tests/cli/test_cli_up_mesh.py",
    ),
    (
        r"atc (ingest|index|import-openapi) ",
        "test_atc_commands_in_the_docs_parse; tests/indexer/test_catalogue_tools.py",
    ),
    (r"atc chat ", "test_atc_commands_in_the_docs_parse; tests/cli/test_cli_chat.py"),
]


@dataclass(frozen=True)
class Command:
    doc: str
    line: str
    marked: bool


def fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(info string, lines) of every fenced block."""
    blocks: list[tuple[str, list[str]]] = []
    inside: tuple[str, list[str]] | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            if inside is None:
                inside = (line[3:].strip(), [])
            else:
                blocks.append(inside)
                inside = None
        elif inside is not None:
            inside[1].append(line)
    assert inside is None, "an unclosed fenced block"
    return blocks


def commands_of(lines: list[str]) -> list[tuple[str, bool]]:
    """Each command of a shell block (continuation lines joined, comments dropped), and whether
    a marker covers it."""
    found: list[tuple[str, bool]] = []
    block_marked, pending = False, ""
    for raw in lines:
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            block_marked = block_marked or any(m in stripped for m in MARKERS)
            continue
        pending += raw.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip() + " "
            continue
        command, _, comment = pending.partition("  #")
        found.append((" ".join(command.split()), block_marked or any(m in comment for m in MARKERS)))
        pending = ""
    return found


def doc_commands() -> list[Command]:
    found = []
    for doc in DOCS:
        for info, lines in fenced_blocks(doc.read_text(encoding="utf-8")):
            if info in SHELL_BLOCKS:
                name = doc.relative_to(ROOT).as_posix()
                found += [Command(name, line, marked) for line, marked in commands_of(lines)]
    return found


def test_configuration_md_is_what_the_generator_prints() -> None:
    committed = settings_doc.OUTPUT.read_text(encoding="utf-8")
    assert committed == settings_doc.render(), "run `python -m devtools.settings_doc --write`"


def _settings_classes_in_the_tree() -> set[str]:
    """`module:Class` of every class whose body sets a pydantic-settings `model_config`."""
    found = set()
    for package in ("services", *SERVICES, "devtools"):
        for path in (ROOT / package).rglob("*.py"):
            if "gen" in path.relative_to(ROOT).parts:
                continue
            source = path.read_text(encoding="utf-8")
            if "SettingsConfigDict" not in source:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.ClassDef) and any(
                    isinstance(s, ast.Assign)
                    and any(getattr(t, "id", "") == "model_config" for t in s.targets)
                    for s in node.body
                ):
                    found.add(f"{module}:{node.name}")
    return found


def test_every_settings_class_is_in_the_generated_doc() -> None:
    documented = {path for _, path in (*settings_doc.SETTINGS_CLASSES, *settings_doc.SHARED_CLASSES)}
    in_tree = _settings_classes_in_the_tree()
    assert len(in_tree) >= 7
    assert in_tree <= documented, f"add to devtools/settings_doc.py: {sorted(in_tree - documented)}"


def test_every_setting_is_described() -> None:
    """A setting without a comment (or description) shows as a bare row: write one."""
    undescribed = [
        row.variables[0]
        for _, path in (*settings_doc.SHARED_CLASSES, *settings_doc.SETTINGS_CLASSES)
        for cls in [settings_doc.load(path)]
        for row in settings_doc.rows(cls, list(cls.model_fields), "<PREFIX>")
        if not row.description
    ]
    assert not undescribed


def test_the_generator_reads_comments_aliases_and_bounds() -> None:
    from loop_svc.settings import LoopSettings

    by_variable = {
        row.variables[0]: row
        for row in settings_doc.rows(LoopSettings, list(LoopSettings.model_fields), "ATC_LOOP_")
    }
    cache = by_variable["ATC_RESPONSE_CACHE_ENABLED"]
    assert cache.variables == ["ATC_RESPONSE_CACHE_ENABLED", "ATC_LOOP_RESPONSE_CACHE_ENABLED"]
    ttl = by_variable["ATC_LOOP_SESSION_TTL_SECONDS"]
    assert (ttl.type, ttl.default) == ("`int`, > 0", "`1800`")
    assert ttl.description.startswith("Sliding")
    # An inherited field keeps its base class's comment.
    assert "SIGTERM" in by_variable["ATC_LOOP_GRACE_SECONDS"].description


def test_every_fenced_block_says_its_language() -> None:
    """An untagged block could hide a command from the check below (diagrams are `text`)."""
    untagged = [
        doc.relative_to(ROOT).as_posix()
        for doc in DOCS
        for info, _ in fenced_blocks(doc.read_text())
        if not info
    ]
    assert not untagged


def test_every_command_in_the_docs_is_checked_or_marked() -> None:
    found = doc_commands()
    assert len(found) >= 20
    unchecked = [
        f"{c.doc}: {c.line}"
        for c in found
        if not c.marked and not any(re.match(p, c.line) for p, _ in CHECKED)
    ]
    assert not unchecked, f"commands no test checks (add one to CHECKED, or mark them): {unchecked}"
    unused = [p for p, _ in CHECKED if not any(re.match(p, c.line) for c in found if not c.marked)]
    assert not unused, f"checks for commands no longer in the docs: {unused}"


def test_the_command_parser_sees_markers_continuations_and_comments() -> None:
    lines = [
        "make lint   # a comment",
        "atc chat \\",
        "  --lang et",
        "# needs a running mesh",
        "curl -s http://127.0.0.1:8080/healthz",
    ]
    assert commands_of(lines) == [
        ("make lint", False),
        ("atc chat --lang et", False),
        ("curl -s http://127.0.0.1:8080/healthz", True),
    ]


def test_atc_commands_in_the_docs_parse() -> None:
    from devtools.cli import _parser

    atc = [c for c in doc_commands() if c.line.startswith("atc ")]
    assert {c.line.split()[1] for c in atc} >= {"ingest", "index", "import-openapi", "chat"}
    for command in atc:
        args = _parser().parse_args(shlex.split(command.line)[1:])
        assert args.command == command.line.split()[1]


@pytest.mark.parametrize(
    "command", sorted({c.line for c in doc_commands() if c.line.startswith("make ") and not c.marked})
)
def test_make_targets_in_the_docs_exist(command: str) -> None:
    target, *rest = shlex.split(command)[1:]
    result = subprocess.run(
        ["make", "-n", target, *rest], cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    if target == "run":
        from devtools.cli import _parser

        arguments = [a.split("=", 1)[1] for a in rest if a.startswith("ARGS=")]
        _parser().parse_args(["up", *(" ".join(arguments).split())])
