"""``manifest.json``: what an index holds and what produced it. Read and written atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcode.errors import IndexStateError
from ragcode.fileio import write_atomic

FORMAT_VERSION = 1
MANIFEST = "manifest.json"


def rebuild_hint(index_dir: Path, repo: str | None = None) -> str:
    repo = repo or "REPO"
    return (f"rebuild it with `ragcode index {repo} --rebuild --out {index_dir.parent}` "
            f"(or delete {index_dir})")


def write_manifest(index_dir: Path, manifest: dict[str, Any]) -> None:
    write_atomic(index_dir / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())


def read_manifest(index_dir: Path) -> dict[str, Any]:
    """The manifest, checked for readability and format version (``IndexStateError`` if not)."""
    path = index_dir / MANIFEST
    if not path.is_file():
        raise IndexStateError(
            f"no index at {index_dir}: {MANIFEST} is missing. Build it with `ragcode index REPO`.")
    try:
        manifest = json.loads(path.read_text())
        if not isinstance(manifest, dict):
            raise ValueError("top level is not an object")
    except (OSError, ValueError) as exc:
        raise IndexStateError(
            f"index at {index_dir} is corrupt: {MANIFEST} cannot be read ({exc}); "
            + rebuild_hint(index_dir)) from None
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise IndexStateError(
            f"index at {index_dir} has format version {version!r}, this ragcode reads "
            f"{FORMAT_VERSION}; " + rebuild_hint(index_dir, manifest.get("repo")))
    for key in ("embedder", "files", "chunk_store", "counts"):
        if key not in manifest:
            raise IndexStateError(
                f"index at {index_dir} is corrupt: {MANIFEST} lacks {key!r}; " + rebuild_hint(index_dir))
    return manifest
