"""``manifest.json``: what an index holds and what produced it. Read and written atomically.

``Manifest`` is the validated form: every field is type-checked on load (strictly: a count
written as ``"9"`` or a file list that is not an object is a corrupt index, reported in one line
with the command that rebuilds it), and the file names it points to must be this index's own
generation files, never a path.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcode.config import IndexConfig
from ragcode.errors import IndexStateError
from ragcode.fileio import write_atomic

FORMAT_VERSION = 1
MANIFEST = "manifest.json"

ChunkStoreFile = Annotated[str, Field(pattern=r"^chunks-[0-9]+\.sqlite$")]
VectorsFile = Annotated[str, Field(pattern=r"^vectors-[0-9]+\.faiss$")]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class EmbedderInfo(_Strict):
    name: str
    dim: int | None = None
    config: dict[str, Any] = Field(default_factory=dict)


class Counts(_Strict):
    chunks: int
    vectors: int
    files: int = 0
    files_by_kind: dict[str, int] = Field(default_factory=dict)
    chunks_by_kind: dict[str, int] = Field(default_factory=dict)


class Manifest(_Strict):
    """The contents of ``manifest.json`` (same keys on disk as format version 1 always had)."""

    format_version: int
    chunk_store: ChunkStoreFile
    vectors: VectorsFile | None = None
    embedder: EmbedderInfo
    files: dict[str, str]  # path -> sha256
    counts: Counts
    generation: Annotated[int, Field(ge=0)] = 0  # names the files; a negative one would name chunks--4.sqlite
    ragcode_version: str = ""
    name: str = ""
    repo: str = ""
    config_hash: str = ""
    section_hashes: dict[str, str] = Field(default_factory=dict)  # "chunking", "embedder"
    # README commands linked to the CLI tables of their scripts (chunking.cli
    # .link_readme_commands); an index written before this field was always linked
    links: bool = True
    config: dict[str, Any] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""
    last_run: dict[str, Any] = Field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=True)


def rebuild_hint(index_dir: Path, repo: str | None = None) -> str:
    """The command that rebuilds this very index (its name, and its root unless the default)."""
    index_dir = Path(index_dir)
    cmd = ["ragcode", "index", shlex.quote(repo) if repo else "REPO", "--rebuild",
           "--name", shlex.quote(index_dir.name)]
    root = index_dir.parent
    if os.path.abspath(root) != os.path.abspath(Path(IndexConfig().root).expanduser()):
        cmd += ["--out", shlex.quote(str(root))]
    return f"rebuild it with `{' '.join(cmd)}` (or delete {index_dir})"


def write_manifest(index_dir: Path, manifest: Manifest) -> None:
    write_atomic(index_dir / MANIFEST, manifest.to_json().encode())


def _problems(exc: ValidationError) -> str:
    """A one-line summary of what is wrong: ``counts.chunks: Input should be a valid integer``."""
    errors = exc.errors()
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'top level'}: {e['msg']}" for e in errors[:3]]
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "; ".join(parts).replace("\n", " ") + more


def read_manifest(index_dir: Path, repo: str | None = None) -> Manifest:
    """The manifest, checked for readability, format version and field types.

    ``repo`` (the repository, when the caller knows it) goes into the rebuild hint of an error;
    otherwise the manifest's own ``repo`` does, if readable."""
    path = index_dir / MANIFEST
    if not path.is_file():
        raise IndexStateError(
            f"no index at {index_dir}: {MANIFEST} is missing. Build it with `ragcode index REPO`.")
    try:
        raw = json.loads(path.read_text())
        if not isinstance(raw, dict):
            raise ValueError("top level is not an object")
    except (OSError, ValueError) as exc:
        raise IndexStateError(
            f"index at {index_dir} is corrupt: {MANIFEST} cannot be read ({exc}); "
            + rebuild_hint(index_dir, repo)) from None
    if repo is None and isinstance(raw.get("repo"), str):
        repo = raw["repo"]
    version = raw.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise IndexStateError(
            f"index at {index_dir} has format version {version!r}, this ragcode reads "
            f"{FORMAT_VERSION}; " + rebuild_hint(index_dir, repo))
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        raise IndexStateError(
            f"index at {index_dir} is corrupt: {MANIFEST} has fields of the wrong type or "
            f"missing ({_problems(exc)}); " + rebuild_hint(index_dir, repo)) from None
