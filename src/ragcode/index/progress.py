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
    workers: int = 1  # processes that chunked files
    overlapped: int = 0  # texts the background thread took (from the cache or the model) while files were chunked
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per stage (they add up)
    # work done in the background while chunk and link ran: embedding (model load included)
    # and the model load on its own; not in ``seconds``, which would then count it twice
    background: dict[str, float] = field(default_factory=dict)

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
        self._tasks: dict[str, Any] = {}
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

    def bar(self, name: str, total: int | None = None) -> Any:
        """A bar for work that starts before its stage (embedding overlapped with chunking);
        the stage of the same name later reuses it. Returns its ``advance``."""
        if self.progress is not None:
            self._tasks[name] = self.progress.add_task(name, total=total)
        return self._advancer(self._tasks.get(name))

    def _advancer(self, task: Any) -> Any:
        def advance(n: int = 1) -> None:
            if self.progress is not None and task is not None:
                self.progress.advance(task, n)
        return advance

    @contextlib.contextmanager
    def stage(self, name: str, total: int | None = None, keep: bool = False) -> Iterator[Any]:
        """Time the block as stage ``name``; its bar is the one ``bar(name)`` made, if any
        (reset to zero, unless ``keep``)."""
        task = self._tasks.pop(name, None)
        if self.progress is not None:
            if task is None:
                task = self.progress.add_task(name, total=total)
            elif not keep:
                self.progress.reset(task, total=total)
        start = time.perf_counter()
        advance = self._advancer(task)

        try:
            yield advance
        finally:
            self.summary.seconds[name] = round(
                self.summary.seconds.get(name, 0.0) + time.perf_counter() - start, 3)
            if self.progress is not None and task is not None:
                t = self.progress.tasks[task]
                if t.total is None:
                    self.progress.update(task, total=max(t.completed, 1), completed=max(t.completed, 1))
