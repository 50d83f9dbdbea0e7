"""Grounding the prompt in the repository: the real parameters of the scripts the task will run.

Retrieval finds passages that say how (a README command, a flag table written by hand); they can
be old, partial or about another script. Before the model writes its answer, ``ground_context``
reads the parameters that the scripts most likely to be run actually declare, from their own
parser, and puts them at the head of the context:

1. the scripts: those the instruction names (``train.py``), then those the context's command
   lines run (``python tools/train.py ...``, ``torchrun ... main.py``, ``python -m pkg.mod``), in
   the order the context gives them (best passage first), at most ``generation.ground_scripts``,
   each one that exists in the repository; how the repository launches each is read from the
   context's command lines and from its own Markdown docs (``repository_launches``): where they
   run it only through a launcher (``torchrun --nproc_per_node 8``, ``accelerate launch``,
   ``python -m torch.distributed.launch``), or run it both ways and the instruction asks for
   several GPUs, nodes or processes (``wants_several``), the table's heading says to run it so,
   and, for such an instruction, the scripts the docs launch that way come first;
2. each is started parse-only in the sandbox with no arguments (``ragcode.dryrun``: the same
   dry run the ``parse`` check uses, cached the same way); the parser's declared parameters
   (argparse and HfArgumentParser, click and typer, python-fire's function, absl flags) come back
   whatever it said of the empty command (a script with required flags refuses it);
3. they are written as a short table (name, type, choices, default, required, help), those
   sharing words with the instruction first when the table would be longer than
   ``generation.ground_chars``.

A script whose parser is not reached (no sandbox, a configurator reading ``sys.argv`` by hand,
an import that fails) adds nothing: a grounding that cannot tell says nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragcode.check import CheckContext
from ragcode.dryrun.result import Entry, ParseResult
from ragcode.errors import RepoPathError
from ragcode.fileio import inside_repo
from ragcode.shell import PYTHON, logical_lines, parse_command, split_commands, starts_like_command
from ragcode.types import Context

if TYPE_CHECKING:
    from ragcode.dryrun.sandbox import DryRunner

log = logging.getLogger(__name__)

_SCRIPT_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.py)\b")
_WORD = re.compile(r"[a-z]{3,}")
_SEVERAL = re.compile(
    r"\b(?:(?:[2-9]|\d{2,}|two|three|four|six|eight|sixteen|multiple|several|all)[\s-]+(?:\w+[\s-]+)?"
    r"(?:gpus?|nodes?|processes|devices)|multi[- ]?(?:gpu|node|process)|distributed|data[- ]parallel|"
    r"ddp|torchrun|accelerate launch|deepspeed)\b", re.I)
_PROCESS_COUNT = re.compile(r"--(?:nproc[_-]per[_-]node|num[_-]processes|multi[_-]gpu|num[_-]gpus|gpus|"
                            r"nnodes)\b|(?:^|\s)-np?\s")
_NUMBER = re.compile(r"\b\d+\b")
DOC_FILES = 40  # Markdown files read for the repository's launch lines
DOC_BYTES = 200_000


@dataclasses.dataclass(frozen=True)
class Target:
    """A script (``kind`` script, ``target`` a path from ``workdir``) or module to ground."""

    kind: str
    target: str
    workdir: str
    launcher: str = ""  # how the context's command lines launch it, when not plain python

    @property
    def shown(self) -> str:
        return f"python -m {self.target}" if self.kind == "module" else self.target


def launch_forms(text: str) -> dict[tuple[str, str], list[str]]:
    """``(kind, target)`` -> how the command lines of ``text`` launch it, each way once in the
    order met: ``""`` for plain ``python``, else the launcher with its options
    (``torchrun --nproc_per_node 8``, ``accelerate launch``); targets in the order of ``text``."""
    found: dict[tuple[str, str], list[str]] = {}
    for _, line in logical_lines(text):
        line = line.strip().strip("`").removeprefix("$ ").removeprefix("!")
        if not starts_like_command(line):
            continue
        for words in split_commands(line):
            call = parse_command(words)
            if call is None or "$" in call.target or not (call.kind == "module" or call.target.endswith(".py")):
                continue
            plain = not call.launcher or PYTHON.match(call.launcher)
            how = "" if plain else " ".join([call.launcher, *call.launcher_args])
            forms = found.setdefault((call.kind, call.target), [])
            if how not in forms:
                forms.append(how)
    return found


def wants_several(instruction: str) -> bool:
    """The instruction asks for several GPUs, nodes or processes, or names distributed running."""
    return bool(_SEVERAL.search(instruction))


def launcher_for(forms: list[str], instruction: str) -> str:
    """The launcher to name for a script the docs run in ``forms`` (``""``: plain python): none
    when the docs also run it plain and the task does not want several GPUs; else, when it does,
    one that sets a process count first (``accelerate launch --multi_gpu --num_processes 2``
    over ``accelerate launch --cpu``), then the one sharing the most words and numbers with the
    instruction, the first one met on a tie."""
    several = wants_several(instruction)
    launched = [f for f in forms if f]
    if not launched or ("" in forms and not several):
        return ""
    want = _stems(instruction) | set(_NUMBER.findall(instruction))

    def score(form: str) -> tuple[int, int]:
        words = _stems(form) | set(_NUMBER.findall(form))
        return int(several and bool(_PROCESS_COUNT.search(form))), len(words & want)
    return max(launched, key=score)  # max keeps the first of equals


def repository_launches(repo_dir: str | Path) -> dict[tuple[str, str], list[str]]:
    """How the repository's own documentation runs each script: ``("script", path from the
    repository's root)`` or ``("module", name)`` -> its ``launch_forms``. Read from the README and
    the Markdown files at most two folders down (``DOC_FILES`` of them, ``DOC_BYTES`` each); a
    script path is taken from the Markdown file's folder, else from the root, and kept when that
    file exists. Cached until one of the files changes."""
    root = Path(repo_dir).resolve()
    files: list[tuple[str, int]] = []
    for pattern in ("*.md", "*/*.md", "*/*/*.md"):
        for path in sorted(root.glob(pattern)):
            if len(files) >= DOC_FILES:
                break
            if path.is_file() and not any(p.startswith(".") for p in path.relative_to(root).parts):
                files.append((str(path.relative_to(root)), path.stat().st_mtime_ns))
    return _doc_launches(str(root), tuple(files))


@functools.lru_cache(maxsize=32)
def _doc_launches(root: str, files: tuple[tuple[str, int], ...]) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for name, _mtime in files:
        try:
            with open(Path(root) / name, encoding="utf-8", errors="replace") as fh:
                text = fh.read(DOC_BYTES)
        except OSError:
            continue
        folder = posixpath.dirname(name)
        for (kind, target), forms in launch_forms(text).items():
            key = (kind, target) if kind == "module" else _in_repo(root, folder, target)
            if key is None:
                continue
            known = found.setdefault(key, [])
            known.extend(f for f in forms if f not in known)
    return found


def _in_repo(root: str, folder: str, target: str) -> tuple[str, str] | None:
    """``("script", path from the root)`` of the file ``target`` names from ``folder``, else from
    the root; None when neither is a file inside the repository (``fileio.inside_repo``)."""
    for base in (folder, ""):
        rel = posixpath.normpath(posixpath.join(base, target))
        try:
            if inside_repo(root, rel).is_file():
                return ("script", rel)
        except RepoPathError:
            continue
    return None


def _repo_key(t: Target) -> tuple[str, str]:
    if t.kind == "module":
        return ("module", t.target)
    return ("script", posixpath.normpath(posixpath.join(t.workdir, t.target)))


def _resolve(kind: str, target: str, ctx: CheckContext) -> Target | None:
    """Where ``target`` runs from: the task's folder, else the repository's root; None when it
    is not a file (or module file) inside the repository."""
    repo = Path(ctx.repo_dir).resolve()
    rel = target.replace(".", "/") + ".py" if kind == "module" else target
    for base in (ctx.task_dir, repo):
        try:
            path = inside_repo(repo, str(Path(base).relative_to(repo) / rel))
        except (RepoPathError, ValueError):
            continue
        if path.is_file():
            return Target(kind, target, str(Path(base).relative_to(repo)) or ".")
    return None


def targets(instruction: str, context_text: str, ctx: CheckContext, limit: int) -> list[Target]:
    """The scripts to ground, each with the launcher to name (see the module doc)."""
    in_context = launch_forms(context_text)
    in_docs = repository_launches(ctx.repo_dir)
    found: list[Target] = []

    def add(pairs: list[tuple[str, str]]) -> None:
        for kind, target in pairs:
            t = _resolve(kind, target, ctx)
            if t is None or any(_repo_key(t) == _repo_key(o) for o in found):
                continue
            forms = list(in_context.get((kind, target), []))
            forms += [f for f in in_docs.get(_repo_key(t), []) if f not in forms]
            found.append(dataclasses.replace(t, launcher=launcher_for(forms, instruction)))

    add([("script", m) for m in _SCRIPT_NAME.findall(instruction)])
    named = len(found)
    add(list(in_context))
    if wants_several(instruction):  # the scripts the docs launch on several GPUs first
        found[named:] = sorted(found[named:], key=lambda t: not t.launcher)
    return found[:limit]


def _stems(text: str) -> set[str]:
    """First four letters of the words of three letters or more: ``--eval`` ~ "evaluate",
    ``--batch-size`` ~ "batch size"."""
    return {w[:4] for w in _WORD.findall(text.lower().replace("_", " ").replace("-", " "))}


def _line(param: dict[str, Any]) -> str:
    name = str(param.get("name", ""))
    kind = str(param.get("type") or "")
    if param.get("choices"):
        kind = "{" + str(param["choices"]) + "}"
    parts = [f"  {name}", kind] if kind else [f"  {name}"]
    if param.get("required"):
        parts.append("(required)")
    elif "default" in param:
        parts.append(f"(default: {param['default']})")
    help_ = str(param.get("help") or "").split("%(")[0].strip()
    return " ".join(parts) + (f" - {help_[:70]}" if help_ else "")


def render(result: ParseResult, shown: str, instruction: str, budget: int, launcher: str = "") -> str:
    """The table of ``result``'s declared parameters, cut to ``budget`` characters: parameters
    sharing words with the instruction first, then the rest, each kept in declaration order;
    ``launcher``: how the repository's docs launch it, said in the heading."""
    if not result.spec:
        return ""
    head = f"Parameters of {shown}, read from its own {result.parser or 'parser'} parser " \
           "(spell them exactly so):"
    if launcher:
        head += f"\n  Run it as the repository's docs do: {launcher} {shown} [parameters]"
    if result.parser == "configurator":  # it splits each word at "=": a value after a space is a file to run
        head += "\n  Give each as --name=value, after any config file."
    want = _stems(instruction)
    lines = [_line(p) for p in result.spec]
    score = [len(_stems(str(p.get("name", ""))) & want) for p in result.spec]
    order = sorted(range(len(lines)), key=lambda i: (-score[i], i))
    kept: list[int] = []
    size = len(head)
    for i in order:
        if size + len(lines[i]) + 1 > budget:
            continue
        kept.append(i)
        size += len(lines[i]) + 1
    if not kept:
        return ""
    left = len(lines) - len(kept)
    tail = [f"  ... and {left} more"] if left else []
    return "\n".join([head, *(lines[i] for i in sorted(kept)), *tail])


def parser_tables(instruction: str, context_text: str, ctx: CheckContext, runner: DryRunner,
                  scripts: int, budget: int) -> list[str]:
    """The parameter tables of the scripts the task most likely runs (see the module doc)."""
    tables: list[str] = []
    for t in targets(instruction, context_text, ctx, scripts):
        left = budget - sum(len(x) + 2 for x in tables)
        if left < 200:
            break
        result = runner.run(Entry(t.kind, t.target, (), t.workdir), ctx)
        table = render(result, t.shown, instruction, left, t.launcher)
        if table:
            tables.append(table)
    return tables


def ground_context(instruction: str, context: Context | None, ctx: CheckContext, config: Any,
                   runner: DryRunner | None = None) -> Context | None:
    """``context`` with the parameter tables of the scripts the task most likely runs at its
    head (unchanged when there are none or ``generation.ground`` is off)."""
    gen = config.generation
    if not gen.ground or context is None:
        return context
    if runner is None:
        from ragcode.dryrun.sandbox import DryRunner

        runner = DryRunner.from_config(config)
    tables = parser_tables(instruction, context.text, ctx, runner, gen.ground_scripts, gen.ground_chars)
    if not tables:
        return context
    log.info("grounded the prompt in %d script parser(s)", len(tables))
    text = "\n\n".join([*tables, context.text]) if context.text else "\n\n".join(tables)
    return dataclasses.replace(context, text=text)
