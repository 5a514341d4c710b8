"""`atc seed` against a real gRPC IndexerService stand-in (the seeding Job's command)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from devtools.cli import main
from devtools.launcher.mesh import CATALOGUE_FILE
from devtools.launcher.seed import seed
from tests.edge.conftest import Mesh, mesh  # noqa: F401  (the stand-in gRPC server fixture)


async def test_seed_indexes_the_catalogue_with_the_base_url(mesh: Mesh) -> None:  # noqa: F811
    out = io.StringIO()
    count = await seed(
        mesh.server.address,
        endpoints_file=CATALOGUE_FILE,
        base_url="http://atc-demo-apis:8090/",
        wait_seconds=10,
        out=out,
    )
    catalogue = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    assert count == len(catalogue) == len(mesh.indexer.endpoints)
    assert all(e.url.startswith("http://atc-demo-apis:8090/") for e in mesh.indexer.endpoints.values())
    # Idempotent: a second run replaces, never duplicates.
    await seed(mesh.server.address, endpoints_file=CATALOGUE_FILE, base_url="http://x", out=out)
    assert len(mesh.indexer.endpoints) == len(catalogue)
    assert "replaced endpoint" in out.getvalue()


def test_seed_with_a_bad_file_is_a_clear_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "catalogue.json"
    bad.write_text('{"not": "a list"}')
    assert main(["seed", "--target", "127.0.0.1:1", "--endpoints", str(bad), "--wait", "1"]) == 1
    assert "must hold a JSON list" in capsys.readouterr().err
    assert main(["seed", "--target", "127.0.0.1:1"]) == 2
