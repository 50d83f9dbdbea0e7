"""Checks of a Python answer against the repository.

- it parses (``syntax-error`` with the line);
- every import resolves to the repository's own modules (task path, repository root, a
  ``src/``-style layout) or to the environment's interpreter (``unresolved-import``); without
  a per-repository interpreter (``execution.envs``) the environment ragcode runs in is not the
  one the answer runs in, so only a module that misses the repository's own (or a package it
  says to install) by a little is said (``import open_clips``, did you mean ``open_clip``?);
  ``import skimage`` is left alone;
- a module it uses is imported: ``clip.tokenize(...)`` after only ``from clip import load``
  fails with ``NameError`` (``unimported-module``, a certain fix: ``import clip``; the standard
  library's modules, the repository's own and the packages it depends on, read unbound by
  ``ragcode.check.unbound``);
- names taken from the repository's modules exist there: ``from models import GCNN`` when
  ``models.py`` defines no ``GCNN``, or ``models.GCNN(...)`` after ``import models``
  (``missing-symbol``, naming the closest real one);
- a name taken from an installed package is there: ``from transformers import Transformer``
  beside llama2.c's ``model.py`` is ``foreign-name`` (a certain fix imports it from the
  repository), a name neither has is ``missing-symbol`` (``ragcode.check.foreign``);
- a name taken from them is the one the instruction asks for: ``Unet`` for "a 1D U-Net" where
  the package also defines ``Unet1D`` is ``sibling-name`` (``ragcode.check.siblings``);
- it uses the repository at all: an answer that imports none of its modules, none of the
  packages it depends on (its own imports and its notebooks', its requirement files, ``pip install`` in
  its docs)
  and runs none of its scripts is ``no-repo-use``; one that imports none of the repository's
  own modules, runs none of its scripts and declares its own argparse flags (a home-made CLI,
  with or without ``torch``) is ``own-cli`` instead; one that imports only packages the
  repository depends on (``transformers`` and ``tensorflow`` for bert's TensorFlow scripts) is
  ``no-own-use``, a note that weighs nothing but tells selection the greedy answer's kind is no
  evidence (``ragcode.answer.select``). A missing
  package the repository depends on is not the answer's fault (the environment lacks it), so it
  is no finding.
"""

from __future__ import annotations

import ast
import difflib
import functools
import sys
from pathlib import Path

from ragcode.check import ERROR, WARNING, CheckContext, Finding, say
from ragcode.check.answer import read_answer
from ragcode.check.facts import module_file, module_symbols
from ragcode.check.facts_env import env_has_modules, in_repo, near_repo_module, repo_needs
from ragcode.check.foreign import foreign_findings
from ragcode.check.siblings import sibling_findings
from ragcode.check.unbound import defining_module, unbound_names

_RUNNERS = {"system", "popen", "run", "call", "check_call", "check_output", "Popen", "getoutput"}


def _runs_a_script(tree: ast.AST) -> bool:
    """``os.system('python x.py')``, ``subprocess.run([... 'x.sh'])`` and the like."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _RUNNERS:
                text = ast.unparse(node)
                if ".py" in text or ".sh" in text or "python" in text:
                    return True
    return False


def _declares_flags(tree: ast.AST) -> bool:
    """Two or more ``add_argument(...)`` calls: a home-made argparse CLI."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "add_argument"]
    return len(calls) >= 2


def _published(module: str, repo: Path) -> bool:
    """``module`` is the repository itself installed as a package: its top name is the
    repository's (``learning3d.models``), or the rest of its path is a module of the repository
    (``fightingcv_attention.attention.SEAttention`` ~ ``model/attention/SEAttention.py``)."""
    top, *rest = module.split(".")
    if _norm(top) == _norm(repo.name):
        return True
    if len(rest) < 2:
        return False
    tail = Path(*rest)
    return any((base / tail).with_suffix(".py").is_file() or (base / tail).is_dir() for base in _bases(repo))


@functools.lru_cache(maxsize=64)
def _bases(repo: Path) -> tuple[Path, ...]:
    """The repository and its top folders (listed once per repository, not once per import)."""
    return (repo, *sorted(p for p in repo.iterdir() if p.is_dir() and not p.name.startswith(".")))


def _norm(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def _defined_under(name: str, imported: list[Path], root: Path) -> str:
    """``defining_module`` over the imported files inside ``root`` (the task's folder, the
    repository, its ``src``)."""
    inside = [f for f in imported if f.resolve().is_relative_to(root.resolve())]
    return defining_module(name, [f.resolve() for f in inside], root.resolve()) if inside else ""


class PythonChecker:
    name = "python"

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        if answer_type != "python":
            return []
        answer = read_answer(code, answer_type)
        tree, exc = answer.tree, answer.syntax_error
        if tree is None:
            line = getattr(exc, "lineno", None)
            return [Finding(self.name, "syntax-error", say("syntax-error", line=line, msg=getattr(exc, "msg", str(exc))),
                            line=line or 0)]
        repo = Path(ctx.repo_dir).resolve()
        roots = ctx.import_roots
        found: list[Finding] = []
        imports = [(i.line, i.module, list(i.names), i.alias) for i in answer.imports]  # (line, module, names, alias)
        tops = sorted({m.split(".")[0] for _, m, _, _ in imports})
        own = {t for t in tops if in_repo(t, roots, repo)}
        own |= {m.split(".")[0] for _, m, _, _ in imports if _published(m, repo)}
        # a package the repository itself imports or tells users to install: a real dependency,
        # so a missing one is the environment's gap (infrastructure), not the answer's mistake
        needed = {t for t in tops if t not in own and repo_needs(t, repo)}
        have = env_has_modules(ctx.interpreter, tuple(t for t in tops if t not in own | needed))
        reported: set[str] = set()
        aliases: dict[str, str] = {}  # a name bound to a repository module -> that module
        for line, module, names, alias in imports:
            top = module.split(".")[0]
            if top not in own:
                if top not in needed and not have.get(top, True) and top not in reported:
                    reported.add(top)
                    near = near_repo_module(top, repo)
                    # without the repository's own interpreter this environment is not the answer's:
                    # a package it lacks may be installed where the answer runs, so only a near miss
                    # of the repository's own modules is said
                    if ctx.interpreter or near:
                        hint = f"; did you mean {near}?" if near else ""
                        found.append(Finding(self.name, "unresolved-import",
                                             say("unresolved-import", module=module, top=top, hint=hint),
                                             severity=ERROR if ctx.interpreter else WARNING, line=line,
                                             target=module, suggestion=near))
                continue
            if alias:
                aliases[alias] = module if alias != top else top
            for n in names:
                if module_file(f"{module}.{n}", roots) is not None:  # a submodule, not a name
                    aliases[n] = f"{module}.{n}"
            found.extend(self._names(module, [(line, n) for n in names if n != "*"], roots))
        for alias, module in aliases.items():
            used = [(n.lineno, n.attr) for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == alias]
            found.extend(self._names(module, used, roots))
        imported = [f for _, m, names, _ in imports if m.split(".")[0] in own
                    for f in (module_file(m, roots), *(module_file(f"{m}.{n}", roots) for n in names)) if f is not None]
        found.extend(self._unimported(code, roots, repo, [f for f in imported if f.is_file()]))
        found += sibling_findings(self.name, answer, ctx, roots) + foreign_findings(self.name, answer, ctx, roots, own)
        if not own and not _runs_a_script(tree):
            if _declares_flags(tree):
                found.append(Finding(self.name, "own-cli", say("own-cli"), severity=WARNING))
            elif not needed:
                found.append(Finding(self.name, "no-repo-use", say("no-repo-use"), severity=WARNING))
            else:
                found.append(Finding(self.name, "no-own-use", say("no-own-use"), severity=WARNING))
        return found

    def _unimported(self, code: str, roots: list[Path], repo: Path, imported: list[Path]) -> list[Finding]:
        """``unimported-module`` for each name the answer reads unbound that is a module: the
        standard library's, the repository's own (a file, not a bare folder) or a package it
        depends on; ``unimported-name`` for one that a single module beside the repository files
        it imports (``imported``) defines."""
        out = []
        for line, name in unbound_names(code):
            own = module_file(name, roots)
            if (name in sys.stdlib_module_names or (own is not None and own.is_file())
                    or repo_needs(name, repo)):
                out.append(Finding(self.name, "unimported-module", say("unimported-module", name=name),
                                   severity=ERROR, line=line, target=name, suggestion=f"import {name}"))
            elif source := next((m for root in roots if (m := _defined_under(name, imported, root))), ""):
                out.append(Finding(self.name, "unimported-name", say("unimported-name", name=name, module=source),
                                   severity=ERROR, line=line, target=name, suggestion=f"from {source} import {name}"))
        return out

    def _names(self, module: str, wanted: list[tuple[int, str]], roots: list[Path]) -> list[Finding]:
        """``missing-symbol`` for each name in ``wanted`` that repository module ``module`` lacks."""
        path = module_file(module, roots)
        symbols = module_symbols(path) if path is not None else None
        if not symbols or "*" in symbols:
            return []
        out, seen = [], set()
        for at, name in wanted:
            if name in symbols or name in seen:
                continue
            seen.add(name)
            near = difflib.get_close_matches(name, sorted(symbols), n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]}?" if near else ""
            out.append(Finding(self.name, "missing-symbol", say("missing-symbol", module=module, name=name, hint=hint),
                               severity=ERROR, line=at, target=module, suggestion=near[0] if near else ""))
        return out
