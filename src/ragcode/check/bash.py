"""Checks of a bash answer against the repository.

The answer is split into commands with the one shell grammar (``ragcode.shell``); ``cd``
commands move the working directory (starting at the task's path); each command that runs a
script or module (``python X.py``, ``bash X.sh``, ``python -m pkg.mod``, ``torchrun``,
``accelerate launch``...) is resolved there. Findings: a script or module that does not exist
(naming the closest real one), a ``cd`` into a folder that does not exist, a module run as a
script without arguments when it reads none (``library-file``: its ``__main__`` block is its own
demo, so the task's values never reach it), arguments handed to a script that reads none
(``ignored-args``: neither it nor a repository module it imports parses a command line), a
document or data file run as a program (``not-a-script``: ``python README.md:12-40`` is a
context passage's header copied out), ``python x.sh`` (``wrong-launcher``), and, for a Python
script whose parser can be read, everything ``ragcode.check.args.match_args`` finds. An answer
that runs no script at all is a finding too.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragcode.check import WARNING, CheckContext, Finding, say
from ragcode.check.answer import read_answer
from ragcode.check.args import match_args
from ragcode.check.facts import console_scripts, installed_command, module_file, read_text, script_flags, scripts_near
from ragcode.check.launcher import cluster_launcher
from ragcode.check.repo_files import missing_files
from ragcode.chunking.scripts.flags import Flag
from ragcode.errors import RepoPathError
from ragcode.fileio import inside_repo
from ragcode.shell import PYTHON, ScriptCall, logical_lines, split_commands


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root)) or "."
    except ValueError:
        return str(path)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def closest_script(target: str, cwd: Path, repo: Path) -> str:
    """The real script a missing ``target`` most likely meant, as a path from ``cwd``: a file
    of the same name elsewhere in the repository first, else the nearest name near ``cwd``."""
    name = Path(target).name
    near = scripts_near(cwd)
    same = [p for p in near if Path(p).name == name]
    if same:
        return min(same, key=len)
    elsewhere = [p for p in scripts_near(repo, depth=4) if Path(p).name == name]
    if elsewhere:
        best = min(elsewhere, key=len)
        return _rel(repo / best, cwd) if _inside(repo / best, cwd) else str(Path(_up(cwd, repo)) / best)
    hit = difflib.get_close_matches(target, near, n=1, cutoff=0.6)
    return hit[0] if hit else ""


def _up(cwd: Path, repo: Path) -> str:
    depth = len(cwd.relative_to(repo).parts) if _inside(cwd, repo) else 0
    return "/".join([".."] * depth) or "."


@dataclass
class Step:
    """One command of a bash answer as it would run: ``call`` (None for a ``cd``), the folder
    it runs in, its logical line's first and last physical line (0-based), and whether it is
    the last command of that line; ``path`` is the file the call runs (None when there is none),
    ``flags`` that script's parser table when it can be read; ``expands``: a word after any
    ``VAR=value`` prefix holds a ``$`` the shell expands."""

    call: ScriptCall | None
    words: list[str]
    cwd: Path
    first_line: int
    end_line: int
    last: bool
    path: Path | None = None
    flags: list[Flag] | None = None
    expands: bool = False


def walk(code: str, ctx: CheckContext, others: bool = False) -> Iterator[Step]:
    """The commands of ``code`` in order, ``cd`` moving the folder the next ones run in; with
    ``others``, a command that runs no script or module (``whisper x.wav``) too, with ``call`` None
    like a ``cd``."""
    repo = Path(ctx.repo_dir).resolve()
    cwd = ctx.task_dir
    for cmd in read_answer(code, "bash").commands:
        rest = list(cmd.rest)
        if rest and rest[0] == "cd":
            yield Step(None, rest, cwd, cmd.first_line, cmd.end_line, cmd.last)
            dest = _cd_dest(rest[1:], cwd)
            if dest is not None and not dest.is_dir():
                dest = _from_root(rest[1:], repo, ctx.task_dir) or dest
            cwd = dest if dest is not None and dest.is_dir() and _inside(dest, repo) else cwd
            continue
        if cmd.call is not None:
            path = _runs(cmd.call, cwd, repo)
            flags = script_flags(path) if path is not None and path.is_file() else None
            yield Step(cmd.call, list(cmd.words), cwd, cmd.first_line, cmd.end_line, cmd.last, path, flags,
                       cmd.expands)
        elif others and cmd.words:
            yield Step(None, list(cmd.words), cwd, cmd.first_line, cmd.end_line, cmd.last, expands=cmd.expands)


def resolved_calls(code: str, ctx: CheckContext) -> list[Step]:
    """The script and module calls of ``code`` (``walk`` without the ``cd`` steps)."""
    return [s for s in walk(code, ctx) if s.call is not None]


def _cd_dest(args: list[str], cwd: Path) -> Path | None:
    """Where ``cd ARGS`` goes, or None when that cannot be told (``cd -``, ``~``, a variable)."""
    if not args or args[0] in ("-", "~") or "$" in args[0] or args[0].startswith("~"):
        return None
    return (cwd / args[0]).resolve()


def _from_root(args: list[str], repo: Path, task_dir: Path) -> Path | None:
    """Where ``cd ARGS`` goes when the answer was written from the repository's root (a README
    says ``cd implementations/gan`` to users who start there), when that is the task's folder or
    one inside it. A root-relative ``cd`` elsewhere (a sibling model's folder) is not followed:
    measured on the dev runs, it mostly leads to another model's script."""
    dest = _cd_dest(args, repo)
    if dest is None or args[0].startswith("/") or not dest.is_dir() or not _inside(dest, task_dir):
        return None
    return dest


def _module_as_script(module: str, cwd: Path, repo: Path) -> str:
    """The one file of the repository named like ``module``'s last part (``python -m lm_design``
    copied from a README run inside ``examples/lm-design``, whose hyphen no import can cross), as
    a path from ``cwd``; empty when there is none or more than one."""
    name = module.rsplit(".", 1)[-1] + ".py"
    hits = [p for p in scripts_near(repo, depth=4) if Path(p).name == name]
    if len(hits) != 1:
        return ""
    return os.path.relpath(repo / hits[0], cwd)


def _runs(call: ScriptCall, cwd: Path, repo: Path) -> Path | None:
    """The file a call runs: a script that exists, or a module's file (its ``__main__.py`` for a
    package; the folder of a namespace package); None when there is none or it is a variable."""
    if "$" in call.target:
        return None
    if call.kind == "module":
        path = module_file(call.target, [cwd, repo])
        if path is not None and path.is_file() and path.name == "__init__.py":
            main = path.parent / "__main__.py"
            path = main if main.is_file() else path
        return path
    path = outside_or_inside(call.target, cwd, repo)
    return path if path is not None and path.is_file() else None


def outside_or_inside(target: str, cwd: Path, repo: Path) -> Path | None:
    """The file ``target`` names from ``cwd``, kept inside the repository; None when it leaves
    it (the checks never read, nor tell the existence of, a file outside)."""
    try:
        return inside_repo(repo, target, cwd)
    except RepoPathError:
        return None


class BashChecker:
    name = "bash"

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        if answer_type != "bash":
            return []
        repo = Path(ctx.repo_dir).resolve()
        found: list[Finding] = []
        calls = 0
        found.extend(_launcher_slips(code))
        steps = list(walk(code, ctx))
        for step in steps:
            if step.call is None:
                found.extend(self._cd(step.words[1:], step.cwd, repo, ctx.task_dir, step.first_line + 1))
                continue
            calls += 1
            found.extend(self._call(step, repo, ctx, step.first_line + 1))
        if calls == 0 and not any(f.code in ("wrong-launcher", "not-a-script") for f in found) \
                and not _runs_console_script(code, repo):
            found.append(Finding(self.name, "no-command", say("no-command")))
        return found + missing_files([s for s in steps if s.call is not None], ctx)

    def _cd(self, args: list[str], cwd: Path, repo: Path, task_dir: Path, line: int) -> list[Finding]:
        new = _cd_dest(args, cwd)
        if new is None or not _inside(new, repo) or new.is_dir():
            return []  # a real folder, or one outside the repository (a data folder, /tmp): not ours to judge
        root = _from_root(args, repo, task_dir)
        if root is not None:  # written for a shell at the repository's root: the steps after it follow it there
            there = os.path.relpath(root, cwd)
            return [Finding(self.name, "cd-from-root",
                            say("cd-from-root", folder=args[0], start=_rel(cwd, repo), there=there), severity=WARNING,
                            line=line, target=args[0], suggestion=there)]
        return [Finding(self.name, "unknown-script",
                        say("unknown-script", "cd", folder=args[0], path=_rel(new, repo)),
                        line=line, target=args[0])]

    def _call(self, step: Step, repo: Path, ctx: CheckContext, line: int) -> list[Finding]:
        call, cwd = step.call, step.cwd
        assert call is not None
        if "$" in call.target:
            return []
        if step.path is None and call.kind == "module":
            if not _importable(call.target.split(".")[0], ctx.interpreter):
                script = _module_as_script(call.target, cwd, repo)
                hint = f"; the repository has it as a script: python {script}" if script else ""
                return [Finding(self.name, "unknown-module",
                                say("unknown-module", module=call.target, hint=hint),
                                line=line, target=call.target, suggestion=script)]
        elif step.path is None and outside_or_inside(call.target, cwd, repo) is None:
            return [Finding(self.name, "outside-repo", say("outside-repo", target=call.target), severity=WARNING,
                            line=line, target=call.target)]
        elif step.path is None:
            near = closest_script(call.target, cwd, repo)
            hint = f"; did you mean {near}?" if near else ""
            found = [Finding(self.name, "unknown-script",
                             say("unknown-script", script=call.target, folder=_rel(cwd, repo), hint=hint),
                             line=line, target=call.target, suggestion=near)]
            if near:  # what the closest real script would do with this call
                found.extend(_reads_nothing(call, cwd / near, script_flags(cwd / near), near, repo, line))
            return found
        if step.flags is None:
            return _reads_nothing(call, step.path, None, call.target, repo, line)
        return ([_at(f, line) for f in match_args(call.args, step.flags, call.target)]
                + cluster_launcher(call.target, step.path, ctx.instruction, line))


# files no interpreter runs: documents, data, configs, images (``python README.md:12-40`` is a
# passage header of the context copied as a command)
_NOT_CODE = frozenset({".md", ".rst", ".txt", ".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv", ".cfg", ".toml",
                       ".ini", ".jpg", ".jpeg", ".png", ".gif", ".pdb", ".fasta", ".pt", ".pth", ".ckpt", ".ipynb",
                       ".html", ".zip", ".gz", ".tar"})
_CITED = re.compile(r":\d+(?:-\d+)?$")


def _launcher_slips(code: str) -> list[Finding]:
    """``python x.sh``: Python cannot run a shell script; ``bash x.sh`` would (``wrong-launcher``).
    ``python README.md:12-40``, ``python data/x.json``: what is run is no program at all
    (``not-a-script``)."""
    out = []
    for cmd in read_answer(code, "bash").commands:
        rest = cmd.rest
        if len(rest) < 2 or "$" in rest[1] or not (PYTHON.match(rest[0]) or rest[0] in ("bash", "sh")):
            continue
        launcher, target = rest[0], rest[1]
        if PYTHON.match(launcher) and target.endswith(".sh"):
            out.append(Finding("bash", "wrong-launcher", say("wrong-launcher", launcher=launcher, target=target),
                               line=cmd.first_line + 1, target=f"{launcher} {target}", suggestion=f"bash {target}"))
        elif _CITED.search(target) or Path(target).suffix.lower() in _NOT_CODE:
            out.append(Finding("bash", "not-a-script", say("not-a-script", launcher=launcher, target=target,
                                                               name=Path(_CITED.sub('', target)).name),
                               line=cmd.first_line + 1, target=target))
    return out


def _runs_console_script(code: str, repo: Path) -> bool:
    """A command of ``code`` is one the repository installs (``whisper audio.mp3``)."""
    if not console_scripts(repo):
        return False
    return any(installed_command(words, repo) for _, line in logical_lines(code) for words in split_commands(line))


_READS_ARGS = re.compile(r"argv|argparse|ArgumentParser|add_argument|parse_args|optparse|OptionParser|getopt|docopt|"
                        r"click|typer|absl|\bfire\b|hydra|FLAGS|flags\.DEFINE|tf\.app\.flags|input\(")


def _library_file(path: Path) -> bool:
    """A Python module, not a script: it reads no command line (no parser, no ``sys.argv``),
    defines functions or classes, and runs nothing at the top level but its ``if __name__ ==
    "__main__":`` demo."""
    text = read_text(path) if path.suffix == ".py" else None
    if text is None or _READS_ARGS.search(text):
        return False
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    quiet = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
             ast.AnnAssign)
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            continue
        if not isinstance(node, quiet):
            return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in body)


def _reads_no_args(path: Path | None, repo: Path) -> bool:
    """A Python script that reads no command line: neither it nor a module of the repository it
    imports (``from options.train_options import TrainOptions`` parses for ``train.py``; ``from
    .transcribe import cli`` for a package's ``__main__.py``) nor a file it executes
    (``exec(open('configurator.py').read())``, which reads ``sys.argv``) mentions a parser,
    ``sys.argv`` or input()."""
    text = read_text(path) if path is not None and path.suffix == ".py" else None
    if path is None or text is None or _READS_ARGS.search(text):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return not any(_READS_ARGS.search(read_text(f) or "") for f in _code_it_runs(tree, path, repo))


_EXECUTED = re.compile(r"""exec\(\s*open\(\s*(['"])([^'"]+\.py)\1""")


def _code_it_runs(tree: ast.Module, path: Path, repo: Path) -> list[Path]:
    """The repository files a script imports (absolutely or relatively) or executes."""
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level]
    files = [module_file(name, [path.parent, repo]) for name in names]
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and 0 < n.level <= len(path.parents):
            base = path.parent.parents[n.level - 2] if n.level > 1 else path.parent
            files += [module_file(n.module, [base])] if n.module else [
                module_file(a.name, [base]) for a in n.names]
    for m in _EXECUTED.finditer(ast.unparse(tree)):
        files += [p for p in (path.parent / m.group(2), repo / m.group(2)) if p.is_file()][:1]
    return [f for f in files if f is not None and f.is_file()]


def _reads_nothing(call: ScriptCall, path: Path | None, flags: list[Flag] | None, shown: str, repo: Path,
                   line: int) -> list[Finding]:
    """A call to ``path`` (shown as ``shown``) when that file reads no command line: run without
    arguments, a module that only defines things (``library-file``); with them, arguments that
    never reach it (``ignored-args``)."""
    if flags is not None:
        return []
    if not call.args:
        return [_library(shown, line)] if call.kind == "script" and path is not None and _library_file(path) else []
    return [_ignored(shown, call.args, line)] if _reads_no_args(path, repo) else []


def _ignored(target: str, args: list[str], line: int) -> Finding:
    return Finding("bash", "ignored-args", say("ignored-args", target=target, args=" ".join(args[:3]),
                                                more=" ..." if len(args) > 3 else ""), severity=WARNING, line=line, target=target)


def _library(target: str, line: int) -> Finding:
    return Finding("bash", "library-file", say("library-file", target=target),
                   severity=WARNING, line=line, target=target)


def _at(f: Finding, line: int) -> Finding:
    return Finding(f.check, f.code, f.message, f.severity, line, f.target, f.suggestion)


def _importable(top: str, interpreter: str) -> bool:
    if interpreter:
        from ragcode.check.facts_env import env_has_modules

        return env_has_modules(interpreter, (top,)).get(top, True)
    return importlib.util.find_spec(top) is not None
