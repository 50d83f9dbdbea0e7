"""Asking a configured interpreter a question without running anything of the current folder,
a repository or its environment outside the sandbox.

The checks need to know what an environment can import (``execution.python``,
``execution.envs.<repo>``). Starting that interpreter runs its ``site`` (``.pth`` files,
``sitecustomize``) and, with ``-c``, puts the current folder first on ``sys.path``: a
``json.py`` there would run as the scorer's user. So the question runs in isolated mode (``-I``:
no current folder on the path, no ``PYTHON*`` variables, no user site), from an empty folder,
and inside the bubblewrap view of an executed answer (no repository, no network, a private
``/tmp``) wherever bubblewrap works. The question's data goes through stdin, never argv.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from typing import Any

from ragcode import cancel
from ragcode.execution.bwrap import View, bwrap_works
from ragcode.execution.procs import kill_tree

PROBE_TIMEOUT_S = 60.0
_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1"}


def ask_interpreter(interpreter: str, code: str, stdin: str = "",
                    timeout: float = PROBE_TIMEOUT_S) -> subprocess.CompletedProcess[str] | None:
    """Run ``interpreter -I -c code`` with ``stdin``, sandboxed; None when it cannot run.
    Under a cancelled ``ragcode.cancel`` token the probe is killed and ``Cancelled`` raised (so a
    killed probe is never remembered as the interpreter's answer)."""
    argv = [interpreter, "-I", "-c", code]
    cancel.checkpoint()
    with tempfile.TemporaryDirectory(prefix="ragcode-probe-") as empty:
        if bwrap_works():
            argv = View(interpreter, tmp_bytes=64 << 20).argv(argv, chdir="/tmp")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, cwd=empty, env=dict(_ENV), start_new_session=True)
        except OSError:
            return None
        with cancel.on_cancel(lambda: kill_tree(proc.pid)):
            try:
                out, err = proc.communicate(stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                kill_tree(proc.pid)
                proc.communicate()
                return None
    cancel.checkpoint()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def ask_json(interpreter: str, code: str, stdin: str = "") -> Any:
    """The JSON value ``code`` prints last when asked as ``ask_interpreter`` asks it (an imported
    package or the interpreter's ``site`` may print before it); None when it ran badly or printed
    none."""
    proc = ask_interpreter(interpreter, code, stdin)
    lines = proc.stdout.strip().splitlines() if proc is not None and proc.returncode == 0 else []
    try:
        return json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None
