"""``--watch``: keep served indexes fresh while serving.

A daemon thread polls each repository every ``interval_s`` seconds: a snapshot of every file's
size and modification time (``.git`` and other tool folders left out). When it differs from the
last one, the thread runs the incremental ``ragcode.index.build.index_repo`` on that repository
(only new and changed files are chunked and embedded; the build writes a new generation and
swaps the manifest last) and then swaps the opened ``Index`` into the ``ServedIndex``: a search
meanwhile sees the old index or the new one. A failed update is logged and retried at the next
change; the old index stays served.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from ragcode.serve.served import ServedIndex, warm

log = logging.getLogger("ragcode.serve")

_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}

Snapshot = dict[str, tuple[int, int]]


def snapshot(root: Path) -> Snapshot:
    """``relative path -> (size, mtime_ns)`` of every file under ``root`` (links not followed)."""
    out: Snapshot = {}
    base = str(root)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        for name in filenames:
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            out[os.path.relpath(full, base)] = (st.st_size, st.st_mtime_ns)
    return out


def update(served: ServedIndex) -> bool:
    """Re-index ``served``'s repository incrementally and serve the result; True when the
    index changed (a new generation)."""
    from ragcode.check import facts
    from ragcode.index.build import index_repo

    with served.lease() as current:
        before, config = current.manifest.generation, current.config
    new = index_repo(served.repo, config, name=served.dir.name, out=served.dir.parent, progress=False)
    if new.manifest.generation == before:
        new.close()
        return False
    warm(new, served.config)  # the searcher is built before the swap, not by the next search
    served.swap(new)
    facts.scripts_near.cache_clear()  # the checks' list of runnable files (new files count now)
    log.info("updated index %s: generation %d, %d chunks", served.name, new.manifest.generation,
             new.chunk_count)
    return True


class Watcher:
    """Polls the served repositories and updates their indexes; ``start()``, ``stop()``."""

    def __init__(self, served: list[ServedIndex], interval_s: float = 2.0):
        self.served = served
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ragcode-watch", daemon=True)
        self._seen = {s.name: snapshot(s.repo) for s in served}

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            for s in self.served:
                self.poll(s)

    def poll(self, served: ServedIndex) -> bool:
        """One look at ``served``'s repository; True when its index was updated."""
        now = snapshot(served.repo)
        if now == self._seen.get(served.name):
            return False
        self._seen[served.name] = now
        try:
            return update(served)
        except Exception as exc:  # noqa: BLE001 - keep serving the old index; retry on the next change
            log.warning("updating index %s failed (the previous one stays served): %s", served.name,
                        " ".join(str(exc).split())[:300])
            return False
