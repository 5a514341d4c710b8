"""Generate the Python gRPC code for `protos/atc/**` into `services/gen/`.

Run `python -m devtools.protogen` after editing a .proto file; the generated
files are committed and tests/test_protos.py fails when they drift.
The vendored `protos/google/**` is not generated: googleapis-common-protos
ships those modules.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

REPO_ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = REPO_ROOT / "protos"
GEN_ROOT = REPO_ROOT / "services" / "gen"


def proto_files(proto_root: Path = PROTO_ROOT) -> list[Path]:
    return sorted((proto_root / "atc").rglob("*.proto"))


def generate(out_dir: Path, proto_root: Path = PROTO_ROOT) -> None:
    """Write *_pb2.py, *_pb2.pyi and *_pb2_grpc.py for every atc proto into out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    well_known = str(resources.files("grpc_tools") / "_proto")
    files = [str(p.relative_to(proto_root)) for p in proto_files(proto_root)]
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed for {files}")
    # Generated imports are absolute (`from atc.common.v1 import ...`), so every
    # directory on the way must be a regular package for setuptools to map it.
    for directory in {p.parent for p in out_dir.rglob("*_pb2.py")}:
        while directory != out_dir:
            (directory / "__init__.py").touch()
            directory = directory.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=GEN_ROOT)
    args = parser.parse_args(argv)
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
