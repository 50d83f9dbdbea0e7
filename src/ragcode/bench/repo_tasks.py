"""Task records that name their repository instead of an ML-Bench ``github_id``.

One JSON object a line::

    {"id": "nanogpt-02", "repo": "karpathy/nanoGPT", "commit": "3adf61e...", "path": ".",
     "type": "bash", "instruction": "Sample from the model I trained into out-shakespeare-char.",
     "reference": "python sample.py --out_dir=out-shakespeare-char",
     "params": {"out_dir": "out-shakespeare-char"}}

- ``repo``: ``owner/name`` (found under ``--repos`` as ``owner+name`` or ``name``), a bare folder
  name under ``--repos``, or a folder path (absolute, or ``./``/``../`` relative to the task file);
- ``commit`` (optional): the pin; a checkout at another commit is refused;
- ``path`` (default ``.``): where in the repository the answer runs;
- ``type``: ``bash`` or ``python`` (ML-Bench's ``Bash Script`` / ``Python Code`` are taken too);
- ``reference`` (optional): a right answer (``Task.output``);
- ``params`` (optional): the parameters the reference sets, as the repository's own parser reads
  them; ``arguments`` (the values ML-Bench's text check looks for) are those of them whose value
  the reference spells out, unless the record gives ``arguments`` itself;
- ``oracle`` (optional): the passage the ``oracle`` setting gives the model.

Other fields are kept out of the ``Task`` and ignored. A malformed record raises
``TaskFormatError``; the loader (``ragcode.bench.dataset``) skips and counts it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragcode.bench import legacy
from ragcode.bench.records import check_id, parse_arguments
from ragcode.bench.repos import is_folder_path
from ragcode.errors import TaskFormatError
from ragcode.types import Task

TYPES = {"bash": "Bash Script", "python": "Python Code", "Bash Script": "Bash Script",
         "Python Code": "Python Code"}
COMMIT = re.compile(r"[0-9a-fA-F]{7,40}")
STRINGS = ("repo", "commit", "path", "type", "instruction", "reference", "oracle")


def is_repo_record(rec: Any) -> bool:
    """Whether ``rec`` names its repository (a ``repo`` field and no ML-Bench ``github_id``)."""
    return isinstance(rec, dict) and "repo" in rec and "github_id" not in rec


def derived_arguments(params: dict[str, Any], reference: str) -> dict[str, Any]:
    """The ``params`` whose value the reference spells out (as ML-Bench's text check reads it):
    the values an answer is expected to write. Without a reference, all of them."""
    if not reference:
        return dict(params)
    return {k: v for k, v in params.items() if legacy.arguments_ok(reference, {k: v})}


def _check_shape(rec: dict[str, Any]) -> None:
    missing = [f for f in ("id", "repo", "instruction", "type") if rec.get(f) in (None, "")]
    if missing:
        raise TaskFormatError(f"missing field(s): {', '.join(missing)}")
    check_id(rec["id"])
    for name in STRINGS:
        if rec.get(name) is not None and not isinstance(rec[name], str):
            raise TaskFormatError(f"{name} is a {type(rec[name]).__name__}, not a string")
    if rec["type"] not in TYPES:
        raise TaskFormatError(f"type {rec['type']!r} is neither 'bash' nor 'python'")
    if rec.get("commit") and not COMMIT.fullmatch(rec["commit"]):
        raise TaskFormatError(f"commit {rec['commit']!r} is not a git commit id (7-40 hex digits)")
    if rec.get("params") is not None and not isinstance(rec["params"], dict):
        raise TaskFormatError(f"params is a {type(rec['params']).__name__}, not an object")


def task_from_repo_record(rec: dict[str, Any], base: Path | None = None) -> Task:
    """The ``Task`` of one record; a folder-path ``repo`` is resolved against ``base`` (the task
    file's folder) into ``Task.repo_path``."""
    _check_shape(rec)
    repo, reference = rec["repo"].rstrip("/"), rec.get("reference") or ""
    params = dict(rec.get("params") or {})
    given = rec.get("arguments")
    arguments = parse_arguments(given) if given not in (None, "") else derived_arguments(params, reference)
    repo_path = ""
    if is_folder_path(repo):
        folder = Path(repo).expanduser()
        repo_path = str(folder if folder.is_absolute() else (base or Path.cwd()) / folder)
    return Task(id=rec["id"], github_id=0, instruction=rec["instruction"], path=rec.get("path") or ".",
                arguments=arguments, oracle=rec.get("oracle") or "", type=TYPES[rec["type"]],
                output=reference, repo=repo, commit=rec.get("commit") or "", params=params,
                repo_path=repo_path)
