"""A throw-away pids cgroup per answer: a hard process cap (that root cannot ignore, unlike
RLIMIT_NPROC) and an exact list of every process the answer made, for the final sweep.

Works with cgroup v1 (``/sys/fs/cgroup/pids``) or v2 (``/sys/fs/cgroup`` with the pids
controller); where neither is writable, ``PidsCgroup.create`` returns None and the executor
falls back to rlimits and the session/uid sweep.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import time
from pathlib import Path

log = logging.getLogger(__name__)

_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


class PidsCgroup:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, max_pids: int) -> PidsCgroup | None:
        for root in _ROOTS:
            if not (root / "cgroup.procs").exists():
                continue
            if root == Path("/sys/fs/cgroup") and not _v2_has_pids(root):
                continue
            path = root / f"ragcode-{os.getpid()}-{secrets.token_hex(4)}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "pids.max").write_text(str(max_pids))
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
                continue
            return cls(path)
        return None

    @classmethod
    def sweep_dead_owners(cls) -> int:
        """Kill the members of, and remove, every ragcode cgroup whose creating process is gone
        (a scorer killed with SIGKILL leaves its cgroup behind); returns how many were removed."""
        from ragcode.execution.procs import owner_alive

        removed = 0
        for root in _ROOTS:
            for path in root.glob("ragcode-*-*"):
                try:
                    owner = int(path.name.split("-")[1])
                except (IndexError, ValueError):
                    continue
                if owner_alive(owner):
                    continue
                cg = cls(path)
                cg.remove()
                removed += not path.exists()
        return removed

    def enter(self) -> None:
        """Move the calling process in (called in the child between fork and exec)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self, rounds: int = 50) -> int:
        """SIGKILL every member until none is left; returns how many were hit."""
        from ragcode.execution.procs import kill_until_gone

        return kill_until_gone(self.pids, rounds)

    def remove(self) -> None:
        self.kill_all()
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)
        log.warning("could not remove cgroup %s", self.path)


def _v2_has_pids(root: Path) -> bool:
    try:
        return "pids" in (root / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False
