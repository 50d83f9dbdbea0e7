"""The journal of one checked task: finished steps read back on a resume, not generated again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragcode.fileio import append_line, read_lines, repair_tail


class Journal:
    """Finished steps of one task (``samples``, ``repair-1``...), one JSON line each, appended
    and fsynced; a torn last line from a kill is ignored."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self.steps: dict[str, Any] = {}
        if self.path is not None:
            repair_tail(self.path)
            for rec in read_lines(self.path):
                if "step" in rec and "data" in rec:
                    self.steps[rec["step"]] = rec["data"]

    def get(self, step: str) -> Any:
        return self.steps.get(step)

    def put(self, step: str, data: Any) -> None:
        self.steps[step] = data
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_line(self.path, {"step": step, "data": data})
