"""Step 1 of an index build: what this run must do, decided from the walk and the stored
``Manifest`` alone (no file is read or written here).

``plan_build`` compares the walked files with the old manifest's ``files`` (path -> sha256) and
its ``section_hashes``: a file is chunked again when it is new, its content changed, or the
chunking key changed (settings or ``CHUNKING_VERSION``); files gone from the walk are deleted.
The run has nothing to write (``up_to_date``) when the files, the chunking key, the embedder
settings and the link setting all match.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ragcode.chunking import CHUNKING_VERSION
from ragcode.config import Config
from ragcode.errors import ConfigError
from ragcode.index.manifest import Manifest
from ragcode.types import CHUNK_KINDS, SourceFile


def chunking_key(cfg: Config) -> str:
    """What decides a file's chunks: the chunking settings and the chunkers' output version."""
    return f"{cfg.section_hash('chunking')}-v{CHUNKING_VERSION}"


def links_wanted(cfg: Config) -> bool:
    """Whether the link step joins README commands and CLI tables (``Manifest.links``)."""
    return cfg.chunking.cli.link_readme_commands


def embed_kinds(cfg: Config) -> set[str] | None:
    """Kinds that get vectors; ``None`` = all."""
    unknown = sorted(set(cfg.embedder.kinds) - set(CHUNK_KINDS))
    if unknown:
        raise ConfigError(
            f"embedder.kinds has unknown chunk kinds {unknown}; known kinds: "
            f"{', '.join(CHUNK_KINDS)} (empty = all)")
    if not cfg.embedder.enabled:
        return set()
    return set(cfg.embedder.kinds) if cfg.embedder.kinds else None


@dataclass
class BuildPlan:
    """One run of ``index_repo``: the old index it updates and the files each step handles."""

    repo: Path
    name: str
    index_dir: Path
    old: Manifest | None  # the index this run updates (None: a new index, or --rebuild)
    generation: int  # the generation this run writes
    files: dict[str, SourceFile]  # every walked file, by path, in walk order
    kinds: dict[str, str]  # path -> file kind
    skipped: Counter[str]  # walk-time skip reasons (the chunk step adds "chunk-error")
    to_chunk: list[SourceFile] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    up_to_date: bool = False

    @property
    def chunk_store(self) -> str:
        return f"chunks-{self.generation}.sqlite"

    @property
    def vectors(self) -> str:
        return f"vectors-{self.generation}.faiss"

    def files_by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(self.kinds.values()).items()))


def up_to_date(old: Manifest, files: dict[str, SourceFile], cfg: Config) -> bool:
    """Same files (by sha256), same chunking, embedder and link settings as the stored index."""
    hashes = old.section_hashes
    return (hashes.get("chunking") == chunking_key(cfg)
            and hashes.get("embedder") == cfg.section_hash("embedder")
            and old.links == links_wanted(cfg)
            and old.files == {p: f.sha256 for p, f in files.items()})


def plan_build(repo: Path, name: str, index_dir: Path, cfg: Config, walked_files: list[SourceFile],
               kinds: dict[str, str], skipped: Counter[str], old: Manifest | None,
               live: Manifest | None) -> BuildPlan:
    """The plan for one run. ``old`` is the index being updated; ``live`` the one on disk until
    the swap (``old``, or under ``--rebuild`` the index being replaced): the new generation
    numbers after it."""
    files = {f.path: f for f in walked_files}
    plan = BuildPlan(repo=repo, name=name, index_dir=index_dir, old=old,
                     generation=live.generation + 1 if live else 1, files=files,
                     kinds={p: kinds[p] for p in files}, skipped=Counter(skipped))
    if old is not None and up_to_date(old, files, cfg):
        plan.up_to_date = True
        plan.unchanged = len(files)
        return plan
    known = old.files if old is not None else {}
    same_chunking = old is not None and old.section_hashes.get("chunking") == chunking_key(cfg)
    for p, f in files.items():
        if p not in known:
            plan.added += 1
            plan.to_chunk.append(f)
        elif known[p] != f.sha256 or not same_chunking:
            plan.changed += 1
            plan.to_chunk.append(f)
        else:
            plan.unchanged += 1
    plan.deleted = [p for p in known if p not in files]
    return plan
