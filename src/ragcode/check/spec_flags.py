"""The flags of a script whose parser no static reading finds, from its dry run.

The static flag tables (``ragcode.chunking.scripts``) read argparse, click, typer, absl and
``HfArgumentParser`` declarations. A python-fire script declares its flags as a function's
parameters, and nanoGPT's configurator as the plain values bound before it runs: only the dry run
sees them (``ragcode.dryrun``, which reports each parser's parameters as ``spec``). ``with_flags``
gives such a script's command its table from there, so the fix steps that place a left-out value
(``ragcode.check.fill``) can reach it; a configurator's values are written ``--name=value``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext
from ragcode.check.bash import Step, resolved_calls
from ragcode.chunking.scripts.flag import Flag

SPEC_PARSERS = ("fire", "configurator")  # parsers whose flags no static reading gives


def flags_from_spec(spec: list[dict[str, Any]], parser: str) -> list[Flag]:
    """``Flag``s from a dry run's ``spec`` (its parameters as plain strings); only dashed names."""
    out = []
    for p in spec:
        name = str(p.get("name", ""))
        if not name.startswith("--") or " " in name:
            continue
        out.append(Flag(name, parser=parser, type=str(p.get("type") or "") or None, default=p.get("default"),
                        required=bool(p.get("required")), help=str(p.get("help") or "")))
    return out


def with_flags(code: str, ctx: CheckContext, parsed: dict[str, tuple[str, list[dict[str, Any]]]]) -> list[Step]:
    """``resolved_calls(code, ctx)``, each call of a script no static reading gives flags for
    taking its table from ``parsed`` (resolved script path -> ``(parser, spec)``)."""
    steps = resolved_calls(code, ctx)
    if not parsed:
        return steps
    out = []
    for step in steps:
        found = parsed.get(str(Path(step.path).resolve())) if step.flags is None and step.path is not None else None
        flags = flags_from_spec(found[1], found[0]) if found else []
        out.append(dataclasses.replace(step, flags=flags) if flags else step)
    return out


def joins_with_equals(step: Step) -> bool:
    """The step's script reads only ``--name=value`` words (a ``sys.argv`` configurator)."""
    return any(f.parser == "configurator" for f in step.flags or [])
