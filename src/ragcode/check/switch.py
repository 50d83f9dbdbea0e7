"""Switching to the documented command that takes the instruction's values.

A README often shows two steps side by side (bert: ``create_pretraining_data.py`` makes the
data, ``run_pretraining.py`` trains), and a small model copies the first one shown whatever the
task asks. When the instruction's values then have nowhere to go (``300,000 steps`` and a
``learning rate of 0.00001`` for a script with neither flag), ``switch_command`` looks at the
commands the repository's Markdown documents (root and task folder, fenced blocks) give for the
sibling scripts of the one the answer runs (same folder, a parser of their own), builds each as
the document writes it with the answer's own flags laid over it where that script has them,
fills the instruction's values in (``check.fill``, ``check.fill_vars``). The sibling whose flags
take the instruction's numbers best (``fit``: each number to the flag its words name best, one
number per flag), better than the answer's own script does and than any other sibling, replaces
the answer when its built command leaves at least two fewer values missing, and only when the
instruction or the retrieved passage names that sibling (``named_here``);
``ragcode.answer.fixes.fix_answer`` keeps it only when its findings weigh less. Only the instruction and
the repository are read.
"""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

from ragcode.check import CheckContext, Checker, check_answer
from ragcode.check.bash import outside_or_inside, resolved_calls
from ragcode.check.instruction import read_instruction
from ragcode.check.facts import read_text, script_flags
from ragcode.check.fill import fill_values, given_flags, missing_values
from ragcode.check.slot import context_words, score
from ragcode.check.fill_vars import fill_vars
from ragcode.check.retarget import GENERIC_NAMES, name_words, sibling_target
from ragcode.chunking.markdown import fence_spans
from ragcode.chunking.scripts.flags import Flag
from ragcode.shell import logical_lines, parse_command, split_commands

_GAIN = 2  # values placed beyond what the answer's own script takes


@functools.lru_cache(maxsize=64)
def documented_commands(repo: Path, task_dir: Path) -> tuple[tuple[Path, tuple[str, ...]], ...]:
    """``(script, words)`` of each Python script call in the fenced blocks of the Markdown files
    at the repository's root and in the task's folder, the first one per script."""
    out: dict[Path, tuple[str, ...]] = {}
    for folder in dict.fromkeys((repo, task_dir)):
        for doc in sorted(folder.glob("*.md"))[:20]:
            lines = (read_text(doc) or "").splitlines()
            for a, b in fence_spans(lines):
                for _, line in logical_lines("\n".join(lines[a + 1:b])):
                    for words in split_commands(line):
                        call = parse_command(words)
                        if call is None or call.kind != "script" or not call.target.endswith(".py"):
                            continue
                        for base in (folder, task_dir, repo):
                            path = outside_or_inside(call.target, base, repo)
                            if path is not None and path.is_file():
                                out.setdefault(path, tuple(words))
                                break
    return tuple(out.items())


def _overlay(words: tuple[str, ...], target: str, own: dict[str, str | None]) -> str:
    """The documented command with the answer's script path and flag values laid over it."""
    out: list[str] = []
    seen: set[str] = set()
    call = parse_command(list(words))
    assert call is not None
    i, doc = 0, list(words)
    while i < len(doc):
        w = doc[i]
        if w == call.target:
            out.append(target)
        elif w.startswith("-") and w.split("=", 1)[0] in own:
            name = w.split("=", 1)[0]
            seen.add(name)
            value = own[name]
            has_value = "=" not in w and i + 1 < len(doc) and not doc[i + 1].startswith("-")
            out.append(f"{name}={value}" if "=" in w and value is not None else name)
            if "=" not in w and value is not None:
                out.append(value)
            i += 2 if has_value else 1
            continue
        else:
            out.append(w)
        i += 1
    eq = any("=" in w and w.startswith("--") for w in doc)
    for name, value in own.items():
        if name not in seen:
            out.extend([f"{name}={value}"] if eq and value is not None else [name] + ([value] if value else []))
    return " ".join(shlex.quote(w) if w != target and any(c in w for c in " '\"") else w for w in out)


def fit(flags: list[Flag], instruction: str) -> float:
    """How well a script's flags take the instruction's numbers: each number given to the flag
    its words name best (``check.slot.score``), one number per flag, the best pairs first."""
    numbers = [v.spelling for v in read_instruction(instruction).values if v.kind in ("int", "float")]
    pairs = sorted(((score(f, v, context_words(instruction, v)), v, f.name) for v in numbers for f in flags),
                   reverse=True)
    used_v: set[str] = set()
    used_f: set[str] = set()
    total = 0.0
    for s, v, name in pairs:
        if s > 0 and v not in used_v and name not in used_f:
            used_v.add(v)
            used_f.add(name)
            total += s
    return round(total, 3)


def named_here(path: Path, ctx: CheckContext) -> bool:
    """The instruction names the script (each word of its name that is more than a word every
    task says is said, as a word, a stem of one or two neighbouring words joined: "pre-train"
    names ``run_pretraining.py``) or the retrieved passage (``ctx.extra["context"]``) writes its
    file name: a script neither names is no place to move an answer to."""
    own = name_words(path) - GENERIC_NAMES
    said = _said_forms(ctx.instruction)
    if own and all(any(w == s or len(s) >= 4 and w.startswith(s) for s in said) for w in own):
        return True
    passage = str(ctx.extra.get("context") or "")
    return bool(passage) and re.search(rf"(?<![\w.-]){re.escape(path.name)}(?![\w-])", passage) is not None


def _said_forms(instruction: str) -> set[str]:
    """The instruction's words and each two neighbours joined (``pre-train`` -> ``pretrain``)."""
    words = re.findall(r"[a-z0-9]+", instruction.lower())
    return set(words) | {a + b for a, b in zip(words, words[1:])}


def switch_command(code: str, ctx: CheckContext, checkers: list[Checker]) -> str | None:
    """The documented sibling command that takes more of the instruction's values (see the
    module doc), filled, or None."""
    calls = [s for s in resolved_calls(code, ctx) if s.call is not None]
    if len(calls) != 1:
        return None
    step = calls[0]
    if step.path is None or step.flags is None or step.call is None or step.call.kind != "script":
        return None
    before = len(missing_values(check_answer(code, "bash", ctx, checkers)))
    if before < _GAIN:
        return None
    repo = Path(ctx.repo_dir).resolve()
    folder = step.path.resolve().parent
    names = {s for f in step.flags for s in f.option_strings()}
    best: list[tuple[float, int, str]] = []
    own_fit = fit(step.flags, ctx.instruction)
    for path, words in documented_commands(repo, ctx.task_dir):
        if path.parent != folder or path == step.path.resolve() or not named_here(path, ctx):
            continue
        flags = script_flags(path)
        if not flags:
            continue
        their_fit = fit(flags, ctx.instruction)
        if their_fit <= own_fit:
            continue
        theirs = {s for f in flags for s in f.option_strings()}
        own = {k: v for k, v in given_flags(step.call.args).items() if k in theirs and k in names}
        built = _overlay(words, sibling_target(step.call.target, path.name), own)
        built, _ = fill_values(built, check_answer(built, "bash", ctx, checkers), ctx)
        built, _ = fill_vars(built, check_answer(built, "bash", ctx, checkers), ctx)
        best.append((-their_fit, len(missing_values(check_answer(built, "bash", ctx, checkers))), built))
    best.sort()
    if not best or best[0][1] > before - _GAIN or len(best) > 1 and best[1][0] == best[0][0]:
        return None  # not enough of the values placed, or two siblings take them as well
    return best[0][2]
