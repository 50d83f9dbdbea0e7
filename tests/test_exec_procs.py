"""Killing what a run left behind (``ragcode.execution.procs.kill_tree``), on real processes."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time

import psutil

from ragcode.execution.procs import kill_tree


def _with_marker(marker: str) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]


def test_a_descendant_in_a_session_of_its_own_is_killed_with_the_leader():
    # the leader starts a grandchild that leaves the leader's session (as bwrap --new-session
    # does) and would outlive it: the session sweep alone cannot find it
    marker = f"ragcode_orphan_{secrets.token_hex(4)}"
    inner = f"import os, time; os.setsid(); {marker} = 1; time.sleep(300)"
    outer = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {inner!r}]); time.sleep(300)"
    leader = subprocess.Popen([sys.executable, "-c", outer], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _with_marker(marker), "the grandchild did not start"
        time.sleep(0.2)  # let it call setsid
        assert kill_tree(leader.pid) >= 2  # the grandchild and the leader's group
        leader.wait(30)
        deadline = time.monotonic() + 10
        while _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in _with_marker(marker) if p.status() != psutil.STATUS_ZOMBIE] == []
    finally:
        for p in _with_marker(marker):
            p.kill()
        leader.kill()
