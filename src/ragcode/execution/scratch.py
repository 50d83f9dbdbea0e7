"""Scratch copies of a repository, so an answer can write anywhere in it and the checkout stays as it was.

The copy is made with ``cp -a --reflink=auto`` (copy-on-write on filesystems that support it,
a plain copy elsewhere); ``.git`` is left out. The copy is removed when the context exits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ragcode.errors import ExecutionError

SKIP_NAMES = {".git"}


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
    root = Path(tempfile.mkdtemp(prefix="ragcode-exec-", dir=base or None))
    try:
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
    finally:
        shutil.rmtree(root, ignore_errors=True)
