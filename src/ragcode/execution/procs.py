"""Finding and killing every process an answer left behind.

An answer runs in a new session (its own process group). On timeout, and again after a normal
exit, the group is killed; then ``/proc`` is scanned for survivors that moved to another group
or session: any process whose session id is the answer's, or (when answers run under a
dedicated uid) any process of that uid.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path


def _stat_fields(pid: int) -> tuple[int, int] | None:
    """(pgid, sid) of ``pid`` from /proc/<pid>/stat, or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = raw.rsplit(")", 1)[-1].split()
    # rest[0] = state, rest[1] = ppid, rest[2] = pgrp, rest[3] = session
    try:
        if rest[0] == "Z":
            return None
        return int(rest[2]), int(rest[3])
    except (IndexError, ValueError):
        return None


def _uid_of(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def find_survivors(sid: int, uid: int | None = None) -> list[int]:
    """Pids (not our own) in session ``sid`` or owned by ``uid``."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid == me:
            continue
        fields = _stat_fields(pid)
        if fields is None:
            continue
        if fields[1] == sid or (uid is not None and _uid_of(pid) == uid):
            found.append(pid)
    return found


def kill_tree(sid: int, uid: int | None = None, rounds: int = 20) -> int:
    """Kill the process group ``sid`` and every survivor; return how many processes were hit.

    Repeats the sweep because a fork bomb keeps making new children while it is being killed.
    """
    hit = 0
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(sid, signal.SIGKILL)
        hit += 1
    return hit + kill_until_gone(lambda: find_survivors(sid, uid), rounds)


def kill_until_gone(members: Callable[[], list[int]], rounds: int) -> int:
    """SIGKILL whatever ``members()`` lists until it lists nothing (at most ``rounds`` sweeps,
    a little apart, since a fork bomb keeps making children); returns how many were hit."""
    hit = 0
    for _ in range(rounds):
        pids = members()
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                hit += 1
        time.sleep(0.02)
    return hit

