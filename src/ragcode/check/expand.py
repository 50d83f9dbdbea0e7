"""Opening a wrapper script: a bash answer that runs a repository ``.sh`` which takes no
arguments gets the Python command inside it instead, so that the user's values can be set.

Repositories ship their experiments as shell scripts (``scripts/long_term_forecast/ETT/
TimesNet.sh``) that each run ``python -u run.py --task_name ... --model TimesNet ...`` with fixed
values and read no arguments. A model that answers "train Autoformer on SMAP" with ``bash
scripts/anomaly_detection/PSM/TimesNet.sh`` runs the wrong experiment and cannot be given the
values by a flag (arguments given to it never arrive: it reads no ``$1``, ``$@``...). When every
command of the answer is such a script (or a comment, a variable
assignment, an ``export``), ``expand_wrappers`` replaces the answer with the Python command of
the one script that already says most of what the instruction names; its variables
(``model_name=TimesNet``) are filled in from the script. ``check.fill`` then gives the
instruction's values to that command's flags. Only files inside the repository are read.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from ragcode.check import CheckContext
from ragcode.check.bash import Step, walk
from ragcode.check.instruction import read_instruction
from ragcode.check.words import stopwords
from ragcode.check.facts import read_text, scripts_near
from ragcode.shell import ENV_ASSIGNMENT, logical_lines, parse_command, split_commands, split_prefix

_VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def inner_command(script: Path) -> str | None:
    """The first Python command a shell script runs, one line, its own variables filled in;
    None when it runs none or uses a variable it does not set."""
    text = read_text(script)
    if text is None:
        return None
    env: dict[str, str] = {}
    for _, line in logical_lines(text):
        for words in split_commands(line):
            if words and words[0] == "export":
                words = words[1:]
            if words and all(ENV_ASSIGNMENT.match(w) for w in words):
                for w in words:
                    k, v = w.split("=", 1)
                    env[k] = _fill(v, env) or ""
                continue
            call = parse_command(words)
            if call is None or not call.launcher.startswith("python") or call.kind != "script":
                continue
            filled = [_fill(w, env) for w in split_prefix(words)[1]]
            if any(w is None for w in filled):
                return None
            return shlex.join(w for w in filled if w is not None)
    return None


def _fill(word: str, env: dict[str, str]) -> str | None:
    missing = False

    def sub(m: re.Match) -> str:
        nonlocal missing
        name = m.group(1) or m.group(2)
        if name not in env:
            missing = True
            return ""
        return env[name]

    out = _VAR.sub(sub, word)
    return None if missing else out


_SHELL_READS_ARGS = re.compile(r"\$(?:\{?[0-9@*#]|\{#)|\bgetopts?\b|\bshift\b")


def _wrapper(step: Step) -> bool:
    """A call to a repository ``.sh`` that takes no arguments: none given, or the script reads
    none of those given (no ``$1``, ``$@``, ``getopts``...: ``bash TimesNet_ETTh1.sh --mask_rate
    0.25`` passes a value that never arrives)."""
    call = step.call
    if call is None or call.kind != "script" or not call.target.endswith(".sh") or step.flags is not None:
        return False
    if not call.args:
        return True
    text = read_text(step.path) if step.path is not None else None
    return text is not None and not _SHELL_READS_ARGS.search(text)


def _only_wrappers(code: str) -> bool:
    """Every command of ``code`` runs a script, moves (``cd``), exports or assigns."""
    for words in split_commands(code):
        rest = split_prefix(words)[1]
        if rest and rest[0] not in ("export", "cd") and parse_command(words) is None:
            return False
    return True


def expand_wrappers(code: str, ctx: CheckContext) -> str | None:
    """The answer replaced by the inner Python command of the wrapper script that fits the
    instruction best, or None when the answer is not made of wrapper calls only. The scripts
    looked at are the ones called and their neighbours under the same top folder of the
    repository (``scripts/``; none for a script at the top itself): the one whose path names most of the instruction's words
    (``imputation/ETT_script/Transformer_ETTm1.sh`` for "a Transformer ... imputation ... ETTm1"),
    then the one whose command already holds most of its values, then one the answer called. When
    the answer ``cd``s first, the command keeps that ``cd``."""
    steps = list(walk(code, ctx))
    calls = [s for s in steps if s.call is not None]
    if not calls or not all(_wrapper(s) for s in calls) or not _only_wrappers(code):
        return None
    repo = Path(ctx.repo_dir).resolve()
    task = read_instruction(ctx.instruction)
    words = task.words - stopwords() - _PATH_NOISE
    values = [v.lower() for v in task.spellings]
    scripts: dict[Path, Path] = {}  # script -> the folder it is run from
    called = set()
    for s in calls:
        assert s.call is not None
        if s.path is None:
            continue
        path = s.path.resolve()
        called.add(path)
        if repo in path.parents:
            scripts[path] = s.cwd
            rel = path.relative_to(repo).parts
            if len(rel) > 1:  # its neighbours under the same top folder (scripts/...), not the whole repository
                for near in scripts_near(repo / rel[0], depth=4):
                    scripts.setdefault((repo / rel[0] / near).resolve(), s.cwd)
    best: tuple[int, int, bool, str] | None = None
    for path, cwd in scripts.items():
        inner = inner_command(path) if repo in path.parents else None  # a link out of it is not read
        if inner is None:
            continue
        if cwd != ctx.task_dir:  # the answer moved first: so must the command
            inner = f"cd {shlex.quote(os.path.relpath(cwd, ctx.task_dir))} && {inner}"
        named = len(set(re.findall(r"[a-z0-9]+", str(path.relative_to(repo)).lower())) & words)
        key = (named, sum(v in inner.lower() for v in values), path in called, inner)
        if best is None or key[:3] > best[:3]:
            best = key
    return best[3] if best else None


_PATH_NOISE = {"sh", "py", "script", "scripts", "run"}  # words of every script path (and the stopwords)
