"""A progress bar with an ETA for long loops (``mlbench run``'s tasks, ``ablate``'s cells).

On a terminal: one line (done / total, elapsed, time left) that goes away at the end. Elsewhere
(a log file, a pipe): one plain ``done KEY (i/total, ETA 0:12:30)`` line per finished unit, so a
log still says how far a run is.
"""

from __future__ import annotations

import time
from typing import Any


class TaskProgress:
    def __init__(self, what: str, console: Any = None):
        from rich.console import Console

        self.what = what
        self.console = console or Console(stderr=True)
        self.total = self.done = 0
        self._bar: Any = None
        self._job: Any = None
        self._t0 = time.monotonic()

    def start(self, total: int) -> None:
        self.total, self.done, self._t0 = total, 0, time.monotonic()
        if not self.console.is_terminal or total <= 0:
            return
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                             console=self.console, transient=True)
        self._bar.start()
        self._job = self._bar.add_task(self.what, total=total)

    def advance(self, key: str = "") -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.advance(self._job)
            return
        line = f"done {key}" if key else f"{self.what}: done"
        if self.total:
            line += f" ({self.done}/{self.total}, ETA {self.eta()})"
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def eta(self) -> str:
        if not self.done or self.done >= self.total:
            return "0:00:00"
        left = (time.monotonic() - self._t0) / self.done * (self.total - self.done)
        return time.strftime("%H:%M:%S", time.gmtime(left)) if left < 86400 else f"{left / 3600:.0f}h"

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
