"""The unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models Trained on Code")."""

from __future__ import annotations

from math import comb


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Probability that at least one of ``k`` samples drawn from ``n`` (``c`` correct) passes.

    None when ``k > n`` (not estimable from these samples).
    """
    if n <= 0 or k > n:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)
