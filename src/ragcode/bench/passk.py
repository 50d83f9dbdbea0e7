"""pass@k, in one place: the official positional rule and the unbiased estimator.

- Positional (ML-Bench's scorer, ``utils/exec.py``): a task passes at ``k`` when one of its
  first ``k`` ordered samples passed, i.e. the 1-based position of its first passing sample is
  ``<= k``. ``first_success`` / ``passed_at`` / ``pass_rates``; the harness report and the
  ablation rows both use these.
- Unbiased (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"):
  ``pass_at_k(n, c, k)``, reported beside the positional figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import comb

KS = (1, 2, 5)  # the cut-offs ML-Bench reports


def first_success(passes: Sequence[bool]) -> int | None:
    """1-based position of the first passing sample, or None."""
    for i, ok in enumerate(passes, 1):
        if ok:
            return i
    return None


def passed_at(passes: Sequence[bool], k: int) -> bool:
    """The official per-task pass@k: one of the first ``k`` ordered samples passed."""
    first = first_success(passes)
    return first is not None and first <= k


def pass_rates(per_task: Iterable[Sequence[bool]], ks: Iterable[int] = KS,
               n_tasks: int | None = None) -> dict[str, float]:
    """``{"pass@k": share of tasks that pass at k}`` over ordered per-task sample verdicts;
    ``n_tasks`` is the denominator (default: the number of tasks given; 0 tasks give 0.0)."""
    tasks = [list(p) for p in per_task]
    n = len(tasks) if n_tasks is None else n_tasks
    return {f"pass@{k}": (sum(passed_at(p, k) for p in tasks) / n) if n else 0.0 for k in ks}


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased estimate of the probability that at least one of ``k`` samples drawn from ``n``
    (``c`` correct) passes. None when ``k > n`` (not estimable from these samples)."""
    if n <= 0 or k > n:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)
