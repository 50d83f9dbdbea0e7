"""``ragcode.answer.pipeline.choose``: samples checked, fixed and ordered. Every sample gets the
certain fixes before the order is made; with ``fix_each`` every fix, so a sample the fixes make
run wins over one they cannot mend; without it only the first gets the guessing steps."""

from __future__ import annotations

from check_helpers import make_check_repo

from ragcode.answer.pipeline import choose
from ragcode.answer.run import CheckedRun
from ragcode.check import DEFAULT_CHECKS, CheckContext, load_checkers
from ragcode.types import Candidate

TASK = "Train on cora with batch size 16."
# sample 1 (greedy) runs a script that does not exist; sample 2 has a slip of one flag's spelling
SAMPLES = ["python missing_train.py --data cora --batch_size 16", "python train.py --data cora --batch-size 16"]


def _run(tmp_path, fix_each: bool) -> CheckedRun:
    ctx = CheckContext(make_check_repo(tmp_path), ".", TASK)
    return CheckedRun(ctx, load_checkers(DEFAULT_CHECKS), autofix=True, fix_each=fix_each)


def _cands() -> list[Candidate]:
    return [Candidate(c, c, "bash", i, {}) for i, c in enumerate(SAMPLES)]


def test_with_fix_each_every_sample_is_fixed_before_the_order(tmp_path):
    cands, findings = choose(_cands(), _run(tmp_path, fix_each=True))
    first = cands[0]
    assert first.code == "python train.py --data cora --batch_size 16" and findings[0] == []
    assert first.metadata["check"]["original_index"] == 1
    assert first.metadata["check"]["autofix"]["previous"] == SAMPLES[1]
    assert first.metadata["check"]["autofix"]["pairs"] == [["--batch-size", "--batch_size"]]


def test_without_it_the_order_is_made_first_and_only_the_first_fixed(tmp_path):
    cands, findings = choose(_cands(), _run(tmp_path, fix_each=False))
    assert [c.metadata["check"]["original_index"] for c in cands] == [1, 0]  # the slip weighs less than no script
    assert cands[0].code == "python train.py --data cora --batch_size 16"
    assert cands[1].code == SAMPLES[0] and "autofix" not in cands[1].metadata["check"]


def test_a_sample_one_certain_fix_makes_clean_goes_before_one_no_fix_mends(tmp_path):
    # sample 1: a slip of a flag's spelling (an error, fixed for certain); sample 2: a flag given
    # twice (a warning, which no fix mends): ordered before their fixes, sample 2 would come first
    samples = ["python train.py --data cora --batch-size 16",
               "python train.py --data cora --batch_size 16 --batch_size 16"]
    cands = [Candidate(c, c, "bash", i, {}) for i, c in enumerate(samples)]
    ordered, findings = choose(cands, _run(tmp_path, fix_each=False))
    assert [c.metadata["check"]["original_index"] for c in ordered] == [0, 1]
    assert ordered[0].code == "python train.py --data cora --batch_size 16" and findings[0] == []
    record = ordered[0].metadata["check"]["autofix"]
    assert record["previous"] == samples[0] and record["pairs"] == [["--batch-size", "--batch_size"]]
    assert [f["code"] for f in record["findings_before"]] != []
