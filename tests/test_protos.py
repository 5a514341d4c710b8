"""The protos are the contract: buf-clean, and the committed Python code matches them."""

from __future__ import annotations

import filecmp
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.protogen import GEN_ROOT, REPO_ROOT, generate

BUF = Path(sys.executable).parent / "buf"


def _generated_files(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_generated_code_matches_protos(tmp_path: Path) -> None:
    generate(tmp_path)
    fresh, committed = _generated_files(tmp_path), _generated_files(GEN_ROOT)
    assert fresh == committed, "run `make proto`: generated files differ in name"
    stale = [str(p) for p in sorted(fresh) if not filecmp.cmp(tmp_path / p, GEN_ROOT / p, shallow=False)]
    assert not stale, f"run `make proto`: stale generated code {stale}"


@pytest.mark.parametrize(
    "args",
    [["lint"], ["format", "-d", "--exit-code"]],
    ids=["buf-lint", "buf-format"],
)
def test_buf_is_clean(args: list[str]) -> None:
    # A missing buf is a broken install (`make test` installs buf-bin), never a pass.
    assert shutil.which(str(BUF)), f"{BUF} is missing: run `make test` (it installs buf-bin)"
    result = subprocess.run([str(BUF), *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# What a stream's response may carry beside its event, for the next hop only (relay_events
# passes the event alone on): the caller's CachedResult, which the loop's response cache keeps.
_FOR_THE_NEXT_HOP = {"atc.caller.v1.ExecuteCallsResponse": ["atc.caller.v1.CachedResult"]}


def test_every_service_streams_one_event_type() -> None:
    """Each server stream carries TurnEvent so the edge maps events 1:1 to SSE frames."""
    from atc.caller.v1 import caller_pb2
    from atc.classifier.v1 import classifier_pb2
    from atc.loop.v1 import loop_pb2

    for module in (caller_pb2, classifier_pb2, loop_pb2):
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                if method.server_streaming:
                    fields = method.output_type.fields
                    beside = _FOR_THE_NEXT_HOP.get(method.output_type.full_name, [])
                    assert [f.message_type.full_name for f in fields] == ["atc.common.v1.TurnEvent", *beside]
