"""What one ``index_repo`` run reports (``IndexSummary``) and its per-stage progress bars."""

from __future__ import annotations

import contextlib
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator


@dataclass
class IndexSummary:
    """What one ``index_repo`` run found and did."""

    name: str
    index_dir: str
    repo: str
    created: bool = False
    rebuilt: bool = False
    files_by_kind: dict[str, int] = field(default_factory=dict)
    files_added: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    chunks_by_kind: dict[str, int] = field(default_factory=dict)
    chunks_added: int = 0
    chunks_removed: int = 0
    links_updated: int = 0
    vectors: int = 0
    vectors_added: int = 0
    vectors_removed: int = 0
    embedded: int = 0  # vectors computed by the model in this run
    cached: int = 0  # vectors taken from the embedding cache (or a repeat of a text in this run)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def files(self) -> int:
        return sum(self.files_by_kind.values())

    @property
    def chunks(self) -> int:
        return sum(self.chunks_by_kind.values())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["files"] = self.files
        d["chunks"] = self.chunks
        return d


class Stages:
    """Rich progress bars per stage (or nothing when ``enabled`` is false), and stage timing."""

    def __init__(self, enabled: bool, summary: IndexSummary):
        self.summary = summary
        self.progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self.progress = Progress(
                TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True))

    def __enter__(self) -> Stages:
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress:
            self.progress.stop()

    @contextlib.contextmanager
    def stage(self, name: str, total: int | None = None) -> Iterator[Any]:
        task = self.progress.add_task(name, total=total) if self.progress else None
        start = time.perf_counter()

        def advance(n: int = 1) -> None:
            if self.progress is not None and task is not None:
                self.progress.advance(task, n)

        try:
            yield advance
        finally:
            self.summary.seconds[name] = round(
                self.summary.seconds.get(name, 0.0) + time.perf_counter() - start, 3)
            if self.progress is not None and task is not None:
                t = self.progress.tasks[task]
                if t.total is None:
                    self.progress.update(task, total=max(t.completed, 1), completed=max(t.completed, 1))
