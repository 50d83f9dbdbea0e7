"""Size limits of the answer checks and checked generation (``ragcode.check``, ``ragcode.answer``):
short functions with few parameters, so each rule and fix step stays readable on its own. Modules
over 400 lines are caught for the whole package by tests/test_import_graph.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "ragcode"
MAX_FUNCTION_LINES, MAX_PARAMETERS = 60, 6


def _functions():
    for package in ("check", "answer"):
        for path in sorted((SRC / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{package}/{path.name}:{node.lineno} {node.name}", node


@pytest.mark.parametrize("limit", ["lines", "parameters"])
def test_functions_of_check_and_answer_stay_small(limit):
    too_big = []
    for where, node in _functions():
        a = node.args
        params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
        size = node.end_lineno - node.lineno + 1 if limit == "lines" else params
        if size > (MAX_FUNCTION_LINES if limit == "lines" else MAX_PARAMETERS):
            too_big.append(f"{where}: {size} {limit}")
    assert not too_big, f"split these (at most {MAX_FUNCTION_LINES} lines, {MAX_PARAMETERS} parameters): {too_big}"
