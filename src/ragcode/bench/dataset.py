"""Load ML-Bench tasks from a local JSONL / parquet file or the Hugging Face hub, and tasks of a
local file whose records name their repository (``repo``, ``ragcode.bench.repo_tasks``).

Each record is validated; ``arguments`` (a Python-dict string) is parsed with
``ast.literal_eval``. A malformed record is reported with its id and skipped, never fatal.

Splits: the hub dataset has ``full`` (260 tasks) and ``quarter``. ``dev`` is ragcode's own
88-task development split: ragcode ships its task keys only (``mlbench_dev.json``, (github_id,
id) pairs, no task text) and selects those tasks from the hub's ``full`` split or from a local
copy of it: ``load_tasks("dev")``, ``load_tasks("super-dainiu/ml-bench", split="dev")`` or
``load_tasks("full.jsonl", split="dev")``. A local file is otherwise read whole.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ragcode.bench.records import as_int, check_id, parse_arguments
from ragcode.bench.repo_tasks import is_repo_record, task_from_repo_record
from ragcode.errors import RagcodeError, TaskFormatError
from ragcode.types import Task

__all__ = ["LoadedTasks", "as_int", "check_id", "load_tasks", "parse_arguments", "task_from_record",
           "tasks_from_records"]

log = logging.getLogger(__name__)

HF_DATASET_ID = "super-dainiu/ml-bench"
HUB_SPLITS = ("full", "quarter")
DEV_SPLIT = "dev"  # ragcode's development split: keys shipped in mlbench_dev.json
REQUIRED_FIELDS = ("github_id", "id", "instruction")
TEXT_FIELDS = ("instruction", "github", "path", "oracle", "type", "output", "prefix_code")


@dataclass
class LoadedTasks:
    tasks: list[Task]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (record id or line, reason)

    def __iter__(self):
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)


def task_from_record(rec: dict[str, Any], base: Path | None = None) -> Task:
    """The ``Task`` of an ML-Bench record, or of a record that names its repository
    (``ragcode.bench.repo_tasks``; a relative folder path resolved against ``base``)."""
    if not isinstance(rec, dict):
        raise TaskFormatError("record is not a JSON object")
    if is_repo_record(rec):
        return task_from_repo_record(rec, base)
    missing = [f for f in REQUIRED_FIELDS if rec.get(f) in (None, "")]
    if missing:
        hint = " (or a repo naming the repository)" if "github_id" in missing else ""
        raise TaskFormatError(f"missing field(s): {', '.join(missing)}{hint}")
    for name in TEXT_FIELDS:
        if rec.get(name) is not None and not isinstance(rec[name], str):
            raise TaskFormatError(f"{name} is a {type(rec[name]).__name__}, not a string")
    check_id(rec["id"])
    github_id = as_int(rec["github_id"], "github_id")
    task_type = rec.get("type") or ""
    if task_type and task_type not in ("Bash Script", "Python Code"):
        raise TaskFormatError(f"type {task_type!r} is neither 'Bash Script' nor 'Python Code'")
    repo_id = rec.get("repo_id")
    return Task(
        id=rec["id"],
        github_id=github_id,
        instruction=rec["instruction"],
        github=rec.get("github") or "",
        repo_id=as_int(repo_id, "repo_id") if repo_id not in (None, "") else None,
        path=rec.get("path") or "",
        arguments=parse_arguments(rec.get("arguments")),
        oracle=rec.get("oracle") or "",
        type=task_type,
        output=rec.get("output") or "",
        prefix_code=rec.get("prefix_code") or "",
    )


@dataclass(frozen=True)
class Unreadable:
    """A line of a task file that is no record at all (invalid JSON), with why."""

    reason: str


def tasks_from_records(records: Iterable[tuple[str, Any]], base: Path | None = None) -> LoadedTasks:
    out = LoadedTasks(tasks=[])
    for where, rec in records:
        if isinstance(rec, Unreadable):
            out.skipped.append((where, rec.reason))
            continue
        try:
            out.tasks.append(task_from_record(rec, base))
        except TaskFormatError as exc:
            rid = rec.get("id", where) if isinstance(rec, dict) else where
            out.skipped.append((str(rid), str(exc)))
            log.info("skipping malformed task %s: %s", rid, exc)  # callers report the count
    return out


def _jsonl_records(path: Path) -> Iterable[tuple[str, Any]]:
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield f"line {lineno}", json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                yield f"line {lineno}", Unreadable(f"invalid JSON: {exc}")


def _parquet_records(path: Path) -> Iterable[tuple[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise RagcodeError("reading parquet needs pyarrow: pip install 'ragcode[hf]'") from None
    for i, rec in enumerate(pq.read_table(path).to_pylist()):
        yield f"row {i}", rec


def _hf_records(dataset_id: str, split: str) -> Iterable[tuple[str, Any]]:
    try:
        import datasets
    except ImportError:
        raise RagcodeError(
            f"loading {dataset_id!r} from the Hugging Face hub needs 'datasets' (pip install "
            "'ragcode[hf]') and a network; offline, pass a local JSONL or parquet file instead"
        ) from None
    try:
        ds = datasets.load_dataset(dataset_id, split=split)
    except Exception as exc:  # noqa: BLE001 - the hub raises many kinds
        raise RagcodeError(
            f"cannot load {dataset_id!r} split {split!r} from the hub ({exc.__class__.__name__}: "
            f"{exc}); offline, pass a local JSONL or parquet file with the same fields"
        ) from None
    for i, rec in enumerate(ds):
        yield f"row {i}", rec


def dev_keys() -> list[str]:
    """The task keys (``"github_id:id"``, as ``Task.key``) of the dev split, in its order."""
    from importlib.resources import files

    data = json.loads(files("ragcode.bench").joinpath("mlbench_dev.json").read_text(encoding="utf-8"))
    return [f"{github_id}:{task_id}" for github_id, task_id in data["keys"]]


def select_dev(loaded: LoadedTasks, source: str | Path) -> LoadedTasks:
    """The dev split's tasks of ``loaded`` (a full split), in the dev split's order."""
    by_key = {t.key: t for t in loaded.tasks}
    keys = dev_keys()
    found = [by_key[k] for k in keys if k in by_key]
    if not found:
        raise TaskFormatError(f"{source} holds none of the {len(keys)} dev tasks; --split dev "
                              "selects them from the full split (the hub's, or a local copy of it)")
    if len(found) < len(keys):
        missing = [k for k in keys if k not in by_key]
        log.warning("%s: %d of the %d dev tasks are not in it (first: %s); is it the full split?",
                    source, len(missing), len(keys), missing[0])
    return LoadedTasks(tasks=found, skipped=loaded.skipped)


def load_tasks(source: str | Path, split: str = "full") -> LoadedTasks:
    """Tasks from a ``.jsonl``/``.json`` or ``.parquet`` file, a hub id like
    ``super-dainiu/ml-bench`` (``split``: full or quarter), or ``"dev"`` (the dev split from the
    hub). ``split="dev"`` selects the dev tasks from a hub id or a local copy of the full split."""
    path = Path(source)
    if not path.exists() and str(source) == DEV_SPLIT:
        if split not in ("full", DEV_SPLIT):
            raise TaskFormatError(f"--tasks dev is the dev split; it takes no --split {split}")
        source, split = HF_DATASET_ID, DEV_SPLIT
        path = Path(source)
    if split not in (*HUB_SPLITS, DEV_SPLIT):
        raise TaskFormatError(f"unknown split {split!r}; choose one of {', '.join((*HUB_SPLITS, DEV_SPLIT))}")
    if path.exists():
        if path.is_dir():
            raise TaskFormatError(f"{path} is a directory; pass a .jsonl or .parquet file")
        if not path.is_file():  # a FIFO would block, /dev/zero never end
            raise TaskFormatError(f"{path} is not a regular file; pass a .jsonl or .parquet file")
        if split not in ("full", DEV_SPLIT):
            raise TaskFormatError(f"--split {split} names a hub split; a local file is read whole "
                                  "(or --split dev selects the dev tasks from a copy of the full split)")
        if path.suffix == ".parquet":
            records = _parquet_records(path)
        else:
            records = _jsonl_records(path)
        loaded = tasks_from_records(records, path.resolve().parent)
    elif "/" in str(source) and not str(source).endswith((".jsonl", ".json", ".parquet")):
        loaded = tasks_from_records(_hf_records(str(source), "full" if split == DEV_SPLIT else split))
    else:
        raise TaskFormatError(f"task file not found: {source} (give a .jsonl/.parquet file, the hub "
                              f"id {HF_DATASET_ID}, or dev)")
    if split == DEV_SPLIT:
        loaded = select_dev(loaded, source)
    if loaded.skipped:
        where, why = loaded.skipped[0]
        if not loaded.tasks:  # nothing to run: a report of 0 tasks would hide the mistake
            raise TaskFormatError(f"{source}: none of its {len(loaded.skipped)} record(s) is a task "
                                  f"(first: {where}: {why}); see docs/mlbench.md for the fields")
        log.warning("%s: skipped %d malformed task record(s) (first: %s: %s)", source,
                    len(loaded.skipped), where, why)
    elif not loaded.tasks:
        raise TaskFormatError(f"{source} holds no task records; give one JSON object per line "
                              "(docs/mlbench.md)")
    return loaded
