"""A Python answer cut off mid-statement is closed after its last whole line
(``ragcode.check.cutoff``, the certain fix of ``syntax-error``); other syntax errors stay."""

from __future__ import annotations

from ragcode.check.cutoff import completed

CUT = ("from reformer_pytorch import ReformerLM\nmodel = ReformerLM(\n    num_tokens= 32000,\n"
       "    dim = 512,\n    ff_chunks = 200, # number of chunks (make higher if\n    causal")


def test_a_call_cut_inside_its_arguments_keeps_the_whole_ones_and_is_closed():
    fixed = completed(CUT)
    assert fixed is not None and fixed.endswith("ff_chunks = 200, # number of chunks (make higher if\n)")
    assert "causal" not in fixed  # a dangling positional after keywords would not parse
    assert completed("t = T(d,\n  dataset = ds,\n  ema_decay") == "t = T(d,\n  dataset = ds\n)"
    assert completed("def f():\n    return g(1,") == "def f():\n    return g(1\n)"


def test_other_syntax_errors_and_open_strings_are_left_alone():
    assert completed("x = 1\ny = = 2\nz = [1,\n 2") is None  # the error is in the middle
    assert completed("x = 1\nprint('abc") is None  # an open string is not completed
    assert completed("x = 1\n") is None  # it parses
    assert completed("x = (1]\n") is None  # a closer that does not match


def test_an_answer_nested_past_the_parser_is_left_as_it_is():
    assert completed("x = " + "(" * 5000 + "1") is None  # MemoryError or too deep: no crash, no completion
