"""On-disk results of a grid, keyed by content hash, written atomically.

Layout under the results directory::

    cells/<cell_key>.json          one finished cell (its row); present = never recomputed
    retrieval/<retrieval_key>.json per-task retrieval of one retrieval setting, shared by every
                                   cell with the same chunking/embedder/retrieval/rerank/context
    runs/<cell_key>/               the generation run of one cell (resumable by the bench runner)

A cell key hashes the cell's resolved config (for retrieval-only grids: the sections retrieval
depends on), the measuring settings, the task set and the repositories directory; a retrieval key hashes only the sections retrieval depends on. A file
appears only once complete (temp file + ``os.replace``), so a killed grid leaves no half results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcode.config import Config
from ragcode.errors import RagcodeError
from ragcode.fileio import write_atomic
from ragcode.hashing import digest

RETRIEVAL_SECTIONS = ("chunking", "embedder", "retrieval", "rerank", "context")


def cell_key(config: Config, measure: str, measure_key: str, tasks_key: str, repos: Path) -> str:
    """A retrieval-only cell depends on the retrieval sections alone, so a new default in, say,
    the generation settings does not void finished retrieval grids; a generation cell depends on
    the whole resolved config."""
    settings = (config.section_hash(*RETRIEVAL_SECTIONS) if measure == "retrieval"
                else config.hash())
    return digest({"config": settings, "measure": measure_key, "tasks": tasks_key,
                    "repos": str(repos)})


def retrieval_key(config: Config, tasks_key: str, repos: Path) -> str:
    return digest({"sections": config.section_hash(*RETRIEVAL_SECTIONS), "tasks": tasks_key,
                    "repos": str(repos)})


class ResultStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def cell_path(self, key: str) -> Path:
        return self.root / "cells" / f"{key}.json"

    def retrieval_path(self, key: str) -> Path:
        return self.root / "retrieval" / f"{key}.json"

    def run_dir(self, key: str) -> Path:
        return self.root / "runs" / key

    def load_cell(self, key: str) -> dict[str, Any] | None:
        return self._load(self.cell_path(key))

    def save_cell(self, key: str, row: dict[str, Any]) -> None:
        write_atomic(self.cell_path(key), json.dumps(row, indent=1, sort_keys=True))

    def load_retrieval(self, key: str) -> dict[str, Any] | None:
        return self._load(self.retrieval_path(key))

    def save_retrieval(self, key: str, data: dict[str, Any]) -> None:
        write_atomic(self.retrieval_path(key), json.dumps(data))

    @staticmethod
    def _load(path: Path) -> dict[str, Any] | None:
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RagcodeError(f"cached result {path} is unreadable ({exc}); delete it and re-run "
                               "to recompute that cell") from None
