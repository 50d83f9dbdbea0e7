"""Slips of a command against its script's parser (``ragcode.check.args.match_args``): a switch
given True/False (``switch-value``), the next positional written as a flag
(``positional-as-flag``) and a long flag written with one dash (``single-dash-flag``), each with
its certain fix (``ragcode.check.autofix``)."""

from __future__ import annotations

from ragcode.check.args import match_args
from ragcode.check.autofix import autofix
from ragcode.chunking.scripts.flag import Flag

FLAGS = [Flag(name="input", positional=True), Flag(name="output", positional=True),
         Flag(name="--flip", action="store_true"), Flag(name="--size", type="int")]


def _codes(args: str) -> list[tuple[str, str]]:
    return [(f.code, f.target) for f in match_args(args.split(), FLAGS, "calc.py")]


def test_a_switch_given_a_bool_word_is_one_finding_not_a_positional():
    assert _codes("a.lmdb out.pt --flip True --size 256") == [("switch-value", "--flip True")]
    assert _codes("a.lmdb out.pt --flip false") == [("switch-value", "--flip false")]
    assert _codes("a.lmdb out.pt --flip") == []
    fixed, pairs = autofix("python calc.py a.lmdb out.pt --flip False --size 256",
                           match_args("a.lmdb out.pt --flip False --size 256".split(), FLAGS, "calc.py"))
    assert fixed == "python calc.py a.lmdb out.pt --size 256" and pairs == [("--flip False", "")]


def test_only_the_next_positional_written_as_a_flag_is_moved():
    assert _codes("--input a.lmdb out.pt") == [("positional-as-flag", "--input")]
    assert _codes("a.lmdb --output=out.pt") == [("positional-as-flag", "--output")]
    # out of order: --output before the input would swap them, so it stays an unknown flag
    assert [c for c, _ in _codes("--output out.pt a.lmdb")][0] == "unknown-flag"
    fixed, _ = autofix("python calc.py --input a.lmdb out.pt", match_args("--input a.lmdb out.pt".split(), FLAGS,
                                                                             "calc.py"))
    assert fixed == "python calc.py a.lmdb out.pt"


def test_a_long_flag_with_one_dash_is_the_long_flag_where_the_parser_would_glue_a_short_one():
    flags = [Flag(name="--output", aliases=["-o"]), Flag(name="--only_center_face", action="store_true"),
             Flag(name="--bg_tile", type="int")]
    args = "-o out -only_center_face --bg_tile 200".split()
    found = match_args(args, flags, "infer.py")
    # argparse reads -o nly_center_face: accepted, and the output is lost; read as the long flag, no duplicate -o
    assert [(f.code, f.target, f.suggestion) for f in found] == [
        ("single-dash-flag", "-only_center_face", "--only_center_face")]
    fixed, pairs = autofix("python infer.py -o out -only_center_face --bg_tile 200", found)
    assert fixed == "python infer.py -o out --only_center_face --bg_tile 200"
    assert [f.code for f in match_args("-bg_tile=5".split(), flags, "infer.py")] == ["unknown-flag"]  # no -b: refused
    assert [f.code for f in match_args("-ofile.png".split(), flags, "infer.py")] == []  # -o with its value glued
    absl = [Flag(name="--output", aliases=["-o"], parser="absl"), Flag(name="--only_center_face", parser="absl")]
    assert match_args("-only_center_face=x -output=y".split(), absl, "infer.py") == []  # absl takes one dash
