"""The official ML-Bench scoring rules (gersteinlab/ML-Bench ``utils/exec.py``), as pure functions.

Written from the rules, not copied. Quirks of the official scorer that these keep on purpose:

1. Arguments check: ``str(value).lower()`` must be a substring of the lower-cased output, so
   ``1`` matches any ``1`` anywhere (``--lr 0.1`` contains ``1``), a list value must appear in
   its Python repr (``['a', 'b']``), and the dict *keys* are never checked.
2. Type check by substring: a ``Bash Script`` answer must contain ``.sh `` or ``.py ``
   (with the trailing space: ``python train.py`` at the very end of the text fails, and so does
   ``python train.py\\n``); a ``Python Code`` answer must contain neither.
3. How an answer runs is decided by the same substrings, not by the task type: an answer with
   ``.sh `` or ``.py `` runs as a shell command, anything else is written to ``temp.py`` in the
   task's path and run with python.
4. An answer is executed only when both text checks pass (``and`` short-circuits).
5. Still running at the timeout counts as success. Timeouts are keyed by repository: 4 s for
   vid2vid (github_id 5), 7 s for pytorch-image-models (github_id 11) python answers, 10 s
   otherwise (bash answers of github_id 11 get 10 s).
6. stdout goes to a pipe that is never read, so an answer that prints more than the pipe holds
   (64 KiB on Linux) blocks and is then "still running" at the timeout: a pass.
7. pass@1/@2/@5 come from the position of the first passing sample (1 / <=2 / <=5); all five
   samples are tried even after a pass (``ragcode.bench.passk``).
8. Records whose ``output`` list does not hold exactly 5 samples are dropped from the scoring
   and from the denominator; outputs whose (id, github_id) is not in the dataset are dropped
   silently; the denominator is the number of scored records, not the dataset size.

Deliberate differences (documented in docs/mlbench.md): answers run in a scratch copy (the
official harness writes ``temp.py`` into the checkout and lets one sample's files leak into the
next), ``arguments`` is parsed with ``ast.literal_eval`` (never ``eval``), a task path missing
from the checkout is an infrastructure failure (the official ``cd ...;`` carries on in the
harness's own directory), and a per-repository interpreter replaces ``source activate``.
"""

from __future__ import annotations

from typing import Any

LEGACY_N = 5
DEFAULT_TIMEOUT_S = 10.0
# the benchmark's per-repository timeouts (seconds), by github_id and answer mode
REPO_TIMEOUTS: dict[tuple[int, str], float] = {
    (5, "bash"): 4.0, (5, "python"): 4.0,
    (11, "python"): 7.0,
}


def arguments_ok(output: str, arguments: dict[str, Any]) -> bool:
    low = output.lower()
    return all(str(value).lower() in low for value in arguments.values())


def type_ok(output: str, task_type: str) -> bool:
    has_cli = ".sh " in output or ".py " in output
    return has_cli if task_type == "Bash Script" else not has_cli


def run_mode(output: str) -> str:
    """``"bash"`` when the official harness would run the answer as a shell command."""
    return "bash" if (".sh " in output or ".py " in output) else "python"


def legacy_timeout(github_id: int, mode: str) -> float:
    return REPO_TIMEOUTS.get((int(github_id), mode), DEFAULT_TIMEOUT_S)

