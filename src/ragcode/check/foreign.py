"""Names a Python answer imports from a package (not the repository) that the package does not
have: the import fails with ``ImportError``.

- ``foreign-name`` (a certain fix): the repository defines the name in one module
  (``from transformers import Transformer`` in llama2.c, whose ``model.py`` defines it;
  ``from torch.optim import LARS`` beside Barlow Twins' ``main.py``); the fix imports it from
  there. Only a module at an import root, or one beside a top package's ``__init__``, counts
  (``ragcode.check.unbound.defining_module``).
- ``missing-symbol``, as for the repository's own modules: a name neither the package nor the
  repository has (``from transformers import TransformerArgs``), naming the package's closest
  name. An error with the repository's own interpreter (``execution.envs``), else a warning: the
  environment ragcode runs in may hold another version of the package than the answer's.

Whether the package has the names is asked of the answer's interpreter
(``CheckContext.interpreter``, else this one) through ``ragcode.execution.probe.ask_json``:
isolated, sandboxed, from an empty folder; it imports the installed package, never the
repository. A package that does not import there, or a probe that fails, says nothing. Asked
once per interpreter, package and names.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

from ragcode.check import ERROR, WARNING, CheckContext, Finding, say
from ragcode.check.answer import Answer
from ragcode.check.unbound import defining_module

# {name: closest name or ""} for the names of json.load(stdin)["names"] that module ["module"]
# neither has nor holds as a submodule
_PROBE = ("import difflib, importlib, importlib.util, json, sys\nq = json.load(sys.stdin)\n"
          "m = importlib.import_module(q['module'])\n"
          "def has(n):\n    if hasattr(m, n):\n        return True\n    try:\n"
          "        return importlib.util.find_spec(q['module'] + '.' + n) is not None\n"
          "    except Exception:\n        return False\n"
          "def near(n):\n    close = difflib.get_close_matches(n, [x for x in dir(m) if not x.startswith('_')], 1, 0.6)\n"
          "    return close[0] if close else ''\n"
          "print(json.dumps({n: near(n) for n in q['names'] if not has(n)}))")


@functools.lru_cache(maxsize=1024)
def _lacks(interpreter: str, module: str, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``(name, closest)`` for each of ``names`` that ``module`` lacks; empty when that cannot be told."""
    from ragcode.execution.probe import ask_json

    gone = ask_json(interpreter, _PROBE, json.dumps({"module": module, "names": list(names)}))
    if not isinstance(gone, dict):
        return ()
    return tuple((n, str(gone[n] or "")) for n in names if n in gone)


def _defined_here(name: str, roots: list[Path]) -> str:
    """The repository module that alone defines ``name`` at its top, as imported from a root."""
    for root in roots:
        if root.is_dir():
            # defining_module reads each given file's folder: one root module stands for all of them
            files = [*sorted(root.glob("*.py"))[:1], *sorted(root.glob("*/__init__.py"))]
            if files and (source := defining_module(name, files, root)):
                return source
    return ""


def foreign_findings(checker: str, answer: Answer, ctx: CheckContext, roots: list[Path],
                     own: set[str]) -> list[Finding]:
    """``foreign-name`` or ``missing-symbol`` for each name imported from a package (not the
    repository's) that the package lacks."""
    out: list[Finding] = []
    for imp in answer.imports:
        names = tuple(sorted(n for n in imp.names if n != "*"))
        if not imp.module or imp.module.split(".")[0] in own or not names:
            continue
        for name, near in _lacks(ctx.interpreter or sys.executable, imp.module, names):
            source = _defined_here(name, roots)
            if source:
                out.append(Finding(checker, "foreign-name", say("foreign-name", module=imp.module, name=name,
                                                                source=source),
                                   severity=ERROR, line=imp.line, target=name, suggestion=f"from {source} import {name}"))
                continue
            hint = f"; did you mean {near}?" if near else ""
            out.append(Finding(checker, "missing-symbol", say("missing-symbol", module=imp.module, name=name, hint=hint),
                               severity=ERROR if ctx.interpreter else WARNING, line=imp.line, target=imp.module,
                               suggestion=near))
    return out
