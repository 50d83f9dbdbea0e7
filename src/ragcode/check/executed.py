"""The executed check (off by default): run the answer briefly in the sandbox and read stderr.

Where the repository's environment exists (``execution.python`` / ``execution.envs``), running
the answer for a few seconds (``CHECK_TIMEOUT_S``) lets the script's own parser judge the
command line. What stderr says becomes findings of the same types as the static checks:
``unrecognized arguments`` -> ``unknown-flag``, ``invalid choice`` -> ``bad-choice``,
``invalid int value`` -> ``bad-type``, ``the following arguments are required`` ->
``missing-required``, ``ModuleNotFoundError`` -> ``unresolved-import`` (a warning: the
environment may lack it), any other traceback -> ``run-error``. Still running at the timeout
means nothing was found. The sandbox is the scorer's (``ragcode.execution``), with its limits.
"""

from __future__ import annotations

import re
from typing import Any

from ragcode.check import ERROR, WARNING, CheckContext, Finding, say

CHECK_TIMEOUT_S = 5.0
# what stderr says -> the finding code, its severity, and the names of the pattern's groups in the
# code's "executed" message (``ragcode.check.rules``)
_RULES = [
    (re.compile(r"unrecognized arguments: (.+)"), "unknown-flag", ERROR, ("flags",)),
    (re.compile(r"argument (\S+): invalid choice: (.+)"), "bad-choice", ERROR, ("flag", "value")),
    (re.compile(r"argument (\S+): invalid (\w+) value: (.+)"), "bad-type", ERROR, ("flag", "kind", "value")),
    (re.compile(r"the following arguments are required: (.+)"), "missing-required", ERROR, ("flags",)),
    (re.compile(r"ModuleNotFoundError: No module named '([^']+)'"), "unresolved-import", WARNING, ("module",)),
    (re.compile(r"No such file or directory: '([^']+)'|can't open file '([^']+)'"), "unknown-script", ERROR,
     ("file",)),
]


def findings_from_stderr(stderr: str) -> list[Finding]:
    out: list[Finding] = []
    for pattern, code, severity, names in _RULES:
        m = pattern.search(stderr)
        if m:
            groups = [g.strip() for g in m.groups() if g is not None]
            out.append(Finding("executed", code, say(code, "executed", **dict(zip(names, groups))), severity=severity))
    if not out and "Traceback (most recent call last)" in stderr:
        last = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1].strip()
        out.append(Finding("executed", "run-error", say("run-error", last=last[:200])))
    return out


class ExecutedChecker:
    name = "executed"
    takes_config = True

    def __init__(self, config: Any = None):
        from ragcode.config import Config

        self.config = config or Config()
        self._executor: Any = None

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        from ragcode.execution import ExecSpec, load_executor

        if self._executor is None:
            self._executor = load_executor(self.config.execution)
        spec = ExecSpec(code=code, mode="bash" if answer_type == "bash" else "python", repo_dir=ctx.repo_dir,
                        workdir=ctx.workdir, timeout_s=CHECK_TIMEOUT_S,
                        repo_name=ctx.extra.get("repo_name", ""))
        result = self._executor.run(spec)
        if result.infra_error or result.timed_out or result.exit_code == 0:
            return []
        return findings_from_stderr(result.stderr)
