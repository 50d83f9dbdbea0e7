"""A ``sys.argv`` configurator's key given its value after a space (``--batch_size 32``):
``spaced-config-value`` from the dry run (``ragcode.dryrun.checker``) and its certain fix."""

from __future__ import annotations

from dryrun_helpers import needs_bwrap
from golden_repos import build_golden_repos

from ragcode.answer.fixes import fix_and_keep
from ragcode.check import DEFAULT_CHECKS, ERROR, CheckContext, Finding, check_answer, load_checkers
from ragcode.check.autofix import autofix
from ragcode.dryrun.checker import spaced_values
from ragcode.dryrun.result import REJECTED, Entry, ParseResult

SPEC = [{"name": "--compile", "type": "bool"}, {"name": "--batch_size", "type": "int"},
        {"name": "--lr", "type": "float"}, {"name": "--out_dir", "type": "str"}]


def _refused(*argv: str, parser: str = "configurator") -> ParseResult:
    return ParseResult(REJECTED, Entry("script", "train.py", argv), parser=parser, spec=SPEC)


def test_a_key_with_its_value_after_a_space_is_read_as_such():
    assert spaced_values(_refused("--batch_size", "32", "--lr", "-1e-3", "--out_dir=o")) == [
        ("--batch_size", "32"), ("--lr", "-1e-3")]


def test_a_bare_switch_before_a_config_file_and_other_parsers_are_not_spaced_values():
    # the word after a bool key is its value only when it is a bool; a .py word is a config file
    assert spaced_values(_refused("--compile", "config/small.py", "--out_dir", "x.py")) == []
    assert spaced_values(_refused("--compile", "False")) == [("--compile", "False")]
    assert spaced_values(_refused("--unknown", "3", "--batch_size", "--lr=1")) == []
    assert spaced_values(_refused("--batch_size", "32", parser="argparse")) == []


def test_the_fix_joins_the_key_on_the_findings_line_only():
    code = "python eval.py --batch_size 8\npython train.py --batch_size  32 --lr 0.1\n"
    found = [Finding("parse", "spaced-config-value", "m", ERROR, 2, "--batch_size", "--batch_size=")]
    fixed, pairs = autofix(code, found)
    assert fixed == "python eval.py --batch_size 8\npython train.py --batch_size=32 --lr 0.1\n"
    assert pairs == [("--batch_size ", "--batch_size=")]


@needs_bwrap
def test_a_spaced_command_is_refused_then_fixed_to_one_the_configurator_takes(tmp_path):
    repo = build_golden_repos(tmp_path)["outside"]
    checkers = load_checkers([*DEFAULT_CHECKS, "parse"])
    ctx = CheckContext(repo, "gpt", "Train the small model with block size 64 and 4 layers.")
    code = "python train.py config/small.py --block_size 64 --n_layer 4"
    found = check_answer(code, "bash", ctx, checkers)
    assert sorted(f.target for f in found if f.code == "spaced-config-value") == ["--block_size", "--n_layer"]
    assert "parse-rejected" not in [f.code for f in found]
    kept = fix_and_keep(code, "bash", found, ctx, checkers)
    assert kept is not None and kept.code == "python train.py config/small.py --block_size=64 --n_layer=4"
    assert not [f for f in kept.findings if f.severity == ERROR]
