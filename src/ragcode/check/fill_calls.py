"""Filling in values the instruction names and a Python answer left out, as keyword arguments.

The Python twin of ``ragcode.check.fill``: a small model builds the right class and drops a value
the user asked for ("a ResidualVQ with 4 quantizers" -> ``ResidualVQ(dim=256, codebook_size=512)``).
When the coverage check reports such a value and the dry run bound the answer's calls to their
real signatures, ``fill_calls`` looks for the one parameter the call left unset that the value
belongs to, and writes it in (``num_quantizers=4``).

Which parameter: the bash fill's scoring (``ragcode.check.slot.score``), each unset parameter read
as a flag of its name and of the kind its annotation or default says (``int``, ``float``, ``str``;
a bool parameter takes no number or name, ``*args``/``**kwargs`` none either, and a word only a
``str`` one): the words of the
value's sentence in the instruction against the parameter's name split into words
(``num_quantizers`` -> quantizers), abbreviations and initials counted. Over every call of the
answer the best score must be one parameter's alone; a tie fills nothing. A number is written as
the user wrote it, a word as a string. Which calls: those the dry run bound
(``ParseChecker.call_slots``); the keep rule of the fixes decides whether the result stays (the
call must still bind, and more of the instruction's values must land).
"""

from __future__ import annotations

import ast

from ragcode.check import CheckContext, Finding
from ragcode.check.answer import call_at, char_column
from ragcode.check.fill import missing_values
from ragcode.check.slot import context_words, score
from ragcode.check.words import number_kind
from ragcode.chunking.scripts.flag import Flag

# a parameter of these kinds takes the user's number or name; a bool or *args/**kwargs does not
_FILLABLE = {"int": "int", "float": "float", "str": "str", "": ""}


def _flags(slot: dict, word: bool) -> list[Flag]:
    """The call's unset parameters that can take the value, as flags; a word (not a number) only
    goes to a parameter known to take a string: one of unknown kind (no annotation, a ``None``
    default) may want a number, a tensor or a class, and ``codebook_dim='EMA'`` binds but breaks."""
    unset = slot.get("unset") or {}
    return [Flag(name=f"--{name}", type=_FILLABLE[kind] or None, dest=name)
            for name, kind in unset.items()
            if kind in _FILLABLE and not name.startswith("_") and (kind == "str" or not word)]


def best_parameter(value: str, slots: list[dict], instruction: str) -> tuple[dict, str] | None:
    """(the call, its parameter) that ``value`` belongs to, or None when none fits or two fit
    equally well."""
    contexts = context_words(instruction, value)
    if not contexts:
        return None
    word = not number_kind(value)
    ranked = sorted(((score(f, value, contexts), i, f.dest or "") for i, s in enumerate(slots) for f in _flags(s, word)),
                    reverse=True)
    if not ranked or ranked[0][0] <= 0 or len(ranked) > 1 and ranked[1][0] == ranked[0][0]:
        return None
    return slots[ranked[0][1]], ranked[0][2]


def _literal(value: str) -> str:
    return value if number_kind(value) else repr(value)


def with_keyword(code: str, slot: dict, name: str, value: str) -> str | None:
    """``code`` with ``name=value`` added to the call ``slot`` names (its line and dotted name);
    None when that call cannot be found as written."""
    call = call_at(ast.parse(code), slot.get("line"), slot.get("name"))
    if call is None or call.end_lineno is None or call.end_col_offset is None:
        return None
    lines = code.splitlines(keepends=True)
    row = call.end_lineno - 1
    col = char_column(lines[row], call.end_col_offset) - 1  # the call's closing parenthesis (ast counts bytes)
    if lines[row][col] != ")":
        return None
    head = "".join(lines[:row]) + lines[row][:col]
    written = f"{name}={_literal(value)}"
    if not lines[row][:col].strip() and row and head.rstrip().endswith(","):  # one argument a line
        indent = lines[row - 1][:len(lines[row - 1]) - len(lines[row - 1].lstrip())]
        return "".join(lines[:row]) + f"{indent}{written},\n" + "".join(lines[row:])
    sep = "" if head.rstrip().endswith(("(", ",")) else ", "
    return head + f"{sep}{written}" + lines[row][col:] + "".join(lines[row + 1:])


def fill_calls(code: str, findings: list[Finding], ctx: CheckContext, slots: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """``code`` with each missing value given to the one unset parameter of a bound call it
    belongs to, and the ``(value, "callee.param")`` pairs filled."""
    pairs: list[tuple[str, str]] = []
    slots = [dict(s) for s in slots]  # what is filled leaves its call's unset parameters here only
    for value in missing_values(findings):
        found = best_parameter(value, slots, ctx.instruction)
        if found is None:
            continue
        slot, name = found
        try:
            new = with_keyword(code, slot, name, value)
        except SyntaxError:
            return code, pairs
        if new is None:
            continue
        code = new
        slot["unset"] = {k: v for k, v in (slot.get("unset") or {}).items() if k != name}
        pairs.append((value, f"{slot.get('name')}.{name}"))
    return code, pairs
