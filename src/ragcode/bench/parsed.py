"""The ``parsed`` scoring policy: an answer passes when it runs the reference's entry point and the
repository's own parser gives every parameter the reference sets the same value.

Both the reference (``Task.output``) and the answer go through the parse-only dry run
(``ragcode.dryrun``), each read as generation reads answers (``parse_answer``: fences dropped, bash
or Python). Checks: ``type`` (the answer is of the reference's kind), ``entry`` (the same script,
module, installed command or repository callables as the reference, a callable named as imported
from its module: ``load_model`` after ``from whisper import load_model`` is ``whisper.load_model``,
and a callable a package re-exports is where the dry run found it defined: ``vit_pytorch.ViT`` is
``vit_pytorch.vit.ViT``;
``python -m whisper`` and the installed ``whisper`` are one entry point, ``console_aliases``; a
Python answer may call more of the repository than the reference does, as a command may run more
scripts), ``values`` (each parameter the reference sets, a method's arguments on what a repository
class made included (``tok.train(text, 4096)``: ``RegexTokenizer.train.vocab_size``), in the answer's parse, holds the reference's value:
same text, or the same number; or a value the instruction names where the reference's is one it
does not: the task's words win over a reference that disagrees with them; or a relative path that
names the same file from the answer's folder: ``../configs/x.yaml`` after ``cd demo``, and
``./data.json`` for ``data.json``). Spellings
the parser maps to one value (``--lr 1e-3`` and ``--lr 0.001``, flag order, ``--x=1`` and ``--x
1``) pass alike. When the reference's own parse is not accepted (no parser reached), the policy
cannot judge and falls back to the two text checks, saying so in ``detail``.
"""

from __future__ import annotations

import ast
import functools
import math
import os
from pathlib import Path
from typing import Any

from ragcode.bench import legacy
from ragcode.bench.repos import repo_dir_for
from ragcode.types import Task, Verdict


def qualified_names(result: Any) -> dict[str, str]:
    """A Python answer's callables as written -> where the dry run found them defined, else as
    imported from their module (``load_model`` after ``from whisper import load_model`` and
    ``whisper.load_model`` are one callable; so are ``ViT`` from ``vit_pytorch`` and from
    ``vit_pytorch.vit``, where the package's ``__init__`` imports it from). A callable of a
    repository file is named by that file (``src/encoder.py:get_encoder``), so ``encoder`` imported
    from ``src/`` and ``src.encoder`` imported from the root are one module."""
    defined = {str(v.get("name", "")): str(v.get("where") or v["defined"]) for v in result.calls if v.get("defined")}
    return {str(c.get("name", "")): defined.get(str(c.get("name", "")))
            or ".".join([str(c.get("module", "")), *map(str, c.get("attrs", []))])
            for c in result.entry.calls if c.get("module")}


@functools.lru_cache(maxsize=64)
def console_aliases(repo: Path) -> dict[tuple[str, ...], tuple[str, ...]]:
    """``("module", pkg)`` -> ``("console", "pkg.mod:function")`` for each package whose
    ``__main__.py`` calls, at module level, the function one of the repository's installed commands
    runs (whisper's ``from .transcribe import cli; cli()``): ``python -m whisper`` and ``whisper``
    reach the same function. Read once per repository, as ``console_targets`` is."""
    from ragcode.check.facts import console_targets, read_text

    out: dict[tuple[str, ...], tuple[str, ...]] = {}
    for target in console_targets(repo).values():
        module, _, function = target.partition(":")
        package = module.split(".")[0]
        main = next((p for p in (repo / package / "__main__.py", repo / "src" / package / "__main__.py")
                     if p.is_file()), None)
        try:
            tree = ast.parse(read_text(main) or "") if main is not None else None
        except SyntaxError:
            continue
        if tree is not None and _main_calls(tree, package, module, function):
            out[("module", package)] = ("console", target)
    return out


def _main_calls(tree: ast.Module, package: str, module: str, function: str) -> bool:
    """A ``__main__`` module that imports ``function`` from ``module`` and calls it at top level."""
    local = ""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            source = f"{package}.{node.module}" if node.level == 1 else node.module
            local = next((a.asname or a.name for a in node.names if a.name == function and source == module), local)
    return bool(local) and any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                               and isinstance(n.value.func, ast.Name) and n.value.func.id == local
                               for n in ast.walk(tree))


def _entry_key(result: Any) -> tuple[str, ...]:
    entry = result.entry
    if entry.kind == "calls":
        qualified = qualified_names(result)
        return ("calls", *sorted({qualified.get(str(c.get("name", "")), str(c.get("name", ""))) for c in entry.calls
                                  if not c.get("instance")}))  # a method's call is compared by its values
    if entry.kind in ("module", "console"):
        return (entry.kind, entry.target)
    return ("script", os.path.normpath(os.path.join(entry.workdir, entry.target)))


def same_value(want: Any, got: Any) -> bool:
    if want == got:
        return True
    if isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(want) == len(got) and all(same_value(a, b) for a, b in zip(want, got))
    if isinstance(want, str) and isinstance(got, str) and _one_path(want, got):
        return True
    try:
        a, b = float(str(want)), float(str(got))
    except ValueError:
        return str(want).strip().lower() == str(got).strip().lower()
    return math.isclose(a, b, rel_tol=1e-9) if math.isfinite(a) and math.isfinite(b) else False


def _one_path(want: str, got: str) -> bool:
    """Two spellings of one relative path from the same folder: ``./data.json`` and ``data.json``,
    ``out/`` and ``out`` (a URL or an empty value is no path)."""
    if not want.strip() or not got.strip() or "://" in want + got or "/" not in want + got:
        return False
    return os.path.normpath(want.strip()) == os.path.normpath(got.strip())


def same_place(want: Any, want_dir: str, got: Any, got_dir: str) -> bool:
    """Two relative paths that name one file from their commands' folders (``configs/x.yaml`` run
    from the root, ``../configs/x.yaml`` after ``cd demo``); in a list, item by item."""
    if isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(want) == len(got) and all(same_value(a, b) or same_place(a, want_dir, b, got_dir)
                                             for a, b in zip(want, got))
    if not isinstance(want, str) or not isinstance(got, str) or want_dir == got_dir:
        return False
    if "/" not in want + got or "://" in want + got or want.startswith(("/", "~")) or got.startswith(("/", "~")):
        return False
    return os.path.normpath(os.path.join(want_dir, want)) == os.path.normpath(os.path.join(got_dir, got))


def all_params(result: Any) -> dict[str, Any]:
    """Every parsed value by parameter name; a Python answer's ``callable.parameter`` keyed by the
    callable's qualified name (``qualified_names``)."""
    if result.entry.kind != "calls":
        return dict(result.params)
    written = sorted(qualified_names(result).items(), key=lambda kv: -len(kv[0]))
    return {next((q + k[len(w):] for w, q in written if k.startswith(w + ".")), k): v
            for k, v in result.params.items()}


def set_params(result: Any) -> dict[str, Any]:
    """The parameters a parse says the command sets: changed from their defaults, or a call's
    arguments."""
    if result.entry.kind == "calls":
        return dict(result.params)
    return {k: result.params[k] for k in result.explicit if k in result.params}


def compared_params(result: Any) -> dict[str, Any]:
    """``set_params`` with a Python answer's callables by their qualified names, as compared."""
    return all_params(result) if result.entry.kind == "calls" else set_params(result)


def _instruction_says(instruction: str, mine: Any, theirs: Any) -> bool:
    """The instruction names the answer's value and not the reference's (a reference that
    disagrees with its own task: ``--gpu 1`` for "GPU #3")."""
    if not instruction:
        return False
    from ragcode.check.instruction import instruction_values
    from ragcode.dryrun.values import lands

    values = instruction_values(instruction)
    return any(lands(v, {"a": mine}) for v in values) and not any(lands(v, {"a": theirs}) for v in values)


def _covers(got: tuple[str, ...], want: tuple[str, ...]) -> bool:
    """The answer's entry key ``got`` runs the reference's ``want``: the same script or module, or
    for Python every repository callable the reference calls (more may be called, as a command
    may run more scripts than the reference)."""
    return got == want or got[:1] == want[:1] == ("calls",) and set(want[1:]) <= set(got[1:])


def compare(reference: list[Any], answer: list[Any], instruction: str = "",
            aliases: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[dict[str, bool], str]:
    """(checks, detail) of an answer's parse results against the reference's; with
    ``instruction``, a value the instruction names in place of the reference's counts as right;
    ``aliases``: entry keys that start the same function (``console_aliases``)."""
    def entry_of(result: Any) -> tuple[str, ...]:
        key = _entry_key(result)
        return (aliases or {}).get(key, key)

    ref_keys = {entry_of(r): r for r in reference}
    got = {entry_of(r): r for r in answer if r.status == "accepted"}
    covering = {key: next((r for k, r in got.items() if _covers(k, key)), None) for key in ref_keys}
    missing_entry = [k for k, mine in covering.items() if mine is None]
    wrong: list[str] = []
    for key, ref in ref_keys.items():
        mine = covering[key]
        if mine is None:
            continue
        params = all_params(mine)
        for name, value in compared_params(ref).items():
            if name in params and _instruction_says(instruction, params[name], value):
                continue
            if name in params and same_place(value, ref.entry.workdir, params[name], mine.entry.workdir):
                continue
            if name not in params or not same_value(value, params[name]):
                wrong.append(f"{name}={value!r} (answer: {params.get(name, '<unset>')!r})")
    detail = "; ".join([*(f"entry point {'/'.join(k[1:])} not run (or refused)" for k in missing_entry), *wrong])
    return {"entry": not missing_entry, "values": not missing_entry and not wrong}, detail


class ParsedScorer:
    """Scoring policy ``parsed`` (see the module doc)."""

    name = "parsed"
    executes = False

    def __init__(self) -> None:
        self._runner: Any = None

    def _runner_for(self, config: Any) -> Any:
        if self._runner is None:
            from ragcode.dryrun.sandbox import DryRunner

            self._runner = DryRunner(config.execution, cache_dir=f"{config.index.cache_dir}/dryrun")
        return self._runner

    def score_sample(self, task: Task, output: str, index: int, ctx: Any) -> Verdict:
        from ragcode.check import CheckContext
        from ragcode.dryrun import dry_run

        repo_dir, folder = repo_dir_for(task, ctx.repos_dir)
        type_ok = legacy.type_ok(output, task.type)
        if not Path(repo_dir).is_dir() or not task.output:
            why = f"repository {folder!r} not found under {ctx.repos_dir}" if task.output else "no reference"
            return Verdict(task.key, index, self.name, False, {"type": type_ok}, infra_error=why)
        interp = ctx.config.execution.envs.get(folder) or ctx.config.execution.python
        check_ctx = CheckContext(Path(repo_dir), task.path or ".", task.instruction, interp)
        runner = self._runner_for(ctx.config)
        ref_code, ref_kind = _code_and_kind(task.output)
        reference = dry_run(ref_code, ref_kind, check_ctx, runner)
        if not reference or any(r.status != "accepted" for r in reference):
            checks = {"arguments": legacy.arguments_ok(output, task.arguments), "type": type_ok}
            return Verdict(task.key, index, self.name, all(checks.values()), checks,
                           detail="the reference's parse was not accepted: text checks only")
        code, kind = _code_and_kind(output)
        answer = dry_run(code, kind, check_ctx, runner)
        checks, detail = compare(reference, answer, task.instruction, console_aliases(Path(repo_dir)))
        checks = {"type": kind == ref_kind, **checks}
        return Verdict(task.key, index, self.name, all(checks.values()), checks, detail=detail)


def _code_and_kind(text: str) -> tuple[str, str]:
    """An answer's code and kind as generation reads them (``python -m whisper x.mp3`` is a shell
    command although it names no ``.py``: ML-Bench's text rule would run it as Python)."""
    from ragcode.generation.parse import parse_answer

    parsed = parse_answer(text)
    return parsed.code, parsed.answer_type
