"""Worker pools and the driver loop that feeds them.

A pool runs a *handler* on payloads. Handlers are built in the workers by a *factory*: a
picklable callable with no arguments (a dataclass holding the config, say) that loads what the
work needs once per worker (a model, an executor) and returns ``handler(payload) -> value``.

- ``SerialPool``: in the calling thread, one payload at a time (``--workers 1``: today's loop);
- ``ThreadPool``: N threads sharing one handler (API models: one client, one request budget);
- ``ProcessPool``: N spawned processes, each with its own handler (local models, the executor).
  A process that dies (killed, out of memory) loses only the payload it held, reported as
  ``Done.lost``; a fresh process takes its place.

``fan_out`` is the driver's side: it pulls payloads lazily (so a context is built just before
its task is sent), keeps every worker busy, hands each result to ``on_done`` in the driver
thread (the one writer), runs a lost payload again up to ``RETRIES`` times and then passes it
on as lost. A handler's exception stops new work; what is in flight finishes (and is written),
then the exception is raised, as a one-worker run would raise it.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import signal
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_conns
from typing import Any, Protocol

log = logging.getLogger(__name__)

RETRIES = 2  # a payload whose worker died is run again this many times, then reported lost
Factory = Callable[[], Callable[[Any], Any]]


@dataclass
class Done:
    """One payload's outcome: ``value``, or ``error`` (the handler raised), or ``lost`` (why its
    worker died); ``attempts`` counts the runs it took."""

    tag: Any
    value: Any = None
    error: BaseException | None = None
    lost: str = ""
    attempts: int = 1


class Pool(Protocol):
    slots: int  # payloads it works on at once

    def submit(self, tag: Any, payload: Any) -> None: ...

    def wait(self) -> list[Done]:
        """Block until at least one submitted payload is done; its ``Done`` (and any other ready)."""
        ...

    def close(self, cancel: bool = False) -> None: ...


class SerialPool:
    slots = 1

    def __init__(self, factory: Factory):
        self._factory = factory
        self._handler: Callable[[Any], Any] | None = None
        self._queue: collections.deque = collections.deque()

    def submit(self, tag: Any, payload: Any) -> None:
        self._queue.append((tag, payload))

    def wait(self) -> list[Done]:
        tag, payload = self._queue.popleft()
        try:
            if self._handler is None:
                self._handler = self._factory()
            return [Done(tag, self._handler(payload))]
        except Exception as exc:  # noqa: BLE001 - handed to the driver, which re-raises it
            return [Done(tag, error=exc)]

    def close(self, cancel: bool = False) -> None:
        self._queue.clear()


class ThreadPool:
    def __init__(self, factory: Factory, slots: int):
        self.slots = slots
        self._factory = factory
        self._handler: Callable[[Any], Any] | None = None
        self._lock = threading.Lock()
        self._exec = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="ragcode-worker")
        self._futures: dict[Future, Any] = {}

    def _run(self, payload: Any) -> Any:
        with self._lock:  # the handler (one model client for all threads) is built once
            if self._handler is None:
                self._handler = self._factory()
        return self._handler(payload)

    def submit(self, tag: Any, payload: Any) -> None:
        self._futures[self._exec.submit(self._run, payload)] = tag

    def wait(self) -> list[Done]:
        done, _ = wait_futures(list(self._futures), return_when=FIRST_COMPLETED)
        out = []
        for fut in done:
            tag = self._futures.pop(fut)
            exc = fut.exception()
            out.append(Done(tag, error=exc) if exc is not None else Done(tag, fut.result()))
        return out

    def close(self, cancel: bool = False) -> None:
        self._exec.shutdown(wait=not cancel, cancel_futures=cancel)


def _worker_main(factory: Factory, conn: Any) -> None:
    """A pool process: build the handler on the first payload, then answer payloads until told
    to stop (``None``). Ctrl-C is the driver's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    handler = None
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        tag, payload = msg
        try:
            if handler is None:
                handler = factory()
            reply = ("ok", tag, handler(payload))
        except Exception as exc:  # noqa: BLE001 - sent to the driver, which re-raises it
            reply = ("error", tag, _picklable(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - a value that does not pickle
            conn.send(("error", tag, _picklable(exc)))


def _picklable(exc: BaseException) -> BaseException:
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))}")


@dataclass
class _Proc:
    proc: Any
    conn: Any
    tag: Any = None
    busy: bool = False


class ProcessPool:
    def __init__(self, factory: Factory, slots: int):
        self.slots = slots
        self._factory = factory
        self._ctx = multiprocessing.get_context("spawn")  # fork after torch's threads can hang
        self._procs = [self._start() for _ in range(slots)]
        self._backlog: collections.deque = collections.deque()

    def _start(self) -> _Proc:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(self._factory, child), daemon=True,
                                 name="ragcode-worker")
        proc.start()
        child.close()
        return _Proc(proc, parent)

    def pids(self) -> list[int]:
        return [p.proc.pid for p in self._procs]

    def submit(self, tag: Any, payload: Any) -> None:
        self._backlog.append((tag, payload))
        self._dispatch()

    def _dispatch(self) -> None:
        self._replace_dead()
        for p in self._procs:
            if not self._backlog:
                return
            if not p.busy:
                p.tag, payload = self._backlog[0]
                try:
                    p.conn.send((p.tag, payload))
                except (BrokenPipeError, OSError):
                    continue  # died while idle: found by wait(), nothing was lost
                self._backlog.popleft()
                p.busy = True

    def wait(self) -> list[Done]:
        while True:
            busy = [p for p in self._procs if p.busy]
            if not busy:
                self._dispatch()
                continue
            ready = set(wait_conns([p.conn for p in busy] + [p.proc.sentinel for p in busy]))
            out = []
            for i, p in enumerate(self._procs):
                if not p.busy or (p.conn not in ready and p.proc.sentinel not in ready):
                    continue
                try:
                    kind, tag, value = p.conn.recv()
                except (EOFError, OSError):
                    p.proc.join(5)
                    out.append(Done(p.tag, lost=f"worker process {p.proc.pid} died "
                                                f"(exit code {p.proc.exitcode})"))
                    self._procs[i] = self._start()
                    continue
                p.busy = False
                out.append(Done(tag, value) if kind == "ok" else Done(tag, error=value))
            self._dispatch()
            if out:
                return out

    def _replace_dead(self) -> None:
        for i, p in enumerate(self._procs):
            if not p.busy and not p.proc.is_alive():
                self._procs[i] = self._start()

    def close(self, cancel: bool = False) -> None:
        for p in self._procs:
            try:
                if not cancel:
                    p.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p in self._procs:
            p.proc.join(None if not cancel else 0)
            if p.proc.is_alive():
                p.proc.terminate()
                p.proc.join(5)
            p.conn.close()


def fan_out(pool: Pool, items: Iterable[tuple[Any, Any]], on_done: Callable[[Done], None],
            ahead: int | None = None, retries: int = RETRIES, close: bool = True) -> None:
    """Run every ``(tag, payload)`` of ``items`` on ``pool``; ``on_done`` gets each outcome in
    this thread (a lost one only after ``retries`` more runs). At most ``slots + ahead``
    payloads are taken from ``items`` before their results are in. The pool is closed at the
    end unless ``close`` is false (and always on an error)."""
    limit = pool.slots + (pool.slots if ahead is None else ahead) if pool.slots > 1 else 1
    source: Iterator[tuple[Any, Any]] | None = iter(items)
    inflight: dict[Any, list[Any]] = {}  # tag -> [payload, attempts]
    error: BaseException | None = None
    try:
        while True:
            while error is None and source is not None and len(inflight) < limit:
                try:
                    tag, payload = next(source)
                except StopIteration:
                    source = None
                    break
                except Exception as exc:  # noqa: BLE001 - building a payload failed: like a handler error
                    error = exc
                    break
                inflight[tag] = [payload, 1]
                pool.submit(tag, payload)
            if not inflight:
                break
            for done in pool.wait():
                payload, attempts = inflight[done.tag]
                done.attempts = attempts
                if done.lost and attempts <= retries:
                    log.warning("%s; running its work (%s) again, attempt %d of %d", done.lost,
                                done.tag, attempts + 1, retries + 1)
                    inflight[done.tag][1] += 1
                    pool.submit(done.tag, payload)
                    continue
                del inflight[done.tag]
                if done.error is not None:
                    error = error or done.error
                    continue
                on_done(done)
    except BaseException:
        pool.close(cancel=True)
        raise
    if close or error is not None:
        pool.close(cancel=error is not None)
    if error is not None:
        raise error
