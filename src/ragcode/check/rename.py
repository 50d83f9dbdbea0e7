"""Renaming a flag the script refuses to the one declared name it abbreviates.

``train.py --lr=0.0005`` when the script takes ``--learning_rate``: the user's value is there,
under a short name the parser does not know, so the whole command fails. ``rename_refused`` gives
such a flag the script's own name when exactly one declared name fits it: its initials
(``lr`` -> ``learning_rate``, ``bs`` -> ``batch_size``), its start, three letters or more
(``--learning`` -> ``--learning_rate``), or its words with other separators (``--output-dir`` ->
``--output_dir``, where the static reading had no name to offer: a parent parser in another
module), and the answer does not give that name already. Only a
flag the instruction asked for (its value or a part of its name said, ``ragcode.check.drop.asked``)
is renamed; one it never asked for is ``drop``'s. Which flags are refused is ``drop``'s reading of
the findings; which names are declared is the parser's own spec, as the dry run read it
(``ragcode.dryrun.checker.ParseChecker.declared``). The step keeps its result only when the fixes'
keep rule finds it better (the parser then accepts the command).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragcode.check import CheckContext, Finding
from ragcode.check.autofix import flag_word
from ragcode.check.drop import asked, given, refused

MAX_RENAMES = 6


def _words(name: str) -> list[str]:
    return [p for p in re.split(r"[-_]+", name.lstrip("-").lower()) if p]


def abbreviates(short: str, name: str) -> bool:
    """``short`` is ``name``'s initials (two parts or more) or its start (three letters or more)."""
    s, n = "_".join(_words(short)), "_".join(_words(name))
    if not s or s == n:
        return False
    parts = _words(name)
    if len(parts) >= 2 and "_" not in s and s == "".join(p[0] for p in parts):
        return True
    return len(s) >= 3 and n.startswith(s)


def respelled(flag: str, name: str) -> bool:
    """``flag`` is ``name`` with other separators or case (``--output-dir``, ``--output_dir``)."""
    return flag != name and bool(_words(flag)) and _words(flag) == _words(name)


def renamed(flag: str, declared: list[str], given_flags: dict[str, str | None]) -> str | None:
    """The one declared name ``flag`` abbreviates or respells and the answer does not give (as
    the parser spells it), else None."""
    fits = {d for d in declared if d.startswith("-") and (abbreviates(flag, d) or respelled(flag, d))
            and not any(_words(d) == _words(g) for g in given_flags if g != flag)}
    return fits.pop() if len(fits) == 1 else None


def with_name(code: str, flag: str, name: str) -> str:
    """``code`` with the first place ``flag`` is given written as ``name`` (its value kept)."""
    return re.sub(flag_word(flag), name, code, count=1, flags=re.MULTILINE)


def rename_refused(code: str, findings: list[Finding], ctx: CheckContext, check: Callable[[str], list[Finding]],
                   declared: Callable[[str], list[str]]) -> tuple[str, list[Finding], list[list[str]]]:
    """``code`` with its refused, asked-for flags given the declared names they abbreviate, its
    findings, and the ``[flag, name]`` pairs (``check(code)``: the findings; ``declared(code)``:
    the names the parsers that refused it declare)."""
    pairs: list[list[str]] = []
    for _ in range(MAX_RENAMES):
        flags = given(code)
        wanted = [f for f in refused(findings, flags) if asked(f, flags[f], ctx.instruction)]
        names = declared(code) if wanted else []
        found = next(((f, n) for f in wanted if (n := renamed(f, names, flags)) is not None), None)
        if found is None:
            break
        new = with_name(code, *found)
        if new == code:
            break
        code, findings = new, check(new)
        pairs.append(list(found))
    return code, findings, pairs
