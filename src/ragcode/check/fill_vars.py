"""Setting a shell variable an answer uses and never sets, to the value the instruction names.

Repositories document their commands with variables the reader sets first (bert's README:
``export BERT_BASE_DIR=/path/to/bert/uncased_L-12_H-768_A-12``, then
``--vocab_file=$BERT_BASE_DIR/vocab.txt``). A small model copies the command and leaves the
variable unset, so the model directory the user named (``./model/wwm_cased_L-24_H-1024_A-16``)
never reaches it. ``fill_vars`` finds each ``$NAME`` the answer reads but never assigns, the
values the repository's own documents (its Markdown files and shell scripts near the root or the
task's folder) export for it, and the value of the instruction the coverage check reports
missing whose last path component has the same shape as a documented one (digits aside, alike by
``difflib``'s ratio of at least 0.6: ``wwm_cased_L-24_H-1024_A-16`` ~ ``uncased_L-12_H-768_A-12``),
and puts ``export NAME=value`` before the answer. A variable with no such value, or two values
that fit it equally, is left alone. Only the instruction and the repository are read.
"""

from __future__ import annotations

import difflib
import functools
import re
import shlex
from pathlib import Path

from ragcode.check import CheckContext, Finding
from ragcode.check.facts import read_text
from ragcode.check.fill import missing_values

_USE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_SET = re.compile(r"(?:^|[\s;&|(])(?:export\s+|local\s+|declare\s+)?([A-Za-z_][A-Za-z0-9_]*)=", re.MULTILINE)
_LOOP = re.compile(r"\b(?:for|read)\s+([A-Za-z_][A-Za-z0-9_]*)")
_EXPORT = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(\S+)\s*$", re.MULTILINE)
_SHELL_OWN = frozenset({"HOME", "PATH", "PWD", "USER", "SHELL", "TMPDIR", "CUDA_VISIBLE_DEVICES", "PYTHONPATH",
                        "RANDOM", "OLDPWD", "HOSTNAME", "LANG", "SECONDS"})
_SIMILAR = 0.6


def unset_vars(code: str) -> list[str]:
    """The variables ``code`` reads (``$NAME``, ``${NAME}``) and never sets, in order."""
    set_here = set(_SET.findall(code)) | set(_LOOP.findall(code))
    out: list[str] = []
    for name in _USE.findall(code):
        if name not in set_here and name not in _SHELL_OWN and not name.isdigit() and name not in out:
            out.append(name)
    return out


@functools.lru_cache(maxsize=64)
def documented(repo: Path, task_dir: Path) -> dict[str, tuple[str, ...]]:
    """``NAME -> values`` the repository's documents assign (``export NAME=value`` lines of the
    Markdown files and shell scripts in its root and the task's folder, and of the Markdown files
    one level below them)."""
    files: list[Path] = []
    for folder in dict.fromkeys((repo, task_dir)):
        for pattern in ("*.md", "*.sh", "*/*.md"):
            files.extend(sorted(folder.glob(pattern))[:50])
    out: dict[str, list[str]] = {}
    for path in dict.fromkeys(files):
        for name, value in _EXPORT.findall(read_text(path) or ""):
            value = value.strip("'\"")
            if "$" not in value and value not in out.setdefault(name, []):
                out[name].append(value)
    return {k: tuple(v) for k, v in out.items()}


def _shape(value: str) -> str:
    return re.sub(r"\d+", "0", value.rstrip("/").rsplit("/", 1)[-1].lower())


def _likeness(value: str, doc_values: tuple[str, ...]) -> float:
    return max((difflib.SequenceMatcher(None, _shape(value), _shape(d)).ratio() for d in doc_values), default=0.0)


def fill_vars(code: str, findings: list[Finding], ctx: CheckContext) -> tuple[str, list[tuple[str, str]]]:
    """``code`` with ``export NAME=value`` put first for each unset variable a missing value of the
    instruction fits (see the module doc), and the ``(value, NAME)`` pairs used."""
    names = unset_vars(code)
    missing = missing_values(findings)
    if not names or not missing:
        return code, []
    docs = documented(Path(ctx.repo_dir).resolve(), ctx.task_dir)
    done: list[tuple[str, str]] = []
    for name in names:
        doc_values = docs.get(name)
        if not doc_values:
            continue
        fits = sorted(((_likeness(v, doc_values), v) for v in missing if v not in {d for d, _ in done}), reverse=True)
        if not fits or fits[0][0] < _SIMILAR or len(fits) > 1 and fits[1][0] == fits[0][0]:
            continue
        done.append((fits[0][1], name))
    if not done:
        return code, []
    head = "".join(f"export {name}={shlex.quote(value)}\n" for value, name in done)
    return head + code, done
