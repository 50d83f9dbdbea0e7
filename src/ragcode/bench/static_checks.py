"""Checks an answer can pass or fail without running it (the ``static`` policy).

- the script a shell answer runs (``python x.py``, ``bash x.sh``, ``./x.sh``) exists under the
  task's path;
- every ``--flag`` (and ``-f``) given to a python script is one its parser accepts (argparse
  ``add_argument`` and absl/TF ``DEFINE_*`` names, read from the script's syntax tree; argparse's
  unique-prefix abbreviations are accepted; a script whose parser cannot be read is not judged);
- a python answer parses and imports only modules found in the repository (task path or
  repository root) or in the repository's interpreter.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

_SEPARATORS = {"&&", "||", ";", "|", "&"}
_RUNNERS = {"python", "python3", "bash", "sh", "source", ".", "accelerate", "torchrun",
            "deepspeed", "CUDA_VISIBLE_DEVICES"}
_SHORT_FLAG = re.compile(r"^-[A-Za-z]")


@dataclass
class StaticResult:
    checks: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def split_commands(text: str) -> list[list[str]]:
    """Shell answer -> simple commands (token lists), split at ``&&``, ``;``, ``|`` and newlines."""
    commands: list[list[str]] = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            tokens = line.split()
        current: list[str] = []
        for tok in tokens:
            if tok in _SEPARATORS or set(tok) <= set(";&|"):
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(tok)
        if current:
            commands.append(current)
    return commands


def _is_runner(tok: str) -> bool:
    base = tok.rsplit("/", 1)[-1]
    return base in _RUNNERS or base.startswith("python") or ("=" in tok and not tok.startswith("-"))


def script_calls(text: str) -> list[tuple[str, list[str]]]:
    """(script path, its arguments) for each ``.py``/``.sh`` script a shell answer runs.

    A command counts when it starts with the script itself or with a runner (``python``,
    ``bash``, ``torchrun``, ``VAR=value``, ...); launchers such as ``python -m
    torch.distributed.run --nproc_per_node=8 x.py`` are looked through to the script.
    """
    calls = []
    for cmd in split_commands(text):
        if not cmd:
            continue
        if not (cmd[0].endswith((".py", ".sh")) or _is_runner(cmd[0])):
            continue
        for i, tok in enumerate(cmd):
            if tok.endswith((".py", ".sh")) and not tok.startswith("-") and "=" not in tok:
                args = []
                for a in cmd[i + 1:]:
                    if a.startswith((">", "2>", "<")):
                        break
                    args.append(a)
                calls.append((tok, args))
                break
    return calls


@functools.lru_cache(maxsize=512)
def _parser_flags(script: Path) -> frozenset[str] | None:
    """Option strings a script's parser defines, or None when none can be read.

    Uses the chunking stage's CLI extractor (argparse, click, typer, absl); falls back to a
    plain syntax-tree scan of ``add_argument`` / ``DEFINE_*`` calls.
    """
    try:
        text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        from ragcode.chunking.scripts.flags import extract_flags

        declared = extract_flags(text)
    except Exception:  # noqa: BLE001 - an unparsable file: try the fallback
        declared = None
    if declared:
        flags = {n for f in declared for n in f.names if isinstance(n, str) and n.startswith("-")}
        flags.update("--no" + f.name[2:] for f in declared
                     if f.parser == "absl" and str(f.type or "").startswith("bool"))
        if flags:
            flags.update({"-h", "--help"})
            return frozenset(flags)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    flags: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "add_argument":
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("-"):
                    flags.add(arg.value)
        elif name.startswith("DEFINE") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                flags.add("--" + first.value)
                if name == "DEFINE_bool" or name == "DEFINE_boolean":
                    flags.add("--no" + first.value)
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
    calls = script_calls(text)
    if not calls:
        res.checks["script_exists"] = False
        res.notes.append("no .py or .sh script is run")
        return res
    exists, flags_ok = True, True
    for script, args in calls:
        path = (task_dir / script) if not script.startswith("/") else Path(script)
        if not path.is_file():
            exists = False
            res.notes.append(f"script {script} not found under {task_dir.relative_to(repo_dir) if task_dir.is_relative_to(repo_dir) else task_dir}")
            continue
        if path.suffix != ".py":
            continue
        accepted = _parser_flags(path.resolve())
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
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@functools.lru_cache(maxsize=32)
def repo_modules(repo_dir: Path, depth: int = 3) -> frozenset[str]:
    """Importable names a repository provides: packages (a folder with ``__init__.py``) and
    modules within ``depth`` levels (covers ``src/`` layouts and vendored sub-projects such as
    ``GroundingDINO/groundingdino``), plus every top-level folder (namespace packages)."""
    names: set[str] = set()
    base_parts = len(repo_dir.parts)
    for dirpath, dirnames, filenames in os.walk(repo_dir):
        level = len(Path(dirpath).parts) - base_parts
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        if level >= depth:
            dirnames[:] = []
        if level == 0:
            names.update(dirnames)
        if "__init__.py" in filenames and level > 0:
            names.add(Path(dirpath).name)
        names.update(f[:-3] for f in filenames if f.endswith(".py"))
    return frozenset(names)


def _in_repo(name: str, roots: list[Path], repo_dir: Path) -> bool:
    return (any((r / name).is_dir() or (r / f"{name}.py").is_file() for r in roots)
            or name in repo_modules(repo_dir))


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


@functools.lru_cache(maxsize=32)
def repo_imports(repo_dir: Path) -> frozenset[str]:
    """Top-level module names the repository's own Python files import (a cheap line scan)."""
    names: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(repo_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if f.endswith(".py"):
                try:
                    text = (Path(dirpath) / f).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                names.update(_IMPORT_LINE.findall(text))
    return frozenset(names)


_PIP_INSTALL = re.compile(r"pip3?\s+install\s+([^\n`;&|]+)")
_PACKAGE_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_DECLARING_FILES = ("requirements*.txt", "setup.py", "setup.cfg", "pyproject.toml",
                    "environment*.yml", "environment*.yaml", "README*", "readme*")


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(".", "_")


@functools.lru_cache(maxsize=32)
def repo_declared_packages(repo_dir: Path) -> frozenset[str]:
    """Distribution names the repository asks users to install: requirement-file lines and the
    words after ``pip install`` in its top-level docs and setup files (normalised to import
    style: lower case, ``-`` -> ``_``)."""
    names: set[str] = set()
    for pattern in _DECLARING_FILES:
        for path in repo_dir.glob(pattern):
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if path.name.startswith("requirements"):
                names.update(_norm(m.group(1)) for line in text.splitlines()
                             if (m := _REQ_NAME.match(line)) and not line.lstrip().startswith(("#", "-")))
            for m in _PIP_INSTALL.finditer(text):
                for word in m.group(1).split():
                    word = word.strip("'\"")
                    if word.startswith(("-", ".", "/", "git+", "http")) or word.endswith((".txt", ".yml", ".yaml")):
                        continue
                    word = re.split(r"[\[<>=!~]", word, maxsplit=1)[0]
                    if not _PACKAGE_WORD.match(word):
                        break  # prose after the command
                    names.add(_norm(word))
    return frozenset(n for n in names if n)


@functools.lru_cache(maxsize=64)
def _env_modules(interpreter: str, names: tuple[str, ...]) -> dict[str, bool]:
    if not names:
        return {}
    if interpreter in ("", sys.executable):
        return {n: importlib.util.find_spec(n) is not None for n in names}
    code = ("import importlib.util,json,sys;print(json.dumps({n: importlib.util.find_spec(n) is not None "
            "for n in sys.argv[1:]}))")
    try:
        proc = subprocess.run([interpreter, "-c", code, *names], capture_output=True, text=True, timeout=60)
        return json.loads(proc.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return {n: True for n in names}  # cannot tell: do not blame the answer


def check_python(text: str, repo_dir: Path, task_dir: Path, interpreter: str = "") -> StaticResult:
    res = StaticResult()
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        res.checks["python_parses"] = False
        res.notes.append(f"does not parse: line {exc.lineno}: {exc.msg}")
        return res
    res.checks["python_parses"] = True
    names = sorted(n for n in _top_modules(tree) if not _in_repo(n, [task_dir, repo_dir], repo_dir))
    found = _env_modules(interpreter, tuple(names))
    missing = [n for n in names if not found.get(n, False)]
    res.checks["imports_resolve"] = not missing
    if missing:
        res.notes.append(f"imports not found in the repository or environment: {', '.join(missing)}")
    return res
