"""Finding and killing every process an answer left behind, through psutil.

An answer runs in a new session (its own process group). On timeout, and again after a normal
exit, the group is killed; then every process is checked for survivors that moved to another
group: any process whose session id is the answer's, or (when answers run under a dedicated
uid) any process of that uid. Descendants that started a session of their own are killed first,
while the answer's leader still holds them. Also: whether the owner of a scratch folder or cgroup is alive.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable

import psutil


def process_start_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def owner_alive(pid: int, start: float | None = None) -> bool:
    """Is ``pid`` running and (when ``start`` is known) the same process, not a reused pid?"""
    now = process_start_time(pid)
    if now is None:
        return False
    return start is None or abs(now - float(start)) < 0.5


def find_survivors(sid: int, uid: int | None = None) -> list[int]:
    """Pids (not our own, not zombies) in session ``sid`` or owned by ``uid``."""
    me = os.getpid()
    found = []
    for proc in psutil.process_iter(["pid", "uids", "status"]):
        pid = proc.info["pid"]
        if pid == me or proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            session = os.getsid(pid)
        except OSError:
            continue
        uids = proc.info["uids"]
        if session == sid or (uid is not None and uids is not None and uids.real == uid):
            found.append(pid)
    return found


def kill_tree(sid: int, uid: int | None = None, rounds: int = 20) -> int:
    """Kill the process group ``sid`` and every survivor; return how many processes were hit.

    Repeats the sweep because a fork bomb keeps making new children while it is being killed.
    """
    hit = kill_descendants(sid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(sid, signal.SIGKILL)
        hit += 1
    return hit + kill_until_gone(lambda: find_survivors(sid, uid), rounds)


def kill_descendants(pid: int) -> int:
    """SIGKILL every descendant of ``pid`` while ``pid`` still holds them; returns how many.

    A descendant may sit in a session of its own (``bwrap --new-session`` puts the sandboxed
    command in one), where the session sweep cannot see it; ``--die-with-parent`` kills it with
    bwrap, except when bwrap dies before arming that (a cancel while it starts). Killed first,
    while the leader is alive, none of them is orphaned out of reach."""
    try:
        found = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return 0
    hit = 0
    for child in found:
        with contextlib.suppress(psutil.Error):
            child.kill()
            hit += 1
    return hit


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
