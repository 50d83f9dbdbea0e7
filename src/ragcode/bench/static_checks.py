"""Checks an answer can pass or fail without running it (the ``static`` policy).

- the script a shell answer runs (``python x.py``, ``bash x.sh``, ``./x.sh``, ``torchrun ...
  x.py``: every form ``ragcode.shell`` reads) exists under the task's path;
- every ``--flag`` (and ``-f``) given to a python script is one its parser accepts (the option
  strings of the ``Flag``s the chunking stage extracts: argparse, click, typer, absl; argparse's
  unique-prefix abbreviations are accepted; a script whose parser cannot be read is not judged);
- a python answer parses and imports only modules found in the repository (task path or
  repository root) or in the repository's interpreter.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ragcode.check.facts_env import env_has_modules, in_repo
from ragcode.errors import RepoPathError
from ragcode.fileio import inside_repo
from ragcode.shell import script_calls

_SHORT_FLAG = re.compile(r"^-[A-Za-z]")


@dataclass
class StaticResult:
    checks: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@functools.lru_cache(maxsize=512)
def _parser_flags(script: Path) -> frozenset[str] | None:
    """Option strings a script's parser accepts, or None when none can be read: the
    ``Flag.option_strings()`` of the chunking stage's extractor (argparse, click, typer, absl),
    read once per file through the answer checks' cache (``ragcode.check.facts.script_flags``)."""
    from ragcode.check.facts import script_flags

    flags = {s for f in script_flags(script) or [] for s in f.option_strings()}
    if not flags:
        return None
    flags.update({"-h", "--help"})
    return frozenset(flags)


def flag_accepted(flag: str, accepted: frozenset[str]) -> bool:
    name = flag.split("=", 1)[0]
    if name in accepted:
        return True
    if name.startswith("--"):
        matches = [a for a in accepted if a.startswith(name)]
        if len(matches) == 1:  # argparse allow_abbrev
            return True
        # underscore/dash spellings are different flags to argparse; no leniency here
        return False
    # short options may carry their value glued on: -b16
    return name[:2] in accepted


def used_flags(args: list[str]) -> list[str]:
    out = []
    for a in args:
        if a.startswith("--") and len(a) > 2 or _SHORT_FLAG.match(a) and not re.match(r"^-\d", a):
            out.append(a)
    return out


def check_shell(text: str, repo_dir: Path, task_dir: Path) -> StaticResult:
    res = StaticResult()
    calls = [c for c in script_calls(text) if c.kind == "script"]
    if not calls:
        res.checks["script_exists"] = False
        res.notes.append("no .py or .sh script is run")
        return res
    exists, flags_ok = True, True
    for call in calls:
        script, args = call.target, call.args
        try:
            path = inside_repo(repo_dir, script, task_dir)
        except RepoPathError:
            exists = False  # never read, nor told apart from a missing one
            res.notes.append(f"script {script} is outside the repository; not read")
            continue
        if not path.is_file():
            exists = False
            res.notes.append(f"script {script} not found under {task_dir.relative_to(repo_dir) if task_dir.is_relative_to(repo_dir) else task_dir}")
            continue
        if path.suffix != ".py":
            continue
        accepted = _parser_flags(path)
        if accepted is None:
            res.notes.append(f"{script}: parser not readable, flags not judged")
            continue
        bad = [f for f in used_flags(args) if not flag_accepted(f, accepted)]
        if bad:
            flags_ok = False
            res.notes.append(f"{script} does not accept {', '.join(bad)}")
    res.checks["script_exists"] = exists
    res.checks["flags_known"] = flags_ok
    return res


def _top_modules(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def check_python(text: str, repo_dir: Path, task_dir: Path, interpreter: str = "") -> StaticResult:
    res = StaticResult()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, nesting too deep
        res.checks["python_parses"] = False
        where = f"line {exc.lineno}: {exc.msg}" if isinstance(exc, SyntaxError) else type(exc).__name__
        res.notes.append(f"does not parse: {where}")
        return res
    res.checks["python_parses"] = True
    names = sorted(n for n in _top_modules(tree) if not in_repo(n, [task_dir, repo_dir], repo_dir))
    found = env_has_modules(interpreter, tuple(names))
    missing = [n for n in names if not found.get(n, False)]
    res.checks["imports_resolve"] = not missing
    if missing:
        res.notes.append(f"imports not found in the repository or environment: {', '.join(missing)}")
    return res
