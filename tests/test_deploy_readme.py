"""Every command in deploy/README.md is checked by a test or by the overlay run: each
code-block line must match one entry below, which names where it is checked. A new
command without a check fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "deploy" / "README.md"

# (pattern of the command, where it is checked)
CHECKED: list[tuple[str, str]] = [
    (r"make image\b", "test_deploy: test_the_mesh_images_are_set_in_one_place runs it"),
    (r"make push$", "test_deploy: the same image references (push = image + docker push)"),
    (
        r"kubectl apply -k deploy/k8s/overlays/dev$",
        "test_overlay_run renders and runs it; test_deploy validates it",
    ),
    (
        r"kubectl -n atc port-forward svc/atc-envoy 8080:80$",
        "test_overlay_run forwards to the Service's pods",
    ),
    (
        r"curl -s -c jar -b jar .* http://127\.0\.0\.1:8080/v1/orchestrate$",
        "test_overlay_run runs it verbatim",
    ),
    (
        r"kubectl -n atc delete job atc-seed --ignore-not-found && kubectl apply -k deploy/k8s/overlays/dev$",
        "test_overlay_run runs the Job (re-running it is idempotent: tests/cli/test_cli_seed.py)",
    ),
    (
        r"kubectl -n atc port-forward svc/atc-indexer 50051:50051$",
        "test_deploy: atc-indexer Service, port 50051",
    ),
    (
        r"\.venv/bin/atc seed --target 127\.0\.0\.1:50051 "
        r"--endpoints \S+ --services \S+ --knowledge-dir \S+$",
        "test_deploy_readme: parsed by the atc CLI below; the Job's options (test_overlay_run)",
    ),
    (r"kubectl apply -f deploy/k8s/base/namespace\.yaml$", "test_deploy_readme: the file is the namespace"),
    (
        r"kubectl -n atc create secret generic ",
        "test_deploy: test_env_vars_are_real_settings[prod] reads these keys",
    ),
    (r"kubectl apply -k deploy/k8s/overlays/prod$", "test_deploy renders and validates it"),
    (r"kubectl -n atc port-forward svc/atc-edge-admin 8081:8081$", "test_overlay_run forwards to it"),
    (r"ADMIN_TOKEN=\$\(kubectl -n atc get secret atc-edge ", "test_overlay_run reads the rendered Secret so"),
    (r'curl -s -H "authorization: Bearer \$ADMIN_TOKEN" ', "test_overlay_run runs it verbatim"),
    (r"kubectl -n atc port-forward svc/atc-envoy-grpc 9052:9052$", "test_overlay_run forwards to it"),
    (r"\.venv/bin/grpcurl -plaintext 127\.0\.0\.1:9052 list$", "test_overlay_run runs it verbatim"),
    (r"\.venv/bin/buf curl .*http://127\.0\.0\.1:9052$", "test_overlay_run runs it verbatim"),
    (
        r"kubectl -n atc run debug --rm -it --restart=Never --labels=atc-mesh/debug=true ",
        "test_deploy: debug-labelled pods reach Envoy's gRPC listeners; the atc CLI parses it (below)",
    ),
    (r"kubectl -n atc port-forward svc/atc-envoy-grpc 9054:9054$", "test_overlay_run forwards to it"),
    (
        r"OWNER=\$\(\.venv/bin/python -c 'import jwt, sys; ",
        "test_overlay_run runs it verbatim on its cookie jar",
    ),
    (r"MESH_SECRET=\$\(kubectl -n atc get secret atc-mesh ", "test_overlay_run reads the rendered Secret so"),
    (
        r'OWNER_TOKEN=\$\(ATC_MESH_SECRET="\$MESH_SECRET" \.venv/bin/python ',
        "test_overlay_run runs it verbatim",
    ),
    (
        r'\.venv/bin/grpcurl -plaintext -H "x-atc-owner: \$OWNER" -H "x-atc-owner-token: \$OWNER_TOKEN" ',
        "test_overlay_run runs it verbatim, and with a forged token (refused)",
    ),
]


def commands() -> list[str]:
    lines, inside, block = [], False, ""
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
            block = line
            continue
        if inside and line.strip() and block == "```" and not line.startswith(("deploy/", "  ")):
            lines.append(line.split("  #", 1)[0].strip())
    return lines


def test_every_command_in_deploy_readme_is_checked() -> None:
    found = commands()
    assert len(found) >= 15
    unchecked = [line for line in found if not any(re.match(p, line) for p, _ in CHECKED)]
    assert not unchecked, f"commands in deploy/README.md that no test checks: {unchecked}"
    unused = [p for p, _ in CHECKED if not any(re.match(p, line) for line in found)]
    assert not unused, f"checks for commands no longer in deploy/README.md: {unused}"


def test_the_cli_commands_in_deploy_readme_parse() -> None:
    from devtools.cli import _parser

    seed = next(line for line in commands() if line.startswith(".venv/bin/atc seed"))
    args = _parser().parse_args(seed.split()[1:])
    assert args.endpoints and args.services and args.knowledge_dir
    debug = next(line for line in commands() if line.startswith("kubectl -n atc run debug"))
    args = _parser().parse_args(debug.split(" -- ", 1)[1].split()[1:])
    assert args.command == "chat" and args.target == "dns:///atc-envoy-grpc:9052"
    # Its image is the devtools image of the image component (the CLI lives there).
    assert "registry.example.ee/atc/atc-mesh-devtools:0.1.0" in debug


def test_the_namespace_file_creates_the_namespace_the_secrets_go_to() -> None:
    import yaml

    namespace = yaml.safe_load((ROOT / "deploy/k8s/base/namespace.yaml").read_text())
    assert namespace["kind"] == "Namespace" and namespace["metadata"]["name"] == "atc"
    lines = commands()
    first_secret = next(i for i, line in enumerate(lines) if "create secret" in line)
    assert lines.index("kubectl apply -f deploy/k8s/base/namespace.yaml") < first_secret


# gRPC metadata in the commands: `-H "name: value"` (grpcurl, buf curl) or `--header`.
_HEADER = re.compile(r"""(?:-H|--header)[ =](?:"([^":]+):|'([^':]+):)""")


def test_every_command_that_names_an_owner_carries_its_signed_assertion() -> None:
    """Every service refuses a bare x-atc-owner (services/runtime/trust.py): a command that
    names an owner without x-atc-owner-token would only ever be refused."""
    naming = 0
    for line in commands():
        headers = {a or b for a, b in _HEADER.findall(line)}
        if "x-atc-owner" in headers or "owner_id" in line or "ownerId" in line:
            naming += 1
            assert {"x-atc-owner", "x-atc-owner-token"} <= headers, line
    assert naming >= 1
    # ...and the token is minted with the Secret the services verify with.
    mint = next(line for line in commands() if line.startswith("OWNER_TOKEN="))
    assert "mesh_tokens().sign(" in mint and "MESH_SECRET" in mint
    assert any(line.startswith("MESH_SECRET=$(kubectl -n atc get secret atc-mesh ") for line in commands())
