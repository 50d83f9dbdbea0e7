"""A throw-away cgroup per answer: a hard process cap (that root cannot ignore, unlike
RLIMIT_NPROC), one memory bound for all the answer's processes together, and an exact list of
every process the answer made, for the final sweep.

Works with cgroup v1 (``/sys/fs/cgroup/pids`` and ``/sys/fs/cgroup/memory``, one group in each)
or v2 (one group under ``/sys/fs/cgroup`` with the pids and memory controllers). Where no pids
group can be made, ``AnswerCgroup.create`` returns None and the executor falls back to rlimits
and the session/uid sweep; where no memory group can be made (``memory`` False), the executor
watches the resident memory of the answer's processes itself (``ragcode.execution.watch``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import time
from pathlib import Path

log = logging.getLogger(__name__)

_V1_PIDS, _V1_MEMORY, _V2 = Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup")
_ROOTS = (_V1_PIDS, _V1_MEMORY, _V2)


class AnswerCgroup:
    def __init__(self, paths: list[Path], memory: Path | None = None):
        self.paths = paths  # the pids group first
        self.memory_path = memory  # the group holding the memory bound, when there is one

    @property
    def path(self) -> Path:
        return self.paths[0]

    @property
    def memory(self) -> bool:
        return self.memory_path is not None

    @classmethod
    def create(cls, max_pids: int, memory_bytes: int = 0) -> AnswerCgroup | None:
        """A new group with ``pids.max`` = ``max_pids`` and (when ``memory_bytes``) a memory
        bound of that many bytes, swap included; None when no pids group can be made here."""
        name = f"ragcode-{os.getpid()}-{secrets.token_hex(4)}"
        if (_V2 / "cgroup.controllers").exists():
            return cls._create_v2(_V2 / name, max_pids, memory_bytes)
        pids = _make(_V1_PIDS / name, {"pids.max": str(max_pids)}) if (_V1_PIDS / "cgroup.procs").exists() else None
        if pids is None:
            return None
        memory = None
        if memory_bytes and (_V1_MEMORY / "cgroup.procs").exists():
            # memsw (memory + swap) can only be set at or above the memory limit: memory first
            memory = _make(_V1_MEMORY / name, {"memory.limit_in_bytes": str(memory_bytes),
                                               "memory.memsw.limit_in_bytes": str(memory_bytes)},
                           optional=("memory.memsw.limit_in_bytes",))
        return cls([pids, *([memory] if memory else [])], memory)

    @classmethod
    def _create_v2(cls, path: Path, max_pids: int, memory_bytes: int) -> AnswerCgroup | None:
        try:
            controllers = (_V2 / "cgroup.subtree_control").read_text().split()
        except OSError:
            return None
        if "pids" not in controllers:
            return None
        settings = {"pids.max": str(max_pids)}
        if memory_bytes and "memory" in controllers:
            settings.update({"memory.max": str(memory_bytes), "memory.swap.max": "0", "memory.oom.group": "1"})
        made = _make(path, settings, optional=("memory.swap.max", "memory.oom.group"))
        if made is None:
            return None
        return cls([made], made if "memory.max" in settings else None)

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
                cls([path]).remove()
                removed += not path.exists()
        return removed

    def enter(self) -> None:
        """Move the calling process in (called in the child between fork and exec)."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.paths:
            try:
                found.update(int(x) for x in (path / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return sorted(found)

    def oom_killed(self) -> bool:
        """Did the kernel kill a process of the group for the memory bound?"""
        if self.memory_path is None:
            return False
        for name in ("memory.events", "memory.oom_control"):
            try:
                for line in (self.memory_path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                        return True
            except OSError:
                continue
        return False

    def kill_all(self, rounds: int = 50) -> int:
        """SIGKILL every member until none is left; returns how many were hit."""
        from ragcode.execution.procs import kill_until_gone

        return kill_until_gone(self.pids, rounds)

    def remove(self) -> None:
        self.kill_all()
        for path in self.paths:
            _remove(path)


def _make(path: Path, settings: dict[str, str], optional: tuple[str, ...] = ()) -> Path | None:
    try:
        path.mkdir()
    except OSError:
        return None
    for name, value in settings.items():
        try:
            (path / name).write_text(value)
        except OSError:
            if name in optional:
                continue
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
    return path


def _remove(path: Path) -> None:
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)
    log.warning("could not remove cgroup %s", path)
