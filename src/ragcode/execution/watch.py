"""Watching a running answer: its output kept as bounded tails read from pipes (no file on the
host, so nothing of it lands outside the answer's own disk bound), and the wait for its end
with the bounds no kernel mechanism enforces here (the disk cap of a host-side scratch copy, the
memory of all its processes together where no memory cgroup can be made)."""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import psutil

from ragcode.execution.scratch import tree_bytes

TAIL_BYTES = 4000  # what is kept of each of an answer's stdout and stderr
COPY_TIMEOUT_S = 300.0  # copying the repository into the sandbox, before the answer's clock starts
POLL_S = 0.2


class Tail:
    """Reads a pipe to its end on a thread, keeping only the last ``keep`` bytes (``TAIL_BYTES``)."""

    def __init__(self, pipe: IO[bytes], keep: int = TAIL_BYTES):
        self._pipe = pipe
        self.keep = keep
        self._buf = bytearray()
        self._lock = threading.Lock()
        self.total = 0
        self._thread = threading.Thread(target=self._read, daemon=True, name="ragcode-tail")
        self._thread.start()

    def _read(self) -> None:
        fd = self._pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            with self._lock:
                self._buf += chunk
                self.total += len(chunk)
                if len(self._buf) > 4 * self.keep:
                    del self._buf[:-self.keep]

    def text(self, join_s: float = 5.0) -> str:
        """The tail, once the pipe ended (every writer gone) or after ``join_s``."""
        self._thread.join(join_s)
        with self._lock:
            return bytes(self._buf[-self.keep:]).decode("utf-8", "replace")

    def close(self) -> None:
        if not self._thread.is_alive():
            self._pipe.close()


@dataclass
class Bounds:
    """What the wait enforces itself: ``disk`` (folder, bytes), ``memory`` (members, bytes),
    ``members`` listing the answer's processes, and ``oom``: whether the kernel has killed a
    process of the answer's memory cgroup (a cgroup v1 group has no ``memory.oom.group``: the
    kernel kills one process, and the wait then stops the whole answer, as v2 does)."""

    disk: tuple[Path, int] | None = None
    memory: tuple[Callable[[], list[int]], int] | None = None
    oom: Callable[[], bool] | None = None


def ready(reader: IO[bytes], proc: subprocess.Popen) -> bool:
    """Wait for the start script's ``ready`` line (the repository copy is in place)."""
    deadline = time.monotonic() + COPY_TIMEOUT_S
    while time.monotonic() < deadline:
        got, _, _ = select.select([reader], [], [], 0.5)
        if got:
            return reader.readline().strip() == b"ready"
        if proc.poll() is not None:
            return False
    return False


def wait_answer(proc: subprocess.Popen, timeout: float, bounds: Bounds) -> tuple[int | None, bool, str]:
    """(exit code, timed out, the bound it ran into: "" / "disk" / "memory") of the answer."""
    if bounds.disk is None and bounds.memory is None and bounds.oom is None:
        try:
            return proc.wait(timeout=timeout), False, ""
        except subprocess.TimeoutExpired:
            return None, True, ""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return proc.wait(timeout=min(POLL_S, max(0.0, deadline - time.monotonic()))), False, ""
        except subprocess.TimeoutExpired:
            hit = over_bound(bounds)
            if hit:
                return None, False, hit
            if time.monotonic() >= deadline:
                return None, True, ""


def wait_sandboxed(proc: subprocess.Popen, reader: IO[bytes] | None, timeout: float,
                   bounds: Bounds) -> tuple[int | None, bool, str, str, float]:
    """(exit code, timed out, bound hit, infra error, seconds): the sandbox's ``ready`` line
    (when ``reader`` is its report pipe), then the answer's end."""
    if reader is not None and not ready(reader, proc):
        return None, False, "", "the sandbox did not start", 0.0
    start = time.monotonic()
    code, timed_out, limit = wait_answer(proc, timeout, bounds)
    return code, timed_out, limit, "", time.monotonic() - start


def over_bound(bounds: Bounds) -> str:
    if bounds.disk is not None and tree_bytes(bounds.disk[0]) > bounds.disk[1]:
        return "disk"
    if bounds.memory is not None and resident_bytes(bounds.memory[0]()) > bounds.memory[1]:
        return "memory"
    if bounds.oom is not None and bounds.oom():
        return "memory"
    return ""


def resident_bytes(pids: list[int]) -> int:
    """Resident memory of ``pids`` together (what the processes of one answer hold)."""
    total = 0
    for pid in set(pids):
        try:
            total += psutil.Process(pid).memory_info().rss
        except psutil.Error:
            continue
    return total


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (an answer's tree, its pid namespace included)."""
    try:
        proc = psutil.Process(pid)
        return [pid, *(c.pid for c in proc.children(recursive=True))]
    except psutil.Error:
        return []


def tmpfs_full(report: str) -> bool:
    """From the start script's closing ``df -Pk`` line: is the sandbox's tmpfs (nearly) full?"""
    for line in report.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].isdigit():
            return int(fields[3]) < 512  # KiB left
    return False
