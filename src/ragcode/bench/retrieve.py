"""``ragcode mlbench retrieve``: contexts for ML-Bench tasks, measured against their oracles.

For every task: open (or build, on first use) the index of its repository, build the context
from the instruction alone, and write ``{"github_id", "id", "context", "chunks"}`` (``"repo"`` in
place of ``"github_id"`` for a task that names its repository) as one JSONL line. The run also builds the paper-style BM25 context at the same budget and scores both with
the oracle measure (``bench/oracle_measure.py``), per repository and overall. Tasks already in the
output file are not retrieved again (their stored context is re-scored), so a killed run resumes.
The settings that shape a context are recorded beside the output (``OUT.config.json``); resuming
with different ones is refused (``RunConfigMismatchError``) rather than mixing contexts from two
configurations in one file. ``restart=True`` starts the file afresh. The run holds
``OUT.lock`` throughout, so a second retrieve into the same file is refused (``OutputBusyError``).
Lock, identity check and resume are ``ragcode.bench.runfolder``'s. Indexes are built and reused
under ``index.root`` (the CLI's ``--index-root`` is a spelling of ``--set index.root=...``).
"""

from __future__ import annotations

import json
import logging
import statistics
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ragcode.bench.dataset import load_tasks
from ragcode.bench.oracle_measure import OracleScore, RepoOracle, Summary, summarize
from ragcode.bench.repos import repo_dir_for, require_task_repo
from ragcode.bench.runfolder import check_or_record, finished, hold_file
from ragcode.config import Config
from ragcode.fileio import write_atomic, write_json_atomic
from ragcode.types import Task

log = logging.getLogger(__name__)


@dataclass
class TaskResult:
    github_id: int
    id: Any
    folder: str
    ragcode: OracleScore
    baseline: OracleScore
    seconds: float | None  # retrieval time; None when resumed from the output file
    context_chars: int


@dataclass
class RetrieveReport:
    out: str
    budget: int
    config_hash: str
    results: list[TaskResult] = field(default_factory=list)
    index_seconds: dict[str, float] = field(default_factory=dict)

    def by_repo(self) -> dict[str, tuple[Summary, Summary]]:
        groups: dict[str, list[TaskResult]] = defaultdict(list)
        for r in self.results:
            groups[r.folder].append(r)
        return {f: (summarize(x.ragcode for x in rs), summarize(x.baseline for x in rs))
                for f, rs in sorted(groups.items(), key=lambda kv: kv[1][0].github_id)}

    def overall(self) -> tuple[Summary, Summary]:
        return (summarize(r.ragcode for r in self.results),
                summarize(r.baseline for r in self.results))

    def p50_seconds(self) -> float | None:
        times = [r.seconds for r in self.results if r.seconds is not None]
        return statistics.median(times) if times else None

    def to_dict(self) -> dict[str, Any]:
        rag, base = self.overall()
        return {
            "out": self.out, "budget": self.budget, "config_hash": self.config_hash,
            "overall": {"ragcode": asdict(rag), "paper_bm25": asdict(base)},
            "per_repo": {f: {"ragcode": asdict(r), "paper_bm25": asdict(b)}
                         for f, (r, b) in self.by_repo().items()},
            "query_seconds_p50": self.p50_seconds(),
            "index_seconds": self.index_seconds,
            "tasks": [{"github_id": r.github_id, "id": r.id, "repo": r.folder,
                       "ragcode": asdict(r.ragcode) | {"found": r.ragcode.found},
                       "paper_bm25": asdict(r.baseline) | {"found": r.baseline.found},
                       "seconds": r.seconds, "context_chars": r.context_chars}
                      for r in self.results],
        }


def _done(out: Path) -> dict[str, dict[str, Any]]:
    """Records already written (key ``github_id:id`` or ``repo:id``, as ``Task.key``); a torn
    last line is dropped."""
    return {f"{rec.get('repo') or rec['github_id']}:{rec['id']}": rec for rec in finished(out)
            if ("github_id" in rec or rec.get("repo")) and "id" in rec and isinstance(rec.get("context"), str)}


def _rewrite_valid(out: Path, records: Iterable[dict[str, Any]]) -> None:
    write_atomic(out, "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records))


CONTEXT_SECTIONS = ("chunking", "embedder", "retrieval", "rerank", "context")


def config_path(out: Path) -> Path:
    return out.with_name(out.stem + ".config.json")


def _check_or_write_config(out: Path, config: Config, resuming: bool) -> None:
    """Refuse to add contexts made with other settings to ``out``; record the settings."""
    settings = {k: v for k, v in config.to_dict().items() if k in CONTEXT_SECTIONS}
    ident = {"config_hash": config.section_hash(*CONTEXT_SECTIONS), "config": settings}
    if resuming and not config_path(out).exists():
        log.warning("%s has no record of the settings its contexts were made with; assuming "
                    "the current ones", out)

    def refuse(old: dict[str, Any], shown: str) -> str:
        return (f"{out} holds contexts made with other settings ({shown}); rerun with the "
                "original settings to resume, pass another --out, or --restart to start it afresh")

    check_or_record(config_path(out), ident, compare=resuming, refuse=refuse)


def open_repo_index(repo_path: Path, folder: str, index_root: Path, config: Config) -> Any:
    """The repository's index: built on first use, updated (cheaply) when files changed."""
    from ragcode.index.build import index_repo

    return index_repo(repo_path, config, name=folder, out=index_root, progress=False)


def run_retrieve(
    tasks_file: str | Path,
    repos_dir: str | Path,
    out: str | Path,
    config: Config,
    on_task: Callable[[TaskResult], None] | None = None,
    open_index: Callable[[Path, str, Path, Config], Any] = open_repo_index,
    restart: bool = False,
    split: str = "full",
) -> RetrieveReport:
    """Contexts for the tasks of ``tasks_file`` (a task source and ``split`` as
    ``ragcode.bench.dataset.load_tasks`` takes them) into ``out``, indexes under ``index.root``."""
    with hold_file(out) as out:
        return _retrieve_locked(tasks_file, Path(repos_dir), out, config, on_task, open_index,
                                restart, split)


def _retrieve_locked(tasks_file: str | Path, repos_dir: Path, out: Path, config: Config,
                     on_task: Callable[[TaskResult], None] | None,
                     open_index: Callable[[Path, str, Path, Config], Any],
                     restart: bool, split: str) -> RetrieveReport:
    from ragcode.bench.paper_bm25 import PaperBM25
    from ragcode.chunking.walk import walk_repo
    from ragcode.retrieval.search import retrieve_context

    tasks = load_tasks(tasks_file, split=split).tasks
    index_root = Path(config.index.root)
    budget = config.context.budget
    if restart:
        out.unlink(missing_ok=True)
    done = _done(out)
    _check_or_write_config(out, config, resuming=bool(done))
    keys = {t.key for t in tasks}
    if done and any(k not in keys for k in done):
        log.info("%s holds tasks not in %s; they are kept", out, tasks_file)
    _rewrite_valid(out, done.values()) if done else None
    report = RetrieveReport(out=str(out), budget=budget, config_hash=config.hash())

    by_repo: dict[tuple[int, str, str], list[Task]] = defaultdict(list)
    for t in tasks:
        by_repo[(t.github_id, t.repo, t.repo_path)].append(t)
    with out.open("a", encoding="utf-8") as fh:
        for group in sorted(by_repo):
            first = by_repo[group][0]
            repo_path = require_task_repo(first, repos_dir)
            folder = repo_dir_for(first, repos_dir)[1]
            oracle = RepoOracle(f.text for f in walk_repo(repo_path, config.chunking.walk).files)
            baseline = PaperBM25.from_repo(repo_path)
            index = None
            for task in by_repo[group]:
                rec = done.get(task.key)
                seconds = None
                if rec is None:
                    if index is None:
                        t0 = time.perf_counter()
                        index = open_index(repo_path, folder, index_root, config)
                        report.index_seconds[folder] = round(time.perf_counter() - t0, 2)
                    t0 = time.perf_counter()
                    ctx = retrieve_context(index, task.instruction, config)
                    seconds = time.perf_counter() - t0
                    where = {"repo": task.repo} if task.repo else {"github_id": task.github_id}
                    rec = {**where, "id": task.id, "context": ctx.text, "chunks": list(ctx.chunk_ids)}
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    fh.flush()
                base_ctx = baseline.context(task.instruction, budget)
                result = TaskResult(
                    github_id=task.github_id, id=task.id, folder=folder,
                    ragcode=oracle.score(task.oracle, rec["context"]),
                    baseline=oracle.score(task.oracle, base_ctx),
                    seconds=seconds, context_chars=len(rec["context"]))
                report.results.append(result)
                if on_task is not None:
                    on_task(result)
            if index is not None and hasattr(index, "close"):
                index.close()
    write_json_atomic(report_path(out), report.to_dict())
    return report


def report_path(out: Path) -> Path:
    return out.with_name(out.stem + ".report.json")
