"""A command that runs a python-fire script, written as the Python call it makes.

``python finetune.py --base_model x --num_epochs 1``, where ``finetune.py`` ends in
``fire.Fire(train)``, calls ``train(base_model='x', num_epochs=1)``: fire reads the words and calls
the function, and does nothing else. When the user asks for Python in so many words and a sample
wrote that command (``ragcode.answer.pipeline``), ``as_python`` gives the call instead: the import
of the function and the call with the values fire read, as the dry run bound them, each written as
Python that reads back equal (``_hook_fire._given``).

It is said only where the call is the command's whole meaning: a fire parse that took every word
(an argparse script runs its own code around its parse, so it has no such call), of a function a
module path imports (no method, no ``<locals>``), given named values only (no ``*args`` or
``**kwargs``), from an answer that is that one command, running a script of the task's own folder
where the task starts (no ``cd``, environment variable, pipe or other line).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ragcode.dryrun.result import ACCEPTED, ParseResult
from ragcode.shell import logical_lines, without_comments

NAMED = ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")
WIDTH = 88  # a longer call gets one argument per line
_SHELL = re.compile(r"[;&|<>`$]")  # an operator, a redirection or an expansion: more than one command


def _one_command(code: str) -> bool:
    lines = [ln.strip() for _, ln in logical_lines(without_comments(code)) if ln.strip()]
    return len(lines) == 1 and bool(re.match(r"python[\d.]*\s", lines[0])) and not _SHELL.search(lines[0])


def _module(result: ParseResult, module: str, workdir: str) -> str | None:
    """The import path of the callee's module, from the task's folder: the script's own name when
    the function is defined in it (``__main__``). Only a script in the task's folder: one in a
    subfolder imports its siblings as top modules (``src/`` first on ``sys.path``), which an
    import from the task's folder would not find."""
    entry = result.entry
    script = PurePosixPath(entry.target)
    if PurePosixPath(entry.workdir) != PurePosixPath(workdir) or script.suffix != ".py" or len(script.parts) != 1:
        return None
    parts = module.split(".") if module != "__main__" else [script.stem]
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None


def call_source(result: ParseResult, workdir: str) -> str | None:
    """The Python call ``result``'s fire command makes, with its import; None where it cannot be
    said for certain (see the module doc)."""
    if result.parser != "fire" or result.status != ACCEPTED or result.unrecognized or result.cut:
        return None
    module, _, name = result.callee.partition(":")
    where = _module(result, module, workdir) if name.isidentifier() else None
    if where is None:
        return None
    args = []
    for item in result.given:
        if not (isinstance(item, list) and len(item) == 3 and item[1] in NAMED and isinstance(item[2], str)):
            return None
        args.append(f"{item[0]}={item[2]}")
    call = f"{name}({', '.join(args)})"
    if len(call) > WIDTH:
        call = f"{name}(\n" + "".join(f"    {a},\n" for a in args) + ")"
    return f"from {where} import {name}\n\n{call}\n"


def as_python(code: str, results: list[ParseResult], workdir: str) -> str | None:
    """The Python answer a one-line fire command means (its one parse in ``results``), or None."""
    if len(results) != 1 or results[0].entry.env or not _one_command(code):
        return None
    return call_source(results[0], workdir)
