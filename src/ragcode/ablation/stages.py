"""The two seams an ablation grid calls: retrieve, and generate + score.

Each is a plain callable (a ``typing.Protocol``), so a grid can run against the library's own
stages (``ragcode.ablation.adapters.default_retrieval_stage`` / ``default_generation_stage``,
built from ``ragcode.bench``) or against any stand-in (a counting wrapper in tests, a remote
service). Both get a resolved ``Config`` and return plain data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ragcode.config import Config
from ragcode.types import Chunk, Task


@dataclass(frozen=True)
class TaskRetrieval:
    """What retrieval produced for one task: the packed context and the ranked chunk ids.

    ``attainable`` / ``normalized_coverage`` are the oracle measure when the stage computed it
    (otherwise the grid computes it from the repository's chunks).
    """

    task: Task
    context: str
    ranked_ids: tuple[str, ...]
    context_ids: tuple[str, ...] = ()
    attainable: float | None = None
    normalized_coverage: float | None = None


@dataclass
class RetrievalBatch:
    """Retrieval for a set of tasks, plus every chunk of each repository used (by github_id):
    the pool that defines which chunks carry the oracle."""

    results: list[TaskRetrieval]
    pools: dict[int, Sequence[Chunk]] = field(default_factory=dict)


class RetrievalStage(Protocol):
    def __call__(self, tasks: Sequence[Task], repos: Path, config: Config) -> RetrievalBatch: ...


@dataclass(frozen=True)
class TaskGeneration:
    """The ordered per-sample verdicts of one task under one policy."""

    task_key: str
    passed: tuple[bool, ...]
    infra_errors: int = 0


class GenerationStage(Protocol):
    def __call__(
        self,
        retrievals: Sequence[TaskRetrieval],
        repos: Path,
        config: Config,
        policy: str,
        run_dir: Path,
        execute: bool = True,
    ) -> list[TaskGeneration]: ...
