"""A repository file the answer names that is not there, and the one the task's words name.

``tools/train_net.py --config-file configs/tensormask_R_50_FPN_1x.yaml`` for "train Mask R-CNN
R50-FPN 1x on COCO": the config is chosen by its path, the path is invented (the folder
``configs/`` exists, the file does not), and the run stops before anything the user asked for.
``missing_files`` reads each argument of a bash answer's script calls that is a relative path with
a config file's suffix (``.yaml``, ``.yml``, ``.json``, ``.py``, ``.cfg``, ``.toml``) under a
folder of the repository, does not exist where the call runs, and is not a value the instruction
gives (a user's own file is theirs). Its suggestion is the file of that suffix under the same
top folder whose path says most of the instruction's words (each word or hyphenated name of the
instruction, letters and digits only, found in the path's letters and digits:
``COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_1x.yaml`` says mask, r-cnn, r50-fpn, 1x and coco),
then the fewest other words, when that one file says more of them than the answer's path and no
other file ties it. The ``refile`` fix step writes it in (``ragcode.answer.fixes``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path, PurePosixPath
from typing import Any

from ragcode.check import WARNING, CheckContext, Finding, say
from ragcode.check.words import stopwords

CONFIG_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".py", ".cfg", ".toml"})
MAX_FILES = 5000  # files of one suffix read under one folder


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


@functools.lru_cache(maxsize=64)
def _task_words(instruction: str) -> tuple[str, ...]:
    """The instruction's words and hyphenated names, letters and digits only, that can name a file:
    two characters or more, not a number alone, not a stopword."""
    out = []
    for token in re.findall(r"[A-Za-z0-9][A-Za-z0-9_.-]*", instruction):
        word = _squash(token)
        if len(word) >= 2 and not word.isdigit() and token.lower() not in stopwords():
            out.append(word)
    return tuple(dict.fromkeys(out))


def _said(path: str, words: tuple[str, ...]) -> tuple[int, int]:
    """(instruction words the path says, the path's own words it says beyond them)."""
    flat = _squash(path)
    hits = [w for w in words if w in flat]
    own = [w for w in re.split(r"[^a-z0-9]+", path.lower()) if w and not any(w in h for h in hits)]
    return len(hits), len(own)


@functools.lru_cache(maxsize=64)
def _files(folder: Path, suffix: str) -> tuple[Path, ...]:
    """The files of ``suffix`` under ``folder``, at most ``MAX_FILES`` (a data folder of a
    million files is not listed whole), in sorted order."""
    found = []
    for path in folder.rglob(f"*{suffix}"):
        if path.is_file():
            found.append(path)
            if len(found) >= MAX_FILES:
                break
    return tuple(sorted(found))


def best_file(value: str, cwd: Path, instruction: str) -> str:
    """The file under ``value``'s top folder the instruction names best (see the module doc),
    as a path from ``cwd``; "" when none says more than ``value`` or two tie."""
    words = _task_words(instruction)
    top = cwd / PurePosixPath(value).parts[0]
    mine = _said(value, words)[0]
    scored = sorted(((-hits, extra, str(p.relative_to(cwd))) for p in _files(top, PurePosixPath(value).suffix)
                     for hits, extra in [_said(str(p.relative_to(cwd)), words)]))
    if not scored or -scored[0][0] <= mine or len(scored) > 1 and scored[0][:2] == scored[1][:2]:
        return ""
    return scored[0][2]


def _candidates(args: list[str]) -> list[str]:
    values = [a.split("=", 1)[1] if a.startswith("-") and "=" in a else a for a in args]
    return [v for v in values if not v.startswith("-") and "$" not in v and "://" not in v]


def missing_files(calls: list[Any], ctx: CheckContext) -> list[Finding]:
    """``missing-file`` for each config-like path of the answer's script calls that is not there
    (see the module doc); ``calls``: the steps of ``ragcode.check.bash.walk`` that call a script."""
    repo = Path(ctx.repo_dir).resolve()
    found = []
    for step in calls:
        for value in _candidates(step.call.args):
            path = PurePosixPath(value)
            if (path.suffix not in CONFIG_SUFFIXES or len(path.parts) < 2 or path.is_absolute()
                    or ".." in path.parts or value in ctx.instruction):
                continue
            top = (step.cwd / path.parts[0]).resolve()
            if not top.is_dir() or (repo != top and repo not in top.parents) or (step.cwd / value).exists():
                continue
            best = best_file(value, step.cwd, ctx.instruction)
            hint = f"; the file the task's words name is {best}" if best else ""
            found.append(Finding("bash", "missing-file", say("missing-file", path=value, folder=path.parts[0],
                                                             hint=hint),
                                 severity=WARNING, line=step.first_line + 1, target=value, suggestion=best))
    return found
