"""The ``drop`` fix step (``ragcode.check.drop``): flags the script refuses and the user never
asked for are taken out; a flag the instruction names stays."""

from __future__ import annotations

from pathlib import Path

import pytest
from dryrun_helpers import CONFIGURATOR, NANO_TRAIN, needs_bwrap, runner, write

from ragcode.answer.fixes import fix_answer
from ragcode.check import CheckContext, Finding, check_answer, load_checkers
from ragcode.check.drop import asked, drop_refused, given, refused, without
from ragcode.config import Config
from ragcode.dryrun.checker import ParseChecker

TRAIN = """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--lr", type=float, default=0.1)
args = p.parse_args()
"""
TASK = "Train for 30 epochs with a learning rate of 0.01."


def _static(repo: Path) -> list:
    return load_checkers(["bash", "python", "coverage"], Config())


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return write(tmp_path / "repo", {"train.py": TRAIN})


def test_given_reads_each_flag_with_its_value_word():
    assert given("python x.py --a=1 --b 'two words' --c --d 4") == {"--a": "1", "--b": "two words", "--c": None,
                                                                   "--d": "4"}


def test_without_takes_the_flag_and_its_value_out_in_every_spelling():
    assert without("python x.py --a 1 --zz 3 --b 2", "--zz") == "python x.py --a 1 --b 2"
    assert without("python x.py --zz=3 --b 2", "--zz") == "python x.py --b 2"
    assert without("python x.py --a 1 \\\n  --zz 3 \\\n  --b 2", "--zz") == "python x.py --a 1 \\\n \\\n  --b 2"
    assert without("python x.py --zz --b 2", "--zz") == "python x.py --b 2"  # a bare flag: no value taken
    assert without("python x.py --zzz 1", "--zz") == "python x.py --zzz 1"  # another flag is untouched


def test_asked_reads_the_flags_name_and_value_in_the_instruction():
    assert asked("--epochs", "5", TASK)  # its name is a word of the task
    assert asked("--rate_x", "7", TASK)  # a part of its name too
    assert asked("--zz", "0.01", TASK)  # its value is one the task names
    assert asked("--zz", "1e-2", TASK) and asked("--steps", "300000", "Run 300,000 steps.")  # the same number
    assert not asked("--eval_iters", "20", "Sample 5 samples of at most 200 new tokens.")  # "20" is not "200"
    assert not asked("--the", None, TASK)  # a stopword is no evidence


def test_a_refused_flag_the_task_never_named_is_dropped(repo: Path):
    ctx = CheckContext(repo, ".", TASK)
    checkers = _static(repo)
    code = "python train.py --epochs 30 --lr 0.01 --warmup_steps 500"
    fs = check_answer(code, "bash", ctx, checkers)
    assert refused(fs, given(code)) == ["--warmup_steps"]
    fixed, fixed_fs, dropped = drop_refused(code, fs, ctx, lambda c: check_answer(c, "bash", ctx, checkers))
    assert (fixed, dropped) == ("python train.py --epochs 30 --lr 0.01", ["--warmup_steps"])
    assert not [f for f in fixed_fs if f.code == "unknown-flag"]


def test_a_refused_flag_carrying_the_tasks_value_stays(repo: Path):
    ctx = CheckContext(repo, ".", TASK)
    checkers = _static(repo)
    code = "python train.py --num_epochs 30"
    fs = check_answer(code, "bash", ctx, checkers)
    assert drop_refused(code, fs, ctx, lambda c: check_answer(c, "bash", ctx, checkers))[2] == []


def test_a_flag_a_certain_fix_corrects_is_not_dropped():
    slip = Finding("bash", "unknown-flag", "--epoch is not a flag of train.py", "error", 1, "train.py", "--epochs")
    assert refused([slip], {"--epoch": "3"}) == []  # one letter off the only flag that near
    renamed = Finding("bash", "unknown-flag", "--Epochs is not a flag of train.py", "error", 1, "train.py", "--epochs")
    assert refused([renamed], {"--Epochs": "3"}) == []  # case only: the certain fix renames it


def test_a_refused_value_is_not_a_refused_flag():
    bad = Finding("parse", "parse-rejected", "train.py's own parser refuses the command: argument --model: "
                  "invalid choice: 'x' (choose from 'a', 'b')", "error", 1, "train.py")
    unknown = Finding("parse", "parse-rejected", "error: unrecognized arguments: --zz 3", "error", 1, "train.py")
    assert refused([bad], {"--model": "x"}) == []
    assert refused([bad, unknown], {"--model": "x", "--zz": "3"}) == ["--zz"]
    short = Finding("parse", "parse-rejected", "unknown flag: m", "error", 1, "x")
    assert refused([short], {"-m": "pkg"}) == []  # python's -m (or -u) is never read from a message


def test_the_step_is_a_default_fix_and_recorded(repo: Path):
    ctx = CheckContext(repo, ".", TASK)
    checkers = _static(repo)
    code = "python train.py --epochs 30 --lr 0.01 --warmup_steps 500"
    fs = check_answer(code, "bash", ctx, checkers)
    out, _, record = fix_answer(code, "bash", fs, ctx, checkers)
    assert out == "python train.py --epochs 30 --lr 0.01" and record["dropped"] == ["--warmup_steps"]
    assert fix_answer(code, "bash", fs, ctx, checkers, ["certain"])[0] == code


@needs_bwrap
def test_configurator_keys_the_parser_refuses_one_by_one_are_all_dropped(tmp_path: Path):
    repo = write(tmp_path / "repo", {"sample.py": NANO_TRAIN, "configurator.py": CONFIGURATOR})
    checker = ParseChecker(Config())
    checker.runner = runner(tmp_path)
    task = "Sample with a learning rate of 0.001."
    ctx = CheckContext(repo, ".", task)
    code = "python sample.py --learning_rate=0.001 --eval_iters=20 --block_size=64 --n_layer=4"
    fs = check_answer(code, "bash", ctx, [checker])
    assert [f.code for f in fs] == ["parse-rejected"] and "eval_iters" in fs[0].message
    fixed, fixed_fs, dropped = drop_refused(code, fs, ctx, lambda c: check_answer(c, "bash", ctx, [checker]))
    assert dropped == ["--eval_iters", "--block_size"]  # n_layer is the script's own: kept
    assert fixed == "python sample.py --learning_rate=0.001 --n_layer=4" and fixed_fs == []
