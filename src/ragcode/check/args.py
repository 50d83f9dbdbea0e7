"""A command line read against a script's declared ``Flag``s, as its parser would read it.

``match_args(args, flags, script)`` walks the words after the script the way argparse, click or
absl would (``--name value``, ``--name=value``, ``-b16``, unique ``--prefix`` abbreviations,
``--no<flag>`` for absl booleans, absl's one dash for any flag) and returns findings: a long flag
written with one dash that the parser would read as a short option with a glued value
(``-only_center_face`` for ``--only_center_face`` beside ``-o``), an unknown flag (naming the closest
real one: ``--batchsize`` -> ``--batch_size``), a flag given twice, a flag that needs a value
and has none, a value outside ``choices`` or not of the flag's type, a missing required flag,
a positional count that does not fit (a flag with ``nargs=argparse.REMAINDER``, such as
``--opts KEY VALUE ...``, takes every word after it). Values that are shell expansions (``$X``, ``${X}``,
``$(...)``) are not judged.

Hand-written because no parser library reads a *declared* table without importing the script
(which would run the repository's code); argparse's own rules are followed where they are known.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ragcode.check import WARNING, Finding, say
from ragcode.check.words import INT, is_float, looks_negative
from ragcode.chunking.scripts.flags import Flag

_NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version",
                     "append_const", "BooleanOptionalAction"}
_INT_TYPES = {"int"}
_FLOAT_TYPES = {"float"}


@dataclass
class _Parsed:
    flag: Flag
    spelled: str
    value: str | None


def takes_value(flag: Flag) -> bool:
    if flag.action in _NO_VALUE_ACTIONS or flag.nargs in (0, "0"):
        return False
    t = str(flag.type or "")
    if flag.parser in ("click", "typer") and (t == "bool" or t.startswith("bool")) and flag.action != "store":
        return False  # click/typer boolean flags (--shout/--no-shout)
    if flag.parser == "absl" and t.startswith("bool"):
        return False  # --flag / --noflag (``--flag=false`` is handled as key=value)
    return True


def _index(flags: list[Flag]) -> dict[str, Flag]:
    table: dict[str, Flag] = {}
    for f in flags:
        if f.positional:
            continue
        for spelling in f.option_strings():
            table.setdefault(spelling, f)
            if f.parser == "absl" and spelling.startswith("--"):
                table.setdefault(spelling[1:], f)  # absl takes -steps=5 as --steps=5
    return table


def _norm(name: str) -> str:
    return name.lstrip("-").replace("-", "_").lower()


def one_slip(a: str, b: str) -> bool:
    """Long flags ``a`` and ``b`` (read up to ``-``/``_``/case) one letter apart: one dropped,
    added or changed, or two neighbours swapped (``--resme`` / ``--resume``), both names five
    letters or more; a shorter name is too often another word (``--lr`` / ``--l2``)."""
    if not (a.startswith("--") and b.startswith("--")):
        return False
    x, y = _norm(a), _norm(b)
    if x == y or min(len(x), len(y)) < 5 or abs(len(x) - len(y)) > 1:
        return False
    if len(x) == len(y):
        diff = [i for i in range(len(x)) if x[i] != y[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and x[diff[0]] == y[diff[1]] and x[diff[1]] == y[diff[0]])
    short, long_ = sorted((x, y), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def closest(name: str, spellings: list[str]) -> str:
    """The real flag a slip most likely meant: same name up to ``-``/``_``/case, else the
    nearest by edit distance."""
    wanted = _norm(name)
    for s in spellings:
        if _norm(s) == wanted:
            return s
    by_norm = {_norm(s): s for s in spellings}
    near = difflib.get_close_matches(wanted, list(by_norm), n=1, cutoff=0.75)
    return by_norm[near[0]] if near else ""


def _lookup(name: str, table: dict[str, Flag]) -> Flag | None:
    if name in table:
        return table[name]
    if name.startswith("--"):
        hits = {id(f): f for s, f in table.items() if s.startswith(name) and s.startswith("--")}
        if len(hits) == 1:  # argparse's allow_abbrev: a unique prefix
            return next(iter(hits.values()))
    return None


def _expansion(value: str) -> bool:
    return "$" in value or "`" in value


def _value_findings(p: _Parsed, script: str) -> list[Finding]:
    f, v = p.flag, p.value
    if v is None or _expansion(v):
        return []
    choices = f.choices if isinstance(f.choices, list) else None
    values = v.split(",") if _multi(f) and "," in v else [v]
    out: list[Finding] = []
    if choices and all(isinstance(c, (str, int, float)) for c in choices):
        allowed = {str(c) for c in choices}
        bad = [x for x in values if x not in allowed]
        if bad:
            near = difflib.get_close_matches(bad[0], sorted(allowed), n=1, cutoff=0.6)
            out.append(Finding("bash", "bad-choice", say("bad-choice", flag=p.spelled, value=bad[0], script=script,
                                                          choices=", ".join(sorted(allowed))), target=script, suggestion=near[0] if near else ""))
            return out
    t = str(f.type or "")
    for x in values:
        if t in _INT_TYPES and not INT.fullmatch(x):
            out.append(Finding("bash", "bad-type", say("bad-type", flag=p.spelled, kind="an int", value=x),
                               target=script))
            break
        if t in _FLOAT_TYPES and not is_float(x):
            out.append(Finding("bash", "bad-type", say("bad-type", flag=p.spelled, kind="a float", value=x),
                               target=script))
            break
    return out


def _remainder(flag: Flag) -> bool:
    """``nargs=argparse.REMAINDER``: the flag takes the rest of the command line."""
    return str(flag.nargs) in ("argparse.REMAINDER", "REMAINDER", "...", "A...")


def _multi(flag: Flag) -> bool:
    """Does the flag take several values (``nargs`` ``+``, ``*`` or a count above 1)?"""
    n = flag.nargs
    return n in ("+", "*") or (isinstance(n, int) and n > 1) or (isinstance(n, str) and n.isdigit() and int(n) > 1)


def _positional_range(flags: list[Flag]) -> tuple[int, int | None]:
    lo: int = 0
    hi: int | None = 0
    for f in flags:
        if not f.positional or f.action in ("help", "version"):
            continue
        n = f.nargs
        if n in (None, 1, "1"):
            lo, hi = lo + 1, (hi + 1 if hi is not None else None)
        elif n == "?":
            hi = hi + 1 if hi is not None else None
        elif n == "*":
            hi = None
        elif n == "+":
            lo, hi = lo + 1, None
        elif isinstance(n, int) or (isinstance(n, str) and n.isdigit()):
            k = int(n)
            lo, hi = lo + k, (hi + k if hi is not None else None)
        else:
            hi = None  # argparse.REMAINDER or an expression: cannot tell
    return lo, hi


def match_args(args: list[str], flags: list[Flag], script: str) -> list[Finding]:
    """Findings for ``args`` given to ``script`` whose parser declares ``flags``."""
    return read_args(args, flags, script)[0]


def positionals_missing(args: list[str], flags: list[Flag]) -> int:
    """How many positional arguments the parser requires beyond those ``args`` give (0: none)."""
    if any(f.subcommand for f in flags):
        return 0  # which positionals are required depends on the sub-command
    lo, _ = _positional_range(flags)
    return max(0, lo - len(read_args(args, flags, "")[1]))


def read_args(args: list[str], flags: list[Flag], script: str) -> tuple[list[Finding], list[str]]:
    """``match_args``'s findings and the words the parser would take as positionals."""
    table = _index(flags)
    spellings = sorted(table)
    found: list[Finding] = []
    seen: dict[int, str] = {}
    positionals: list[str] = []
    has_subcommands = any(f.subcommand for f in flags)
    if not table:  # only positionals declared (a shell script's $1..$n): every word is one
        positionals = [a for a in args if a != "--"]
        args = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            positionals.extend(args[i:])
            break
        if not word.startswith("-") or word == "-" or looks_negative(word) or _expansion(word.split("=", 1)[0]):
            positionals.append(word)
            continue
        flag, name, eq, inline = _read_flag(word, table, script, found)
        if flag is None:
            if name in ("-h", "--help"):
                continue
            if _as_positional(name, flags, len(positionals)) and (eq or i < len(args) and not args[i].startswith("-")):
                positionals.append(inline if eq else args[i])  # --ckpt x.pt where ckpt is the next positional
                found.append(Finding("bash", "positional-as-flag", say("positional-as-flag", flag=name, script=script),
                                     target=name))
                i += 0 if eq else 1
                continue
            found.append(unknown_flag(name, spellings, script))
            if not eq and i < len(args) and not args[i].startswith("-"):
                i += 1  # its value, most likely
            continue
        if _remainder(flag):
            seen[id(flag)] = name
            break  # argparse.REMAINDER: every word after it is its value (--opts KEY VALUE ...)
        value: str | None = inline if eq else None
        if value is None and not takes_value(flag) and i < len(args) and args[i] in _BOOL_WORDS:
            found.append(_switch_value(name, args[i], script))  # --flip True: argparse takes True as a positional
            i += 1
        elif value is None and takes_value(flag):
            value, i = _take_value(args, i, flag)
            if value is None and flag.nargs not in ("?", "*"):
                found.append(_missing_value(name, flag, script))
        if id(flag) in seen and flag.action not in ("append", "count", "extend", "append_const"):
            found.append(Finding("bash", "duplicate-flag", say("duplicate-flag", flag=name, script=script),
                                 severity=WARNING, target=script))
        seen[id(flag)] = name
        found.extend(_value_findings(_Parsed(flag, name, value), script))
    if has_subcommands:
        return found, positionals  # required flags and positionals depend on the sub-command: not judged
    return found + _left_out(flags, seen, positionals, script), positionals


def _read_flag(word: str, table: dict[str, Flag], script: str,
               found: list[Finding]) -> tuple[Flag | None, str, str, str]:
    """The flag ``word`` sets (None: no declared one), the name it is read by, and ``("=",
    value)`` when the value is written in the word (``--lr=1``, ``-b16``); a long flag written
    with one dash adds its ``single-dash-flag`` finding to ``found``."""
    name, eq, inline = word.partition("=")
    flag = _lookup(name, table)
    long_ = _one_dash_long(name, table) if flag is None else ""
    if long_:  # -only_center_face: the parser would read -o nly_center_face
        found.append(Finding("bash", "single-dash-flag", say("single-dash-flag", flag=name, script=script,
                                                             short=name[:2], rest=name[2:], right=long_),
                             target=name, suggestion=long_))
        return table[long_], long_, eq, inline
    if flag is None and not eq and not name.startswith("--") and len(name) > 2:
        glued = _lookup(name[:2], table)  # -b16: a short option with its value glued on
        if glued is not None:
            return glued, name[:2], "=", name[2:]
    return flag, name, eq, inline


def _one_dash_long(name: str, table: dict[str, Flag]) -> str:
    """The long flag ``name`` means when it is that flag written with one dash (``-only_center_face``
    for ``--only_center_face``) and the parser would read it as the short option of its first
    letter with a glued value (argparse, click); ``""`` otherwise, and for absl, which takes one
    dash for any flag."""
    if name.startswith("--") or len(name) < 4 or name[:2] not in table or table[name[:2]].parser == "absl":
        return ""
    return next((s for s in table if s.startswith("--") and _norm(s) == _norm(name)), "")


def _missing_value(name: str, flag: Flag, script: str) -> Finding:
    """A flag that takes a value written without one (a bool-typed one is told to give True or False)."""
    boolish = "bool" in str(flag.type or "").lower()  # type=bool, str2bool: a bare switch errors
    return Finding("bash", "missing-flag-value", say(
        "missing-flag-value", flag=name, script=script,
        bool_hint=" (it is parsed as a bool: give True or False)" if boolish else ""),
                   target=script, suggestion="True" if boolish else "")


def _as_positional(name: str, flags: list[Flag], before: int) -> bool:
    """``name`` written as a flag is the script's positional argument that comes next: the one
    declared at index ``before`` (the positionals the command gave before it), each taking one
    word."""
    declared = [f for f in flags if f.positional and f.action not in ("help", "version")]
    if before >= len(declared) or any(f.nargs not in (None, 1, "1") for f in declared[:before + 1]):
        return False
    return _norm(name.lstrip("-")) == _norm(declared[before].dest or declared[before].name)


_BOOL_WORDS = {"True": True, "true": True, "False": False, "false": False}


def _switch_value(name: str, word: str, script: str) -> Finding:
    """A switch given ``True`` or ``False`` as if it took a value: its certain fix keeps the bare
    switch for ``True`` and takes it out for ``False`` (``suggestion``: what it becomes)."""
    return Finding("bash", "switch-value", say("switch-value", flag=name, script=script, word=word),
                   target=f"{name} {word}", suggestion=name if _BOOL_WORDS[word] else "")


def unknown_flag(name: str, spellings: list[str], script: str) -> Finding:
    """The finding for ``name``: its suggestion is the one flag a letter away when there is one
    (a certain fix), none when two are (``did you mean A or B?``), else the nearest spelling."""
    slips = list({_norm(s): s for s in spellings if one_slip(name, s)}.values())
    near = slips[0] if len(slips) == 1 else "" if slips else closest(name, spellings)
    hint = (f"; did you mean {near}?" if near else f"; did you mean {' or '.join(slips[:3])}?" if slips
            else f"; its flags are {', '.join(spellings[:12])}" + (" ..." if len(spellings) > 12 else ""))
    return Finding("bash", "unknown-flag", say("unknown-flag", flag=name, script=script, hint=hint),
                   target=script, suggestion=near)


def _take_value(args: list[str], i: int, flag: Flag) -> tuple[str | None, int]:
    """The value ``flag`` takes from ``args[i:]`` (several, comma-joined, for a list flag; a
    negative number is a value, not a flag), and where the next word starts."""
    def is_value(word: str) -> bool:
        return not word.startswith("-") or looks_negative(word)

    if _multi(flag):
        taken = []
        while i < len(args) and is_value(args[i]):
            taken.append(args[i])
            i += 1
        return (",".join(taken) if taken else None), i
    if i < len(args) and is_value(args[i]):
        return args[i], i + 1
    return None, i


def _left_out(flags: list[Flag], seen: dict[int, str], positionals: list[str], script: str) -> list[Finding]:
    """Required flags never given, and a count of positionals the parser does not take."""
    found: list[Finding] = []
    for f in flags:
        if f.required is True and not f.positional and id(f) not in seen:
            found.append(Finding("bash", "missing-required", say("missing-required", script=script, flag=f.name), target=script))
    lo, hi = _positional_range(flags)
    if len(positionals) < lo or (hi is not None and len(positionals) > hi):
        want = f"{lo}" if hi == lo else f"{lo} to {hi if hi is not None else 'any'}"
        extra = f" ({' '.join(positionals[:4])})" if positionals else ""
        found.append(Finding("bash", "positional-count",
                             say("positional-count", script=script, want=want, given=len(positionals), extra=extra),
                             target=script))
    return found
