"""Stopping a piece of work from outside the thread that does it.

A Python thread cannot be killed, so work is stopped in two ways, both through one
``CancelToken`` that the work's thread carries (``using(token)``):

- the processes the work started are killed at once: whoever starts one registers how to kill
  it for as long as it runs (``on_cancel(kill)``), and ``token.cancel()`` calls every registered
  kill from the cancelling thread;
- the thread itself stops at its next ``checkpoint()``: long loops and every sandbox start call
  it, and it raises ``Cancelled`` once the token is cancelled.

``Cancelled`` derives from ``BaseException`` (as ``asyncio.CancelledError`` does), so the broad
``except Exception`` of a tool that records a failure and goes on does not swallow it, and a
cancelled result is never cached as if it were a real one. Outside any token (a command-line
run) ``checkpoint()`` and ``on_cancel()`` do nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import threading
from collections.abc import Callable, Iterator


class Cancelled(BaseException):
    """The work was cancelled (its caller went away, or its time limit passed)."""


class CancelToken:
    """One piece of work's cancellation: ``cancel(reason)`` once, from any thread."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._kills: dict[int, Callable[[], object]] = {}
        self._ids = itertools.count()
        self.reason = ""

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self, reason: str = "cancelled") -> None:
        """Mark the work cancelled and kill every process it has registered (idempotent)."""
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            kills = list(self._kills.values())
        for kill in kills:
            _quietly(kill)

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled(self.reason)

    def wait(self, timeout: float | None = None) -> bool:
        """Sleep until cancelled or ``timeout`` passes; True when cancelled."""
        return self._event.wait(timeout)

    @contextlib.contextmanager
    def on_cancel(self, kill: Callable[[], object]) -> Iterator[None]:
        """Call ``kill`` if the token is cancelled while the block runs (at once when it already is)."""
        with self._lock:
            key = next(self._ids)
            self._kills[key] = kill
            already = self._event.is_set()
        if already:
            _quietly(kill)
        try:
            yield
        finally:
            with self._lock:
                self._kills.pop(key, None)


def _quietly(kill: Callable[[], object]) -> None:
    with contextlib.suppress(Exception):  # a process already gone; the kill is best effort by nature
        kill()


_CURRENT: contextvars.ContextVar[CancelToken | None] = contextvars.ContextVar("ragcode_cancel", default=None)


def current() -> CancelToken | None:
    """The token of the work this thread does, or None."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(token: CancelToken) -> Iterator[CancelToken]:
    """Run the block as the work ``token`` cancels."""
    reset = _CURRENT.set(token)
    try:
        yield token
    finally:
        _CURRENT.reset(reset)


def checkpoint() -> None:
    """Raise ``Cancelled`` when the current work has been cancelled."""
    token = _CURRENT.get()
    if token is not None:
        token.check()


@contextlib.contextmanager
def on_cancel(kill: Callable[[], object]) -> Iterator[None]:
    """``CancelToken.on_cancel`` of the current token; nothing outside one."""
    token = _CURRENT.get()
    if token is None:
        yield
        return
    with token.on_cancel(kill):
        yield
