"""What a reader needs to trust a difference on a few dozen tasks: a bootstrap confidence
interval for a pass rate and a paired test between two settings on the same tasks.

Both through ``scipy.stats`` (extra ``bench``/``ablation``): ``bootstrap`` (percentile method,
fixed seed, so a report is repeatable) and an exact McNemar test as a two-sided binomial test
on the discordant pairs (``binomtest``), the standard paired test for two pass/fail outcomes
of the same tasks.
"""

from __future__ import annotations

from collections.abc import Sequence


def bootstrap_ci(outcomes: Sequence[bool | int | float], confidence: float = 0.95,
                 resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """The ``confidence`` interval of the mean of ``outcomes`` (e.g. pass@1 over tasks)."""
    import numpy as np
    from scipy.stats import bootstrap

    data = np.asarray(outcomes, dtype=float)
    if len(data) < 2 or data.min() == data.max():
        m = float(data.mean()) if len(data) else 0.0
        return m, m
    res = bootstrap((data,), np.mean, confidence_level=confidence, n_resamples=resamples,
                    method="percentile", random_state=np.random.default_rng(seed))
    return round(float(res.confidence_interval.low), 3), round(float(res.confidence_interval.high), 3)


def paired_test(base: Sequence[bool], other: Sequence[bool]) -> dict[str, float | int]:
    """Exact McNemar test of ``other`` against ``base`` on the same tasks: ``gained`` (other
    passes, base fails), ``lost`` (the reverse) and the two-sided ``p`` value."""
    from scipy.stats import binomtest

    if len(base) != len(other):
        raise ValueError("paired outcomes must be over the same tasks")
    gained = sum(bool(o) and not bool(b) for b, o in zip(base, other))
    lost = sum(bool(b) and not bool(o) for b, o in zip(base, other))
    p = binomtest(gained, gained + lost, 0.5).pvalue if gained + lost else 1.0
    return {"gained": gained, "lost": lost, "p": round(float(p), 4)}
