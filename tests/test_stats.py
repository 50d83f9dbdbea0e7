"""Confidence intervals and the paired test used in reports."""

import pytest

from ragcode.stats import bootstrap_ci, paired_test


def test_bootstrap_interval_brackets_the_rate_and_narrows_with_more_tasks():
    few = bootstrap_ci([1, 0] * 10)
    many = bootstrap_ci([1, 0] * 200)
    assert few[0] < 0.5 < few[1] and many[0] < 0.5 < many[1]
    assert (many[1] - many[0]) < (few[1] - few[0])
    assert bootstrap_ci([1, 1, 1]) == (1.0, 1.0)


def test_paired_test_counts_discordant_tasks_only():
    base = [True] * 10 + [False] * 30
    other = [True] * 10 + [True] * 12 + [False] * 18
    t = paired_test(base, other)
    assert t["gained"] == 12 and t["lost"] == 0 and t["p"] < 0.001
    assert paired_test(base, base) == {"gained": 0, "lost": 0, "p": 1.0}
    with pytest.raises(ValueError):
        paired_test([True], [True, False])
