"""Filling a Python answer's left-out values into the unset parameters of its bound calls
(``ragcode.check.fill_calls``, fix step ``fill_calls``)."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import needs_bwrap, runner, write
from ragcode.answer.fixes import fix_and_keep
from ragcode.check import CheckContext, check_answer, load_checkers
from ragcode.check.fill_calls import best_parameter, with_keyword
from ragcode.config import Config
from ragcode.dryrun.checker import ParseChecker

SLOT = {"line": 2, "name": "vq.ResidualVQ",
        "unset": {"num_quantizers": "", "heads": "int", "kmeans_init": "bool", "kwargs": "*"}}


def test_the_keyword_goes_before_the_calls_closing_parenthesis_in_its_style():
    inline = "import vq\nm = vq.ResidualVQ(dim=256)\nprint(m)\n"
    assert with_keyword(inline, SLOT, "num_quantizers", "4") == (
        "import vq\nm = vq.ResidualVQ(dim=256, num_quantizers=4)\nprint(m)\n")
    empty = "import vq\nm = vq.ResidualVQ()\n"
    assert with_keyword(empty, SLOT, "name", "rvq") == "import vq\nm = vq.ResidualVQ(name='rvq')\n"
    one_a_line = "import vq\nm = vq.ResidualVQ(\n    dim=256,\n)\n"
    assert with_keyword(one_a_line, SLOT, "num_quantizers", "4") == (
        "import vq\nm = vq.ResidualVQ(\n    dim=256,\n    num_quantizers=4,\n)\n")
    assert with_keyword("import vq\nm = vq.Other(1)\n", SLOT, "heads", "4") is None  # not the call the slot names
    # ast counts columns in UTF-8 bytes: a non-ASCII letter earlier on the line does not move the keyword
    accented = "import vq\nm = vq.ResidualVQ(name='café')\n"
    assert with_keyword(accented, SLOT, "heads", "4") == "import vq\nm = vq.ResidualVQ(name='café', heads=4)\n"


def test_the_value_goes_to_the_one_parameter_its_words_name():
    said = "Build a ResidualVQ with dimension 256 and 4 quantizers."
    assert best_parameter("4", [SLOT], said) == (SLOT, "num_quantizers")
    assert best_parameter("4", [SLOT], "Build it with 4 heads.") == (SLOT, "heads")
    assert best_parameter("4", [SLOT], "Build it with 4 layers.") is None  # no parameter is named
    twins = {"line": 3, "name": "vq.VQ", "unset": {"num_quantizers": ""}}
    assert best_parameter("4", [SLOT, twins], said) is None  # two calls fit equally: nothing is filled
    switch = {"line": 2, "name": "vq.ResidualVQ", "unset": {"kmeans_init": "bool", "kwargs": "*"}}
    assert best_parameter("4", [switch], "with 4 kmeans init") is None  # a bool takes no number


def test_a_word_goes_only_to_a_parameter_known_to_take_a_string():
    said = "Create a VectorQuantize with a codebook of 1024 codes and EMA decay 0.9."
    untyped = {"line": 2, "name": "VectorQuantize", "unset": {"codebook_dim": "", "decay": "float"}}
    assert best_parameter("EMA", [untyped], said) is None  # codebook_dim=None: 'EMA' would bind, then break
    assert best_parameter("0.9", [untyped], said) == (untyped, "decay")
    named = {"line": 2, "name": "VectorQuantize", "unset": {"codebook_name": "str"}}
    assert best_parameter("EMA", [named], said) == (named, "codebook_name")


@needs_bwrap
def test_the_step_fills_a_required_value_the_model_left_out_and_the_keep_rule_keeps_it(tmp_path: Path):
    repo = write(tmp_path / "repo", {"vq/__init__.py": "from vq.rvq import ResidualVQ\n", "vq/rvq.py": """
        class ResidualVQ:
            def __init__(self, *, dim, num_quantizers, codebook_size, heads=1, kmeans_init=False, **kwargs):
                pass
        """})
    parse = ParseChecker(Config())
    parse.runner = runner(tmp_path)
    checkers = [*load_checkers(["python", "coverage"], Config()), parse]
    ctx = CheckContext(repo, ".", "In Python, build a ResidualVQ with dimension 256, 4 quantizers and a codebook "
                                  "size of 512.")
    code = "from vq import ResidualVQ\nrvq = ResidualVQ(\n    dim=256,\n    codebook_size=512,\n)\n"
    findings = check_answer(code, "python", ctx, checkers)
    assert {f.code for f in findings} == {"parse-rejected", "missing-value"}
    fixed = fix_and_keep(code, "python", findings, ctx, checkers, ["certain", "fill_calls"])
    assert fixed is not None and "    num_quantizers=4,\n)" in fixed.code
    assert fixed.record["filled_calls"] == [["4", "ResidualVQ.num_quantizers"]] and fixed.findings == []
    right = "from vq import ResidualVQ\nrvq = ResidualVQ(dim=256, num_quantizers=4, codebook_size=512)\n"
    assert fix_and_keep(right, "python", check_answer(right, "python", ctx, checkers), ctx, checkers,
                        ["certain", "fill_calls"]) is None  # a right answer is never rewritten
