"""Running the tool calls: each in a thread of its own, at most ``max_concurrent`` at once,
within a time limit, and stopped when its caller goes away.

A call waits for a free slot (at most ``max_queued`` calls wait; one more is refused as busy),
then runs in a new thread under a ``ragcode.cancel.CancelToken``. The handler awaits the
thread's end. When the handler is cancelled (the client sent ``notifications/cancelled``, the
client's HTTP stream closed, the session ended) or the time limit passes, the token is
cancelled: the processes the call started (sandboxed answers, dry runs, interpreter probes) are
killed at once and the thread stops at its next checkpoint. The slot is given back only when
the thread has ended, so the cap counts every thread still working, cancelled ones included,
and a client that cancels in a loop cannot pile up threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ragcode import cancel
from ragcode.agent.schema import ToolCallError


class CallCancelled(Exception):
    """The call was cancelled before it gave a result (its thread is being stopped)."""


@dataclass
class _Outcome:
    value: Any = None
    error: BaseException | None = None
    cancelled: bool = False


@dataclass
class CallRunner:
    """The worker threads of one server: ``await run(label, fn, *args, timeout_s=...)``."""

    max_concurrent: int = 4
    max_queued: int = 64
    _limiters: dict[int, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    running: int = 0  # threads working now (cancelled ones until they end)
    started: int = 0  # calls that got a thread
    stopped: int = 0  # calls cancelled or past their time limit

    def stats(self) -> dict[str, int]:
        """What the runner holds now: threads still working (cancelled ones until they end),
        calls waiting for a slot, calls started and how many of them were stopped early."""
        limiters = list(self._limiters.values())
        waiting = limiters[0].statistics().tasks_waiting if limiters else 0
        return {"running": self.running, "waiting": waiting, "started": self.started, "stopped": self.stopped,
                "max_concurrent": self.max_concurrent, "max_queued": self.max_queued}

    def _limiter(self) -> Any:
        """The slots, one set per event loop (a server runs one; tests may run several)."""
        import asyncio

        import anyio

        key = id(asyncio.get_running_loop())
        if key not in self._limiters:
            self._limiters = {key: anyio.CapacityLimiter(self.max_concurrent)}
        return self._limiters[key]

    async def run(self, label: str, fn: Callable[..., Any], *args: Any, timeout_s: float,
                  stop: Any = None) -> Any:
        """``fn(*args)`` in a worker thread; raises ``TimeoutError`` past ``timeout_s`` (from
        arrival), ``CallCancelled`` when ``stop`` (an ``anyio.Event``: the client went away) is
        set first, ``ToolCallError`` when the server is busy, or what ``fn`` raised."""
        import anyio

        token = cancel.CancelToken()
        try:
            with anyio.fail_after(timeout_s):
                outcome = await self._slot_and_wait(label, fn, args, token, stop)
        except TimeoutError:
            self._stop(token, f"{label}: time limit of {timeout_s:g}s")
            raise
        except BaseException:
            self._stop(token, f"{label}: the caller cancelled")
            raise
        if outcome.cancelled:
            self._stop(token, f"{label}: the client went away")
            raise CallCancelled(token.reason or f"{label} was cancelled")
        if outcome.error is not None:
            raise outcome.error
        return outcome.value

    async def _slot_and_wait(self, label: str, fn: Callable[..., Any], args: tuple[Any, ...],
                             token: cancel.CancelToken, stop: Any) -> _Outcome:
        import anyio

        limiter = self._limiter()
        stats = limiter.statistics()
        if limiter.available_tokens < 1 and stats.tasks_waiting >= self.max_queued:
            raise ToolCallError(f"{label}: the server is busy ({stats.borrowed_tokens} calls running, "
                                f"{stats.tasks_waiting} waiting); try again shortly")
        await limiter.acquire_on_behalf_of(token)
        outcome, done = _Outcome(), anyio.Event()
        try:
            self._start(label, fn, args, token, outcome, lambda: self._finish(limiter, token, done))
        except BaseException:
            limiter.release_on_behalf_of(token)
            raise
        await _first_of(done, stop)
        if not done.is_set():
            outcome.cancelled = True
        return outcome

    def _start(self, label: str, fn: Callable[..., Any], args: tuple[Any, ...], token: cancel.CancelToken,
               outcome: _Outcome, finish: Callable[[], None]) -> None:
        from anyio.lowlevel import current_token

        loop = current_token()

        def work() -> None:
            try:
                with cancel.using(token):
                    outcome.value = fn(*args)
            except cancel.Cancelled:
                outcome.cancelled = True
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting handler
                outcome.error = exc
            finally:
                self._count(-1)
                _call_soon(loop, finish)

        self._count(+1)
        try:
            threading.Thread(target=work, name=f"ragcode-call-{label}", daemon=True).start()
        except BaseException:
            self._count(-1)
            raise

    @staticmethod
    def _finish(limiter: Any, token: cancel.CancelToken, done: Any) -> None:
        limiter.release_on_behalf_of(token)
        done.set()

    def _count(self, step: int) -> None:
        with self._lock:
            self.running += step
            self.started += max(step, 0)

    def _stop(self, token: cancel.CancelToken, reason: str) -> None:
        """Cancel a call's work (once), counting it."""
        if not token.cancelled:
            with self._lock:
                self.stopped += 1
        token.cancel(reason)


def _call_soon(loop: Any, fn: Callable[[], None]) -> None:
    """``fn()`` on the event loop ``loop`` from a worker thread; nothing once the loop is gone."""
    import anyio.from_thread

    try:
        anyio.from_thread.run_sync(fn, token=loop)
    except Exception:  # noqa: BLE001 - the server stopped: nobody is left to tell
        pass


async def _first_of(done: Any, stop: Any) -> None:
    """Wait for ``done``, or for ``stop`` when it is an event that is set first."""
    if stop is None:
        await done.wait()
        return
    import anyio

    async with anyio.create_task_group() as tg:
        async def watch() -> None:
            await stop.wait()
            tg.cancel_scope.cancel()

        tg.start_soon(watch)
        await done.wait()
        tg.cancel_scope.cancel()
