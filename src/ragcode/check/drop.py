"""Dropping flags the script's own parser refuses, when the user never asked for them.

A small model copies a README example and keeps flags the script it runs does not have
(``sample.py --eval_iters=20 --block_size=64`` copied from the training command): the whole
command then fails, and no value the user gave reaches anything. ``drop_refused`` removes such a
flag, with its value, when the instruction named neither: its value is not one of the
instruction's values, and no part of its name (three letters or more, not a stopword) starts a
word the instruction uses. A flag the user did ask for is left to the other steps and to the
model.

Which flags are refused: an ``unknown-flag`` the static check found and no certain fix corrects
(``ragcode.check.autofix``), or a ``parse-rejected`` whose parser message names the flag as a word
and says it does not know it (argparse's ``unrecognized arguments: --x``, a ``sys.argv``
configurator's ``Unknown config key: x``, click's ``No such option: --x``); a refused value
(``invalid choice``) is not a refused flag, and a one-letter flag (python's ``-m``, ``-u``) is
never read from a message. The parser names one refusal at a time, so the answer is checked again
after each drop, at most ``MAX_DROPS`` times. A word after the flag that is not itself a flag is
taken as its value (``--x 3``, ``--x=3``). The step keeps its result only when the fixes' keep
rule (``ragcode.answer.fixes.better``) finds it better.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragcode.check import CheckContext, Finding
from ragcode.check.answer import read_answer
from ragcode.check.autofix import fixable
from ragcode.check.fill import given_flags
from ragcode.check.instruction import instruction_values
from ragcode.check.words import number_value, stopwords, without_thousands

MAX_DROPS = 12
# ``--name`` with ``=value``, or a value word after it (quoted, or up to whitespace), over a line
# continuation too; the leading whitespace goes with it
_FLAG = r"[ \t]*(?<![\w./-]){flag}(?:=(?:'[^']*'|\"[^\"]*\"|\S*)|(?:[ \t]+|[ \t]*\\\n[ \t]*)(?!-)(?:'[^']*'|\"[^\"]*\"|[^\s;&|]+))?(?=[\s;&|]|$)"
# a parser's words for a name it does not have (argparse, configurators, click, absl, hydra, fire)
_UNKNOWN = re.compile(r"unrecogni[sz]ed|unknown|no such (?:option|flag)|not in struct|could not override|"
                      r"could not consume", re.IGNORECASE)


def given(code: str) -> dict[str, str | None]:
    """Every flag the code's commands give, with the word taken as its value (None: a bare flag;
    ``ragcode.check.fill.given_flags`` over each command's words)."""
    out: dict[str, str | None] = {}
    for cmd in read_answer(code, "bash").commands:
        for flag, value in given_flags(list(cmd.words)).items():
            out.setdefault(flag, value)
    return out


def asked(flag: str, value: str | None, instruction: str) -> bool:
    """Whether the instruction names the flag's value or a part of its name."""
    low = instruction.lower()
    parts = [p for p in re.split(r"[^a-z0-9]+", flag.lower()) if len(p) >= 3 and p not in stopwords()]
    if any(re.search(rf"(?<![a-z0-9]){re.escape(p)}", low) for p in parts):
        return True
    if value is None or not value:
        return False
    said = re.search(rf"(?<![\w./-]){re.escape(value.lower())}(?![\w/-]|\.\w)", low)
    return bool(said) or any(_same(v, value) for v in instruction_values(instruction))


def _same(said: str, value: str) -> bool:
    """One of the instruction's values and a flag's value are the same: the same number
    (``1e-4``, ``0.0001``; ``300,000``, ``300000``) or the same text up to case."""
    a, b = number_value(without_thousands(said)), number_value(without_thousands(value))
    return a == b if a is not None and b is not None else said.lower() == value.lower()


def refused(findings: list[Finding], flags: dict[str, str | None]) -> list[str]:
    """The answer's flags its script refuses, as the findings name them, in their order."""
    out: list[str] = []
    for f in findings:
        if f.code == "unknown-flag" and fixable(f) is None:
            word = f.message.split(" ", 1)[0]
            out += [word] if word in flags else []
        elif f.code == "parse-rejected" and _UNKNOWN.search(f.message):
            out += [flag for flag in flags if len(flag.lstrip("-")) > 1  # "-m", "-u": too short to find
                    and re.search(rf"(?<![\w-])(?:--?)?{re.escape(flag.lstrip('-'))}(?![\w-])", f.message)]
    return [flag for i, flag in enumerate(out) if flag not in out[:i]]


def without(code: str, flag: str) -> str:
    """``code`` with the first place ``flag`` is given (and its value) taken out."""
    return re.compile(_FLAG.format(flag=re.escape(flag)), re.MULTILINE).sub("", code, count=1)


def drop_refused(code: str, findings: list[Finding], ctx: CheckContext,
                 check: Callable[[str], list[Finding]]) -> tuple[str, list[Finding], list[str]]:
    """``code`` without the refused flags the instruction did not ask for, its findings, and the
    flags dropped (``check(code)``: the answer's findings, as the fixes check it)."""
    dropped: list[str] = []
    for _ in range(MAX_DROPS):
        flags = given(code)
        drop = [f for f in refused(findings, flags) if f not in dropped and not asked(f, flags[f], ctx.instruction)]
        if not drop:
            break
        new = without(code, drop[0])
        if new == code:
            break
        code, findings = new, check(new)
        dropped.append(drop[0])
    return code, findings, dropped
