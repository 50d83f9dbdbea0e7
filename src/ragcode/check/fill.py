"""Filling in values the instruction names and a bash answer left out, as flags of its script.

A small model often runs the right script and drops a value the user asked for ("an image size
of 128" -> no ``--img_size 128``). When the coverage check reports such a value and the script's
parser can be read, ``fill_values`` looks for the one flag it belongs to and adds it to the
command (or, when that flag is already given a value the instruction never names, replaces that
value: ``--dataset citeseer`` for an instruction about pubmed; never a shell variable's value, and
a path only by a path to a file of the same kind).

Which flag: ``ragcode.check.slot`` scores the script's flags against the words around the value.

Which values: those the coverage check reports missing; an instruction word that is one of a
flag's ``choices``; a capitalised word inside a sentence (``Autoformer``), only where its flag is
named next to it. A path no flag takes goes to the one positional argument the script requires
and the command leaves out, when it is the only path to fill. Only the instruction is read, never a
task's arguments or answer.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from ragcode.check import CheckContext, Finding
from ragcode.check.args import positionals_missing, takes_value
from ragcode.check.bash import Step, resolved_calls
from ragcode.check.instruction import proper_names as proper_names  # read from here too
from ragcode.check.instruction import read_instruction
from ragcode.check.slot import Slot, best_slot, slots_per_place
from ragcode.check.spec_flags import joins_with_equals, with_flags
from ragcode.check.words import looks_negative, pathlike
from ragcode.chunking.scripts.flags import Flag

_NAME_SCORE = 2.0  # a capitalised word needs its flag named next to it: "the X model"
Parsed = dict[str, tuple[str, list[dict[str, Any]]]]  # resolved script path -> (parser, its dry run's spec)
_VAGUE = {"true", "false", "none", "all", "yes", "default", "auto", "max", "min", "mean", "sum", "and", "the",
          "new", "test", "train", "eval", "base", "small", "large", "full"}


def given_flags(args: list[str]) -> dict[str, str | None]:
    """``--name value`` / ``--name=value`` pairs of a command line (a switch maps to None)."""
    out: dict[str, str | None] = {}
    for i, a in enumerate(args):
        if not a.startswith("-") or looks_negative(a):
            continue
        if "=" in a:
            k, v = a.split("=", 1)
            out[k] = v
        else:
            nxt = args[i + 1] if i + 1 < len(args) else None
            out[a] = nxt if nxt is not None and (not nxt.startswith("-") or looks_negative(nxt)) else None
    return out


def missing_values(findings: list[Finding]) -> list[str]:
    return [f.target for f in findings if f.code == "missing-value" and f.target]


def choice_values(instruction: str, flags: list[Flag], code: str) -> list[str]:
    """Words of the instruction that are one of a flag's ``choices`` (``linear`` for
    ``--model {linear,mlp}``), one per flag, when the answer never says them: the coverage check
    does not count plain words as values, a parser's choices make them one."""
    out = []
    for f in flags:
        if not isinstance(f.choices, list) or f.positional or not takes_value(f):
            continue
        named = [str(c) for c in f.choices if isinstance(c, str) and len(c) >= 3 and c.lower() not in _VAGUE
                 and _mentions(instruction, c)]
        if len(named) == 1 and not _mentions(code, named[0]) and named[0] not in out:
            out.append(named[0])
    return out


def names_said(code: str, instruction: str) -> int:
    """How many of the instruction's capitalised names ``code`` mentions, in any form
    (``Autoformer_SMAP.sh`` names Autoformer)."""
    low = code.lower()
    return sum(n.lower() in low for n in read_instruction(instruction).names)


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None


def fill_values(code: str, findings: list[Finding], ctx: CheckContext,
                parsed: Parsed | None = None) -> tuple[str, list[tuple[str, str]]]:
    """``code`` with each missing instruction value given to the flag it belongs to, and the
    ``(value, flag)`` pairs used. Only a script call that ends its line is extended. ``parsed``:
    the dry run's parameters of scripts no static reading gives flags for (``spec_flags``)."""
    done: list[tuple[str, str]] = []
    parsed = parsed or {}
    values = {v: 0.0 for v in missing_values(findings)}
    for step in with_flags(code, ctx, parsed):
        if step.flags is not None and step.last:
            values.update({v: 0.0 for v in choice_values(ctx.instruction, step.flags, code) if v not in values})
    values.update({v: _NAME_SCORE for v in read_instruction(ctx.instruction).names
                   if v not in values and not _mentions(code, v)})
    for value, at_least in values.items():
        placed = _fill_each_place(code, value, at_least, ctx, parsed)
        if placed is not None:
            code = placed[0]
            done.extend((value, name) for name in placed[1])
            continue
        best: tuple[Slot, Step, str] | None = None
        for step in with_flags(code, ctx, parsed):
            if step.flags is None or step.call is None or not step.last:
                continue
            slot = best_slot(value, step.flags, given_flags(step.call.args), ctx.instruction, at_least)
            if slot is not None and (best is None or slot.score >= best[0].score):
                best = (slot, step, _separator(step))
        if best is None:
            new = _as_positional(code, value, values, ctx)
            if new is not None:
                code = new
                done.append((value, "(positional)"))
            continue
        new = _put(code.split("\n"), value, *best)
        if new is not None:
            code = new
            done.append((value, best[0].flag.name))
    return code, done


def _as_positional(code: str, value: str, values: dict[str, float], ctx: CheckContext) -> str | None:
    """``code`` with the path ``value`` given as the one positional argument the command's script
    requires and the command leaves out (``main_lincls.py ... /datasets/imagenet``), when it is the
    only path among the values to fill and the one script call that ends its line is that script's."""
    paths = [v for v in values if pathlike(v) and "://" not in v]
    steps = [s for s in resolved_calls(code, ctx) if s.flags is not None and s.last and s.call is not None]
    if paths != [value] or len(steps) != 1:
        return None
    step = steps[0]
    assert step.call is not None and step.flags is not None
    if positionals_missing(list(step.call.args), step.flags) != 1:
        return None
    lines = code.split("\n")
    line = lines[step.end_line].rstrip()
    if "#" in line or line.endswith(("&", "\\")):
        return None
    lines[step.end_line] = f"{line} {shlex.quote(value)}"
    return "\n".join(lines)


def _fill_each_place(code: str, value: str, at_least: float, ctx: CheckContext,
                     parsed: Parsed) -> tuple[str, list[str]] | None:
    """``code`` with ``value`` given to each flag its places in the instruction choose
    (``slots_per_place``), when the one script call that ends its line takes them all."""
    steps = [s for s in with_flags(code, ctx, parsed) if s.flags is not None and s.last]
    if len(steps) != 1:
        return None
    step = steps[0]
    assert step.call is not None and step.flags is not None  # resolved_calls: calls only
    slots = slots_per_place(value, step.flags, given_flags(step.call.args), ctx.instruction, at_least)
    if not slots:
        return None
    names = []
    for slot in slots:
        new = _put(code.split("\n"), value, slot, step, _separator(step))
        if new is None:
            return None
        code = new
        names.append(slot.flag.name)
        step = next(s for s in with_flags(code, ctx, parsed) if s.flags is not None and s.last)
    return code, names


def _separator(step: Step) -> str:
    """How the command gives flags their values: ``--lr=0.1`` when it already does so or its
    script reads only that form (a configurator), else a space."""
    assert step.call is not None
    return "=" if joins_with_equals(step) or any(re.match(r"--?\w[\w-]*=", a) for a in step.call.args) else " "


def _put(lines: list[str], value: str, slot: Slot, step: Step, sep: str) -> str | None:
    """The answer with ``value`` put in ``slot`` of the command at ``step``, or None."""
    if isinstance(slot.flag.choices, list):  # the parser's own spelling (Citeseer for citeseer)
        value = next((str(c) for c in slot.flag.choices if str(c).lower() == value.lower()), value)
    quoted = shlex.quote(value)
    if slot.current is not None:
        pattern = re.compile(rf"(?<!\S)({re.escape(slot.spelled)}[=\s]+)(['\"]?){re.escape(slot.current)}\2(?=\s|$)")
        for i in range(step.first_line, step.end_line + 1):
            new_line, n = pattern.subn(lambda m: m.group(1) + quoted, lines[i], count=1)
            if n:
                lines[i] = new_line
                return "\n".join(lines)
        return None
    line = lines[step.end_line].rstrip()
    if "#" in line or line.endswith("&"):
        return None
    lines[step.end_line] = f"{line} {slot.flag.name}{sep}{quoted}"
    return "\n".join(lines)
