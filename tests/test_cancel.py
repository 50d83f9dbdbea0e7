"""``ragcode.cancel``: a token cancelled from another thread kills the sandboxed answer and the
interpreter probe the work started, the work's thread stops with ``Cancelled``, no process
is left, and nothing cancelled is returned as a result."""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from exec_helpers import make_repo, processes_with

from ragcode import cancel
from ragcode.execution import ExecSpec
from ragcode.execution.bwrap import bwrap_works

needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot create namespaces here")


def _cancel_once_running(work: Callable[[], Any], marker: str) -> tuple[dict[str, Any], bool]:
    """Run ``work`` under a token in a thread; once a process whose command line holds
    ``marker`` runs, cancel the token. (outcome, whether the process was seen running)"""
    token, outcome = cancel.CancelToken(), {}

    def body() -> None:
        try:
            with cancel.using(token):
                outcome["result"] = work()
        except cancel.Cancelled as exc:
            outcome["cancelled"] = str(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not processes_with(marker) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    seen = bool(processes_with(marker))
    token.cancel("the caller went away")
    thread.join(60)
    assert not thread.is_alive(), "the cancelled work's thread did not stop"
    return outcome, seen


@needs_bwrap
def test_a_cancelled_sandboxed_answer_is_killed_and_raises_instead_of_a_result(tmp_path: Path):
    from ragcode.execution.local import LocalExecutor

    repo = make_repo(tmp_path)
    marker = f"sleep {400 + secrets.randbelow(100)}"
    executor = LocalExecutor()
    outcome, seen = _cancel_once_running(
        lambda: executor.run(ExecSpec(marker, "bash", repo, ".", 120)), marker)
    assert seen
    assert outcome == {"cancelled": "the caller went away"}
    assert processes_with(marker) == []


@needs_bwrap
def test_a_cancelled_interpreter_probe_is_killed_and_not_taken_for_an_answer():
    import sys

    from ragcode.execution.probe import ask_interpreter

    marker = f"ragcode_probe_{secrets.token_hex(4)}"
    code = f"import time; {marker} = 1; time.sleep(300)"
    outcome, seen = _cancel_once_running(lambda: ask_interpreter(sys.executable, code), marker)
    assert seen and outcome == {"cancelled": "the caller went away"}
    assert processes_with(marker) == []


def test_a_kill_registered_after_the_cancel_runs_at_once_and_checkpoints_raise():
    token = cancel.CancelToken()
    killed: list[str] = []
    token.cancel("stop")
    token.cancel("a second reason is ignored")
    with token.on_cancel(lambda: killed.append("late")):
        pass
    assert killed == ["late"] and token.reason == "stop"
    with cancel.using(token), pytest.raises(cancel.Cancelled, match="stop"):
        cancel.checkpoint()
    cancel.checkpoint()  # outside any token: nothing to stop
    with cancel.on_cancel(lambda: killed.append("never")):
        pass
    assert killed == ["late"]


def test_cancelled_is_not_swallowed_by_a_broad_except():
    token = cancel.CancelToken()
    token.cancel()
    with pytest.raises(cancel.Cancelled):
        try:
            token.check()
        except Exception:  # noqa: BLE001 - what a tool that records failures does
            pytest.fail("Cancelled was caught as an Exception")
