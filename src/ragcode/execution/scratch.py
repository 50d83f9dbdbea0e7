"""Scratch folders of the executor, marked with their owner so leftovers can be swept.

- ``marked_dir``: a fresh ``ragcode-exec-<pid>-*`` folder with an ``.owner`` record (pid and
  process start time); removed when the context exits. A scorer killed with SIGKILL cannot
  remove it, so ``sweep_dead_owners`` removes every such folder whose owner is gone.
- ``scratch_copy`` (isolation ``unshare``/``none``): a host-side copy of the repository, made
  with ``cp -a --reflink=auto`` (copy-on-write where the filesystem can), ``.git`` left out.
  Under bubblewrap the copy is made inside the sandbox instead, on its size-bounded tmpfs.
- ``tmpfs_bytes``: what a copy of a repository takes on a tmpfs (whole pages per file).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ragcode.errors import ExecutionError
from ragcode.execution.procs import owner_alive, process_start_time

log = logging.getLogger(__name__)

SKIP_NAMES = {".git"}
PREFIX = "ragcode-exec-"
PAGE = 4096


@contextlib.contextmanager
def marked_dir(base: str | None = None) -> Iterator[Path]:
    """A fresh folder under ``base`` (the system temp dir when empty) that names its owner."""
    if base and not Path(base).is_dir():
        raise ExecutionError(f"execution.scratch_dir {base} is not a directory; create it or leave it empty")
    pid = os.getpid()
    root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{pid}-", dir=base or None))
    try:
        (root / ".owner").write_text(json.dumps({"pid": pid, "start": process_start_time(pid)}))
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sweep_dead_owners(base: str | None = None) -> int:
    """Remove the scratch folders under ``base`` whose owning process is gone (a killed scorer's
    leftovers); returns how many were removed."""
    removed = 0
    for d in Path(base or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = json.loads((d / ".owner").read_text())
            alive = owner_alive(int(owner["pid"]), owner.get("start"))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not ours to judge: no readable owner record
        if not alive:
            shutil.rmtree(d, ignore_errors=True)
            removed += not d.exists()
    if removed:
        log.info("removed %d scratch folder(s) left by dead runs", removed)
    return removed


SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")  # where any uid can write on a host


def sweep_uid_files(uid: int, places: tuple[str, ...] = SHARED_WRITABLE) -> int:
    """Remove what ``uid`` (an answer's own fresh uid, outside bubblewrap) left in the host's
    world-writable folders; returns how many entries were removed."""
    removed = 0
    for place in places:
        try:
            entries = list(os.scandir(place))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
                removed += 1
            except OSError:
                continue
    return removed


def tree_bytes(folder: Path, skip: frozenset[str] = frozenset(SKIP_NAMES)) -> int:
    """Bytes the files under ``folder`` take on a tmpfs (whole pages per file, a page per link);
    top-level entries named in ``skip`` are left out."""
    total = 0
    stack = [p for p in Path(folder).iterdir() if p.name not in skip]
    while stack:
        p = stack.pop()
        try:
            st = p.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            total += PAGE
        elif stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError):
                stack.extend(p.iterdir())
        else:
            total += -(-st.st_size // PAGE) * PAGE
    return total


@functools.lru_cache(maxsize=64)
def tmpfs_bytes(repo_dir: Path) -> int:
    """What a scratch copy of ``repo_dir`` (``.git`` left out) takes on a tmpfs; a repository
    does not change during a run, so this is measured once per process."""
    return tree_bytes(repo_dir)


def _copy_tree(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    entries = [str(p) for p in src.iterdir() if p.name not in SKIP_NAMES]
    if not entries:
        return
    cp = shutil.which("cp")
    if cp:
        proc = subprocess.run([cp, "-a", "--reflink=auto", *entries, str(dst)],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            return
        # fall through to a pure-Python copy (e.g. a cp without --reflink)
    for entry in entries:
        p = Path(entry)
        target = dst / p.name
        if p.is_dir() and not p.is_symlink():
            shutil.copytree(p, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(p, target, follow_symlinks=False)


@contextlib.contextmanager
def scratch_copy(repo_dir: Path, base: str | None = None, owner: int | None = None) -> Iterator[Path]:
    """Yield a fresh directory ``<tmp>/repo`` holding a copy of ``repo_dir``; removed afterwards.

    ``owner``: a uid that gets the copy (``chown -R``), for answers run under that uid.
    """
    repo_dir = Path(repo_dir)
    if not repo_dir.is_dir():
        raise ExecutionError(
            f"repository {repo_dir} is not a directory; place the checkout there "
            "(see `ragcode mlbench prepare`) or fix --repos")
    with marked_dir(base) as root:
        work = root / "repo"
        _copy_tree(repo_dir, work)
        if owner is not None:
            os.chown(root, owner, owner)
            os.chmod(root, 0o711)  # a capability-less root (bwrap --cap-drop ALL) must traverse it
            proc = subprocess.run(["chown", "-R", "-h", f"{owner}:{owner}", str(work)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise ExecutionError(f"cannot hand the scratch copy {work} to uid {owner}: "
                                     f"{proc.stderr.strip()}")
        yield work
