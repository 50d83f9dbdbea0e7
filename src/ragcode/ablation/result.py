"""What a grid run returns (``GridResult``) and the row it ranks best: plain data that the
runner fills and the reports and plots read (so neither imports the runner)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcode.ablation.grid import GridSpec


@dataclass
class GridResult:
    spec: GridSpec
    rows: list[dict[str, Any]]
    computed: list[str] = field(default_factory=list)  # cell names run this time
    cached: list[str] = field(default_factory=list)  # cell names read from a finished result
    retrieval_runs: int = 0  # retrieval stage calls made this time
    seconds: float = 0.0
    files: dict[str, Path] = field(default_factory=dict)


def best_index(rows: list[dict[str, Any]], metric: str) -> int | None:
    """Index of the row with the highest ``metric`` (first one on ties); None if absent."""
    scored = [(float(row[metric]), i) for i, row in enumerate(rows) if isinstance(row.get(metric), (int, float))]
    if not scored:
        return None
    best = max(v for v, _ in scored)
    return next(i for v, i in scored if v == best)
