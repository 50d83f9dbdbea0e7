"""Parallel parts of an index build: chunking across files in a process pool, and embedding
overlapped with it in a background thread.

- ``chunk_files(files, kinds, cfg, workers)`` yields ``(file, chunks or error)`` in the order of
  ``files`` (so chunk ids are the same as a serial run's); ``chunk_file`` runs in ``workers``
  forked processes when there are enough files to pay for them, else in this process.
- ``Prefetch``: a thread that embeds texts as the chunk step produces them, through the
  embedding cache. The embed step then finds those vectors in the cache, so the incremental
  logic (which chunks get vectors, which are removed) stays in one place, the embed step.

The pool is created (and its processes forked) before the prefetch thread starts, so no
process is forked while a thread of ours holds a lock.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from ragcode.config import ChunkingConfig
    from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)

# below this many files (or bytes) a pool costs more than it saves
MIN_POOL_FILES = 48
MIN_POOL_BYTES = 1_000_000
_MAX_AUTO_WORKERS = 8


def worker_count(setting: int, n_files: int, n_bytes: int) -> int:
    """Processes for chunking ``n_files`` files: ``setting`` (0 = one per CPU, at most 8), or 1
    when the files are too few or small, or when this process may not have children."""
    if n_files < MIN_POOL_FILES or n_bytes < MIN_POOL_BYTES:
        return 1
    if multiprocessing.current_process().daemon:  # e.g. inside a multiprocessing.Pool worker
        return 1
    if setting <= 0:
        setting = min(len(os.sched_getaffinity(0)), _MAX_AUTO_WORKERS)
    return max(1, min(setting, n_files))


_worker_cfg: Any = None  # the chunking settings, in a pool's worker process


def _init_worker(cfg: ChunkingConfig) -> None:
    global _worker_cfg
    _worker_cfg = cfg


def _chunk_with(cfg: ChunkingConfig, file: SourceFile) -> list[Chunk] | str:
    from ragcode.chunking import chunk_file

    try:
        return chunk_file(file, cfg)
    except Exception as exc:  # noqa: BLE001 - one bad file is not fatal; reported by the caller
        return f"{type(exc).__name__}: {exc}"


def _chunk_in_worker(file: SourceFile) -> list[Chunk] | str:
    return _chunk_with(_worker_cfg, file)


def chunk_files(files: Sequence[SourceFile], cfg: ChunkingConfig, workers: int,
                on_start: Callable[[], None] | None = None
                ) -> Iterator[tuple[SourceFile, list[Chunk] | str]]:
    """``(file, its chunks)`` for each file in order; an error message instead of chunks when
    ``chunk_file`` raised. ``on_start`` runs once the pool's processes exist (or at once)."""
    if workers <= 1:
        if on_start:
            on_start()
        for f in files:
            yield f, _chunk_with(cfg, f)
        return
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(cfg,)) as pool:
        # files in groups, so the pipe is not the bottleneck; results come back in order
        size = max(1, min(16, len(files) // (workers * 8)))
        results = pool.map(_chunk_in_worker, files, chunksize=size)  # forks every worker now
        if on_start:
            on_start()
        yield from zip(files, results)


class _Stopped(Exception):
    """Raised in the prefetch thread between two model calls once ``stop`` is asked."""


class Prefetch:
    """Embeds texts in a background thread, as they are produced, into the embedding cache.

    ``put(texts)`` queues texts; ``finish()`` waits for the rest and re-raises an error of the
    thread. ``busy_s`` is the time the thread spent embedding (model load included)."""

    def __init__(self, embedder: Any, batch: int = 256, advance: Callable[[int], None] | None = None):
        self.embedder = embedder  # a CachedEmbedder
        self.batch = batch
        self.advance = advance
        self.busy_s = 0.0
        self.done = 0
        self._queue: queue.Queue[list[str] | None] = queue.Queue()
        self._error: BaseException | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ragcode-embed", daemon=True)
        self._thread.start()

    def put(self, texts: list[str]) -> None:
        if texts and self._error is None:
            self._queue.put(texts)

    def finish(self) -> None:
        if self._thread is None:
            return
        self._queue.put(None)
        self._thread.join()
        self._thread = None
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Stop after the model call in progress (the build failed or was interrupted: Ctrl-C
        must not leave the thread inside the model while the interpreter exits); errors are
        dropped."""
        if self._thread is None:
            return
        self._stopping = True
        self._queue.put(None)
        self._thread.join()
        self._thread = None

    def _progress(self, n: int) -> None:
        """Between two model calls of a batch: stop there when asked to (``_Stopped``)."""
        if self._stopping:
            raise _Stopped
        if self.advance is not None:
            self.advance(n)

    def _run(self) -> None:
        pending: list[str] = []
        closed = False
        while not closed:
            item = self._queue.get()
            if item is None:
                closed = True
            else:
                pending += item
            # take whatever else is queued, then embed once there is a batch worth sorting
            while not closed:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    closed = True
                else:
                    pending += more
            if self._stopping:
                return
            if pending and (closed or len(pending) >= self.batch):
                try:
                    start = time.perf_counter()
                    self.embedder.embed(pending, on_progress=self._progress)
                    self.busy_s += time.perf_counter() - start
                    self.done += len(pending)
                except _Stopped:
                    return
                except BaseException as exc:  # noqa: BLE001 - re-raised by finish()
                    self._error = exc
                    return
                pending = []
