"""Runs one container of a rendered pod as its manifest says, as root inside the pod's
network namespace (`ip netns exec POD python3 container_init.py SPEC.json`), then becomes it:

- a mount namespace of its own with an overlay of the host's root as the container's root
  (so mount points can be made without touching the host), read-only when the container
  says readOnlyRootFilesystem;
- its volumes: emptyDir and PVCs as tmpfs, ConfigMaps and Secrets as read-only bind mounts
  of files the runner wrote (a Secret's with the kubelet's owner, group and mode);
- /etc/resolv.conf pointing at the runner's DNS responder, with the cluster's search path;
- its working directory, user and group, no_new_privs (allowPrivilegeEscalation: false);
- then exec of its command with exactly its environment.

Standard library only: it runs with the system Python before any venv is visible."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

CLONE_NEWNS = 0x00020000
PR_SET_NO_NEW_PRIVS = 38


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True)


def inside(root: str, path: str) -> str:
    """`path` of the container's filesystem as a host path under `root`, symlinks resolved
    within the root as the container sees them (the image's /var/run is a link to /run: a
    host-side join would land the mount, and the folders made for it, on the host's /run),
    as container runtimes resolve mount destinations."""
    resolved = root
    parts = [p for p in path.split("/") if p]
    hops = 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            resolved = os.path.dirname(resolved) if resolved != root else root
            continue
        candidate = os.path.join(resolved, part)
        if os.path.islink(candidate):
            hops += 1
            if hops > 40:
                raise OSError(f"too many symlinks in {path}")
            link = os.readlink(candidate)
            parts = [p for p in link.split("/") if p] + parts
            if link.startswith("/"):
                resolved = root
            continue
        resolved = candidate
    return resolved


def main(spec_path: str) -> None:
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    sh("mount", "--make-rprivate", "/")
    work = spec["work_dir"]
    os.makedirs(work, exist_ok=True)
    sh("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", work)
    for sub in ("upper", "work", "root"):
        os.makedirs(os.path.join(work, sub))
    root = os.path.join(work, "root")
    sh(
        "mount",
        "-t",
        "overlay",
        "overlay",
        "-o",
        f"lowerdir=/,upperdir={work}/upper,workdir={work}/work",
        root,
    )
    sh("mount", "--rbind", "/dev", f"{root}/dev")
    sh("mount", "-t", "proc", "proc", f"{root}/proc")
    sh("mount", "--rbind", "/sys", f"{root}/sys")
    for mount in spec["mounts"]:
        target = inside(root, mount["path"])
        os.makedirs(target, exist_ok=True)
        if mount["kind"] == "tmpfs":
            sh("mount", "-t", "tmpfs", "-o", f"size={mount['size']},mode=1777", "tmpfs", target)
            os.chown(target, spec["uid"], spec["gid"])
        else:
            sh("mount", "--bind", mount["source"], target)
            sh("mount", "-o", "remount,bind,ro", target)
    with open(f"{root}/etc/resolv.conf", "w", encoding="utf-8") as f:
        f.write(spec["resolv_conf"])
    # The image's files are readable by its user: the venv's interpreter lives under /root.
    os.chmod(f"{root}/root", 0o755)
    if spec["read_only_root"]:
        sh("mount", "-o", "remount,ro", root)
    os.chroot(root)
    os.chdir(spec["working_dir"])
    os.setgroups(spec.get("groups", []))
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])
    if spec["no_new_privs"]:
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


if __name__ == "__main__":
    main(sys.argv[1])
