"""A name a Python answer imports from a package that has none, while the repository defines it
(``foreign-name``): ``from transformers import Transformer`` in llama2.c, whose ``model.py``
defines ``Transformer``; ``from torch.optim import LARS`` beside Barlow Twins' ``main.py``.
The import fails with ``ImportError``; the certain fix imports the name from the repository.

Only a name that one module of the repository defines at its top is asked about (a module at an
import root, or one beside a top package's ``__init__``: ``ragcode.check.unbound.defining_module``),
so a package is looked into only when it might be the wrong place. Whether the package has the
name is asked of the answer's interpreter (``CheckContext.interpreter``, else this one) through
``ragcode.execution.probe.ask_interpreter``: isolated, sandboxed, from an empty folder; it
imports the installed package, never the repository. A package that does not import there, or
a probe that fails, says nothing. Asked once per interpreter, package and names.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

from ragcode.check import ERROR, CheckContext, Finding, say
from ragcode.check.answer import Answer
from ragcode.check.unbound import defining_module

# names of json.load(stdin)["names"] that module ["module"] neither has nor holds as a submodule
_PROBE = ("import importlib, importlib.util, json, sys\nq = json.load(sys.stdin)\n"
          "m = importlib.import_module(q['module'])\n"
          "def has(n):\n    if hasattr(m, n):\n        return True\n    try:\n"
          "        return importlib.util.find_spec(q['module'] + '.' + n) is not None\n"
          "    except Exception:\n        return False\n"
          "print(json.dumps([n for n in q['names'] if not has(n)]))")


@functools.lru_cache(maxsize=256)
def _lacks(interpreter: str, module: str, names: tuple[str, ...]) -> tuple[str, ...]:
    from ragcode.execution.probe import ask_interpreter

    proc = ask_interpreter(interpreter, _PROBE, json.dumps({"module": module, "names": list(names)}))
    if proc is None or proc.returncode != 0 or not proc.stdout.strip():
        return ()
    try:
        gone = json.loads(proc.stdout.strip().splitlines()[-1])
    except json.JSONDecodeError:
        return ()
    return tuple(n for n in gone if n in names) if isinstance(gone, list) else ()


def _defined_here(name: str, roots: list[Path]) -> str:
    """The repository module that alone defines ``name`` at its top, as imported from a root."""
    for root in roots:
        if root.is_dir():
            files = [*sorted(root.glob("*.py"))[:1], *sorted(root.glob("*/__init__.py"))]
            if files and (source := defining_module(name, files, root)):
                return source
    return ""


def foreign_findings(checker: str, answer: Answer, ctx: CheckContext, roots: list[Path],
                     own: set[str]) -> list[Finding]:
    """``foreign-name`` for each name imported from a package (not the repository's) that lacks it
    while one repository module defines it."""
    out: list[Finding] = []
    for imp in answer.imports:
        if not imp.module or imp.module.split(".")[0] in own or not imp.names:
            continue
        mine = {n: source for n in imp.names if n != "*" and (source := _defined_here(n, roots))}
        if not mine:
            continue
        for name in _lacks(ctx.interpreter or sys.executable, imp.module, tuple(sorted(mine))):
            fix = f"from {mine[name]} import {name}"
            out.append(Finding(checker, "foreign-name", say("foreign-name", module=imp.module, name=name,
                                                            source=mine[name]),
                               severity=ERROR, line=imp.line, target=name, suggestion=fix))
    return out
