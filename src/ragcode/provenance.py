"""What made an output: the ragcode version, the git commit of the checkout it ran from, and the
environment (Python, platform, torch and the backend libraries), recorded in ``run.json``,
score reports and ablation results so a figure can be traced to the code and machine behind it.

- ``provenance()``: ``{"ragcode_version", "git_commit", "git_dirty", "environment"}``;
  ``git_commit`` is ``None`` when ragcode does not run from a git checkout (an installed wheel).
- ``environment()``: Python, platform and the installed versions of the libraries that change
  results (read from package metadata: nothing is imported).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from ragcode.version import __version__

# distributions whose version can change a result; absent ones are left out of the record
BACKENDS = ("torch", "sentence-transformers", "transformers", "faiss-cpu", "faiss-gpu", "onnxruntime",
            "onnxruntime-gpu", "llama-cpp-python", "vllm", "bm25s", "tree-sitter", "numpy")
GIT_TIMEOUT_S = 5


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@cache
def checkout_commit(package_dir: Path | None = None) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the git checkout whose ``src/ragcode`` is ``package_dir`` (default:
    this package); ``(None, None)`` when the package is not in a checkout of its own (installed
    from a wheel, even into a virtual environment inside some other repository)."""
    here = (package_dir or Path(__file__).resolve().parent).resolve()
    top = _git(["rev-parse", "--show-toplevel"], here)
    if top is None or (Path(top).resolve() / "src" / "ragcode") != here:
        return None, None
    commit = _git(["rev-parse", "HEAD"], here)
    status = _git(["status", "--porcelain", "--untracked-files=no"], here)
    return commit, (bool(status) if status is not None else None)


def _version_of(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def environment() -> dict[str, Any]:
    """Python, platform and the versions of the installed ``BACKENDS``."""
    versions = {name: v for name in BACKENDS if (v := _version_of(name)) is not None}
    return {"python": platform.python_version(), "implementation": sys.implementation.name,
            "platform": platform.platform(), "machine": platform.machine(), "packages": versions}


def provenance() -> dict[str, Any]:
    """The record every run folder, report and ablation result carries."""
    commit, dirty = checkout_commit()
    return {"ragcode_version": __version__, "git_commit": commit, "git_dirty": dirty,
            "environment": environment()}
