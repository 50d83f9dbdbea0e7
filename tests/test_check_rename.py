"""The ``rename`` fix step (``ragcode.check.rename``): a refused flag the user asked for gets the
one declared name it abbreviates; the configurator's keys reach the prompt and the step as its
parser's spec."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import CONFIGURATOR, NANO_TRAIN, needs_bwrap, runner, write

from ragcode.answer.fixes import DEFAULT_FIXES, fix_answer
from ragcode.check import CheckContext, Finding, check_answer
from ragcode.check.rename import abbreviates, rename_refused, renamed, with_name
from ragcode.config import Config
from ragcode.dryrun.checker import ParseChecker

TASK = "Sample with a learning rate of 0.001 and 6 layers."


def test_a_short_name_abbreviates_by_initials_or_by_its_start():
    assert abbreviates("--lr", "--learning_rate") and abbreviates("--bs", "--batch-size")
    assert abbreviates("--learning", "--learning_rate")
    assert not abbreviates("--lr", "--lr_decay_iters")  # two letters are no start
    assert not abbreviates("--lr", "--lr") and not abbreviates("--l", "--layers")  # one part: no initials
    assert not abbreviates("--nl", "--n_layer_x")  # the initials of three parts are three letters


def test_only_one_declared_name_that_the_answer_lacks_is_taken():
    declared = ["--learning_rate", "--lr_decay_iters", "--n_layer", "--num_layers"]
    assert renamed("--lr", declared, {"--lr": "1"}) == "--learning_rate"
    assert renamed("--lr", declared, {"--lr": "1", "--learning_rate": "2"}) is None  # given already
    assert renamed("--nl", declared, {"--nl": "6"}) is None  # n_layer and num_layers: two fit
    assert renamed("--zz", declared, {"--zz": "1"}) is None


def test_a_declared_name_with_other_separators_is_taken():
    declared = ["--model", "--output_dir", "--nodes"]
    assert renamed("--output-dir", declared, {"--output-dir": "out"}) == "--output_dir"
    assert renamed("--output-dir", declared, {"--output-dir": "a", "--output_dir": "b"}) is None  # given already
    assert renamed("--model", declared, {"--model": "large"}) is None  # the same name is no rename


def test_the_new_name_keeps_the_value_in_either_spelling():
    assert with_name("python t.py --lr=0.1 --lrx 2", "--lr", "--learning_rate") == "python t.py --learning_rate=0.1 --lrx 2"
    assert with_name("python t.py --lr 0.1", "--lr", "--learning_rate") == "python t.py --learning_rate 0.1"


def test_an_unasked_flag_is_left_to_drop():
    refusal = Finding("parse", "parse-rejected", "ValueError: Unknown config key: lr", "error", 1, "t.py")
    ctx = CheckContext(Path("."), ".", "Train for 3 epochs.")
    out = rename_refused("python t.py --lr=0.5", [refusal], ctx, lambda c: [], lambda c: ["--learning_rate"])
    assert out[2] == []  # 0.5 is no value of the task, and no part of "lr" is said


@needs_bwrap
def test_a_configurator_key_the_user_gave_short_is_renamed(tmp_path: Path):
    repo = write(tmp_path / "repo", {"sample.py": NANO_TRAIN, "configurator.py": CONFIGURATOR})
    checker = ParseChecker(Config())
    checker.runner = runner(tmp_path)
    ctx = CheckContext(repo, ".", TASK)
    code = "python sample.py --lr=0.001 --n_layer=6"
    fs = check_answer(code, "bash", ctx, [checker])
    assert [f.code for f in fs] == ["parse-rejected"]
    assert {"--learning_rate", "--n_layer", "--dataset"} <= set(checker.declared(code, "bash", ctx))
    assert "rename" in DEFAULT_FIXES
    out, out_fs, record = fix_answer(code, "bash", fs, ctx, [checker])
    assert out == "python sample.py --learning_rate=0.001 --n_layer=6" and out_fs == []
    assert record["renamed"] == [["--lr", "--learning_rate"]]
    assert fix_answer(code, "bash", fs, ctx, [checker], ["certain", "drop"])[0] == code  # drop keeps an asked flag


@needs_bwrap
def test_the_prompt_shows_a_configurators_keys_as_name_value(tmp_path: Path):
    from ragcode.answer.grounding import render
    from ragcode.dryrun.result import Entry

    repo = write(tmp_path / "repo", {"sample.py": NANO_TRAIN, "configurator.py": CONFIGURATOR})
    result = runner(tmp_path).run(Entry("script", "sample.py"), CheckContext(repo, ".", TASK))
    assert result.parser == "configurator"
    table = render(result, "sample.py", TASK, 1200)
    assert "Give each as --name=value" in table and "--learning_rate float (default: 0.0006)" in table
