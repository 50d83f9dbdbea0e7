"""A launcher's own flags, checked with the launcher's real parser.

A bash step that starts its script through a launcher (``accelerate launch``, ``torchrun``,
``python -m torch.distributed.run``, ``python -m torch.distributed.launch``, ``deepspeed``: the
table ``LAUNCHERS``, shared with the in-sandbox hook) is also started in the sandbox as an entry
of kind ``launcher``: the launcher's real parser, imported from the dry run's interpreter, reads
the launcher's part of the command (its own options and the script, ``-m module`` for a module),
never the script's arguments, which the script's own entry point checks (``ragcode.dryrun.entry``).
Only the answer's own commands are read (a ``bash X.sh`` wrapper's inside is the repository's).

Only a verdict the launcher's parser gave is kept, and without its values (they are the
launcher's settings, not the script's parameters): where the launcher is not installed in the
dry run's interpreter, fails before its parser, or its run was cut, nothing is said. The verdict
is cached like every dry run's, and depends on the launcher's installed version (its top-level
module is stamped even while it is missing, so an install or an upgrade runs it again).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext
from ragcode.check.bash import Step, walk
from ragcode.dryrun._hook_launch import LAUNCHERS
from ragcode.dryrun.result import ACCEPTED, REJECTED, Entry, ParseResult
from ragcode.dryrun.sandbox import DryRunner
from ragcode.shell import PYTHON, ScriptCall, python_options, split_prefix

KIND = "launcher"


def launcher_name(call: ScriptCall) -> str:
    """The name ``LAUNCHERS`` knows ``call``'s launcher by (``python3 -m torch.distributed.run``
    -> ``python -m torch.distributed.run``, ``/opt/bin/torchrun`` -> ``torchrun``), else ``""``."""
    words = call.launcher.split()
    if not words:
        return ""
    if PYTHON.match(words[0]):
        name = "python " + " ".join(words[1:])
    else:
        name = " ".join([words[0].rsplit("/", 1)[-1], *words[1:]])
    return name if name in LAUNCHERS else ""


def _own_args(step: Step, call: ScriptCall) -> list[str]:
    """The launcher's own options: ``launcher_args`` less the interpreter's (``python -u -m
    torch.distributed.run``: ``-u`` is python's)."""
    if not PYTHON.match(call.launcher.split()[0]):
        return list(call.launcher_args)
    _env, rest = split_prefix(list(step.words))
    return list(call.launcher_args[len(python_options(rest[1:])):])


def launcher_entry(step: Step, ctx: CheckContext) -> Entry | None:
    """The entry that parses ``step``'s launcher part with the launcher's parser, or None (no
    known launcher, or a shell variable among those words: their values are unknown)."""
    call = step.call
    if call is None or not launcher_name(call):
        return None
    argv = [*_own_args(step, call), *(["-m", call.target] if call.kind == "module" else [call.target])]
    if any("$" in w for w in argv):
        return None
    workdir = os.path.relpath(step.cwd, Path(ctx.repo_dir).resolve())
    return Entry(KIND, launcher_name(call), tuple(argv), workdir, tuple(sorted(call.env.items())),
                 step.first_line + 1, shown=" ".join(step.words))


def launcher_entries(code: str, answer_type: str, ctx: CheckContext) -> list[Entry]:
    if answer_type != "bash":
        return []
    return [e for e in (launcher_entry(step, ctx) for step in walk(code, ctx)) if e is not None]


def launcher_runs(code: str, answer_type: str, ctx: CheckContext, runner: Any = None) -> list[ParseResult]:
    """The verdicts of the launchers' own parsers on ``code``'s launcher parts: only those a
    parser gave (accepted or rejected, not cut), without values (see the module doc)."""
    entries = launcher_entries(code, answer_type, ctx)
    if not entries:
        return []
    runner = runner or DryRunner.for_context(ctx)
    results = [runner.run(e, ctx) for e in entries]
    return [replace(r, params={}, explicit=[], unrecognized=[]) for r in results
            if r.status in (ACCEPTED, REJECTED) and not r.cut]
