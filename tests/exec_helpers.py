"""Helpers for the execution tests: a tiny fixture repository, tree hashes, process scans."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "examples" / "gcn").mkdir(parents=True)
    (repo / "README.md").write_text("# demo\nRun `python train.py --dataset cora`.\n")
    (repo / "examples" / "gcn" / "train.py").write_text(
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--dataset', default='cora')\n"
        "p.add_argument('--epochs', type=int, default=1)\n"
        "p.add_argument('-b', '--batch-size', type=int, default=2)\n"
        "a = p.parse_args()\n"
        "print('trained', a.dataset)\n")
    (repo / "examples" / "gcn" / "run.sh").write_text("#!/bin/sh\npython train.py \"$@\"\n")
    (repo / "mylib").mkdir()
    (repo / "mylib" / "__init__.py").write_text("VALUE = 3\n")
    return repo


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames) + [d + "/" for d in dirnames]:
            p = Path(dirpath) / name.rstrip("/")
            st = p.lstat()
            h.update(f"{p.relative_to(root)}:{st.st_mode}".encode())
            if p.is_file() and not p.is_symlink():
                h.update(p.read_bytes())
    return h.hexdigest()


def processes_with(token: str) -> list[int]:
    """Pids whose command line contains ``token`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if token in cmd and state != "Z":
            found.append(int(entry))
    return found


def interpreter_for_other_uid() -> str:
    """An interpreter an unprivileged uid can run outside bubblewrap (as root, isolation
    ``unshare``/``none`` refuses any other); skips the test when there is none."""
    if os.geteuid() != 0:
        return sys.executable
    from ragcode.execution.local import usable_by_other_uid

    for interp in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if Path(interp).exists() and usable_by_other_uid(interp, 200_000):
            return interp
    pytest.skip("no Python here that an unprivileged uid can run outside bubblewrap")


@pytest.fixture
def repo(tmp_path):
    """The fixture repository for an executed answer; fails the test if the answer changed it."""
    repo = make_repo(tmp_path)
    before = tree_hash(repo)
    yield repo
    assert tree_hash(repo) == before, "the repository checkout was modified"
