"""Per-file chunking by kind, and the whole-repository pass (walk + chunk + link)."""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ragcode.chunking.api import chunk_api, with_definitions
from ragcode.chunking.api_link import link_api
from ragcode.chunking.scripts import chunk_cli, link_cli
from ragcode.chunking.symbols import extract_symbols
from ragcode.chunking.registry import get_chunker
from ragcode.chunking.walk import file_kind, walk_repo
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)


def skip_reason(file: SourceFile, cfg: ChunkingConfig, kind: str | None = None) -> str | None:
    """Why a walked file gets no chunks (size caps per kind, no chunker), else ``None``."""
    kind = kind or file_kind(file.path)
    if kind == "config" and file.size > cfg.text.config_max_bytes:
        return "config_too_large"
    if kind in ("text", "shell") and file.size > cfg.text.text_max_bytes:
        return "text_too_large"
    if kind == "notebook" and file.size > cfg.text.notebook_max_bytes:
        return "notebook_too_large"
    if kind not in cfg.chunkers:
        return "no_chunker"
    return None


def chunk_file(file: SourceFile, cfg: ChunkingConfig | None = None,
               kind: str | None = None) -> list[Chunk]:
    """Chunks of one file, by the chunker ``cfg.chunkers[kind]``; Python files also get their
    ``cli`` chunk when ``cli.enabled``, and when ``api.enabled`` their definitions (on the first
    code chunk) and ``api`` chunks. Pure: same file and config, same chunks."""
    cfg = cfg or ChunkingConfig()
    kind = kind or file_kind(file.path)
    if skip_reason(file, cfg, kind):
        return []
    chunks = list(get_chunker(cfg.chunkers[kind]).chunk(file, cfg))
    if kind == "python" and cfg.cli.enabled:
        chunks.extend(chunk_cli(file, cfg))
    if kind == "python" and cfg.api.enabled:  # the symbol index and the module's API listing
        symbols = extract_symbols(file.path, file.text)
        chunks = with_definitions(chunks, symbols) + chunk_api(file, cfg, symbols)
    return chunks


@dataclass
class ChunkedRepo:
    """The chunks of a repository, per file, with what was skipped and why."""

    root: Path
    files: list[SourceFile]
    chunks_by_file: dict[str, list[Chunk]]
    skipped: Counter[str]
    kinds: dict[str, str]  # path -> file kind
    seconds: dict[str, float] = field(default_factory=dict)  # walk / chunk / link

    def all_chunks(self) -> list[Chunk]:
        return [c for path in sorted(self.chunks_by_file) for c in self.chunks_by_file[path]]

    def counts_by_kind(self) -> Counter[str]:
        """Chunks by chunk kind."""
        return Counter(c.kind for chunks in self.chunks_by_file.values() for c in chunks)

    def files_by_kind(self) -> Counter[str]:
        return Counter(self.kinds[f.path] for f in self.files)


LINK_KEYS = ("commands", "cli_links", "api_links")  # the metadata the link passes write


def link_chunks(chunks: Sequence[Chunk], cfg: ChunkingConfig | None = None) -> list[Chunk]:
    """The one cross-file link pass (``chunk_repo``, ``ragcode index``, ``RagcodeNodeParser``).

    Links left by an earlier pass are dropped first, so the result depends on the chunks alone;
    then ``link_cli`` runs when ``cfg.cli.link_readme_commands`` and ``link_api`` when
    ``cfg.api.link``. Same length and order."""
    cfg = cfg or ChunkingConfig()
    base = [replace(c, metadata={k: v for k, v in c.metadata.items() if k not in LINK_KEYS})
            if any(k in c.metadata for k in LINK_KEYS) else c for c in chunks]
    linked = link_cli(base) if cfg.cli.link_readme_commands else base
    return link_api(linked) if cfg.api.enabled and cfg.api.link else linked


def relink(chunks_by_file: dict[str, list[Chunk]],
           cfg: ChunkingConfig | None = None) -> dict[str, list[Chunk]]:
    """``link_chunks`` over every chunk (files in path order), regrouped by file."""
    flat = [c for path in sorted(chunks_by_file) for c in chunks_by_file[path]]
    out: dict[str, list[Chunk]] = {path: [] for path in chunks_by_file}
    for c in link_chunks(flat, cfg):
        out[c.path].append(c)
    return out


def chunk_repo(root: str | os.PathLike[str], cfg: ChunkingConfig | None = None,
               on_file: Callable[[SourceFile], None] | None = None) -> ChunkedRepo:
    """Walk ``root``, chunk every file, then link README commands to CLI chunks."""
    cfg = cfg or ChunkingConfig()
    t0 = time.perf_counter()
    walked = walk_repo(root, cfg.walk)
    t1 = time.perf_counter()
    skipped = Counter(walked.skipped)
    by_file: dict[str, list[Chunk]] = {}
    for f in walked.files:
        kind = walked.kinds[f.path]
        reason = skip_reason(f, cfg, kind)
        if reason:
            skipped[reason] += 1
        else:
            by_file[f.path] = chunk_file(f, cfg, kind)
        if on_file is not None:
            on_file(f)
    t2 = time.perf_counter()
    by_file = relink(by_file, cfg)
    t3 = time.perf_counter()
    return ChunkedRepo(
        root=walked.root, files=walked.files, chunks_by_file=by_file, skipped=skipped,
        kinds=dict(walked.kinds),
        seconds={"walk": t1 - t0, "chunk": t2 - t1, "link": t3 - t2},
    )
