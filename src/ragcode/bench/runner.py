"""``ragcode mlbench run``: generate answers for ML-Bench tasks into a resumable run directory.

``RUN/`` holds:
- ``run.json``: the resolved config (and its hash), setting, backend, model, n, and the
  provenance (ragcode version, git commit, environment: ``ragcode.provenance``);
- ``samples.jsonl``: one line per finished task (candidates with their metadata, the context's
  size and chunk ids), appended atomically (write + flush + fsync);
- ``outputs.jsonl``: the same answers in ML-Bench's own format ``{"id", "github_id", "output"}``
  (``{"id", "repo", "output"}`` for a task that names its repository), rewritten from
  ``samples.jsonl`` on every start so the two never disagree.

The repositories of tasks that name theirs are checked before anything is written
(``repos.require_task_repos``): a missing or mis-pinned checkout stops the run at once.

A restart with the same config does only the tasks missing from ``samples.jsonl`` (a torn last
line from a kill is cut off first); a different config is refused with ``RunConfigMismatchError``.
The run holds ``RUN/.ragcode.lock`` throughout: a second run on the same folder is refused
(``OutputBusyError``) instead of generating every task again beside the first. Lock, identity
check and resume are ``ragcode.bench.runfolder``'s.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcode.bench.jsonl import append_line
from ragcode.bench.runfolder import check_or_record, finished, hold_folder
from ragcode.bench.settings import ContextBuilder
from ragcode.config import Config
from ragcode.fileio import write_atomic
from ragcode.scale.jobs import generate_tasks
from ragcode.types import Candidate, Context, Task

log = logging.getLogger(__name__)

GenerateFn = Callable[[Task, "Context | None"], list[Candidate]]


@dataclass
class RunSummary:
    out: str
    total: int
    done_before: int
    generated: int = 0
    keys: list[str] = field(default_factory=list)
    lost: int = 0  # tasks whose worker died on every try (in failures.jsonl; a resume does them)


def _run_identity(config: Config) -> dict[str, Any]:
    """What ``run.json`` records: the settings (only ``config_hash`` is compared on a resume) and
    the provenance (version, git commit, environment) of the process that started the run."""
    from ragcode.provenance import provenance

    gen = config.generation
    return {"config_hash": config.hash(), "setting": config.bench.setting, "llm": gen.llm.backend,
            "model": gen.llm.model, "n": gen.n, **provenance()}


def _check_or_write_run_json(out: Path, config: Config) -> None:
    ident = dict(_run_identity(config), config=config.to_dict(),
                 created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def refuse(old: dict[str, Any], shown: str) -> str:
        return (f"{out} was started with config {old.get('config_hash')} and this run resolves to "
                f"{ident['config_hash']} ({shown}); rerun with the original settings to resume, "
                "or pass a new --out directory")

    check_or_record(out / "run.json", ident, compare=True, refuse=refuse)


def default_generate_fn(config: Config, llm: Any = None, repos_dir: str | Path | None = None,
                        rounds_dir: Path | None = None, index_name: Any = None) -> GenerateFn:
    """Answers through ``generate_from_config``; with ``generation.check`` each task's answers
    are checked in its repository folder (``repos_dir``) and its finished sampling / repair
    steps journalled under ``rounds_dir`` so a killed run resumes mid-task. ``bench.setting:
    agent`` runs episodes instead (``ragcode.agent.bench``), over the index ``index_name(folder)``
    names (default: the repository folder's name)."""
    from ragcode.answering import generate_from_config
    from ragcode.generation.llm import load_llm

    model = llm or load_llm(config)
    if config.bench.setting == "agent" and repos_dir is not None and rounds_dir is not None:
        from ragcode.agent.bench import agent_generate_fn

        return agent_generate_fn(config, model, repos_dir, rounds_dir.parent,  # the run folder
                                 index_name=index_name)

    def generate(task: Task, context: Context | None) -> list[Candidate]:
        check_ctx, journal = None, None
        if (config.generation.check or config.generation.ground) and repos_dir is not None:
            from ragcode.bench.repos import repo_dir_for
            from ragcode.check import CheckContext

            repo_dir, folder = repo_dir_for(task, Path(repos_dir))
            check_ctx = CheckContext.for_repo(repo_dir, task.path or ".", task.instruction, config, folder)
            if rounds_dir is not None and config.generation.check:
                journal = rounds_dir / (hashlib.sha256(task.key.encode()).hexdigest()[:16] + ".jsonl")
        return generate_from_config(task.instruction, context, model, config, check_ctx, journal)

    return generate


def _sample_record(task: Task, setting: str, context: Context | None, cands: list[Candidate],
                   seconds: float) -> dict[str, Any]:
    ctx_text = context.text if context is not None else ""
    where = {"repo": task.repo} if task.repo else {"github_id": task.github_id}
    return {
        "id": task.id, **where, "key": task.key, "setting": setting,
        "output": [c.code for c in cands],
        "candidates": [{"text": c.text, "code": c.code, "answer_type": c.answer_type,
                        "sample_index": c.sample_index, "metadata": c.metadata} for c in cands],
        "context": {"chars": len(ctx_text), "chunk_ids": list(context.chunk_ids) if context else [],
                    "sha256": hashlib.sha256(ctx_text.encode()).hexdigest()},
        "seconds": round(seconds, 3),
    }


def _outputs_line(rec: dict[str, Any]) -> dict[str, Any]:
    where = {"repo": rec["repo"]} if rec.get("repo") else {"github_id": rec["github_id"]}
    return {"id": rec["id"], **where, "output": rec["output"]}


def run_bench(
    tasks: list[Task],
    repos_dir: str | Path,
    out: str | Path,
    config: Config,
    limit: int | None = None,
    generate_fn: GenerateFn | None = None,
    on_task: Callable[[str], None] | None = None,
    on_start: Callable[[RunSummary], None] | None = None,
) -> RunSummary:
    """Generate ``config.generation.n`` answers for each task not yet in ``out``, on
    ``scale.workers`` workers or Ray (``ragcode.scale``); this process alone writes ``out``."""
    from ragcode.bench.repos import require_task_repos

    todo = _selected(tasks, limit)
    require_task_repos(todo, repos_dir, "mlbench run")
    with hold_folder(out) as out:
        return _run_locked(todo, repos_dir, out, config, generate_fn, on_task, on_start)


def _selected(tasks: list[Task], limit: int | None) -> list[Task]:
    """The tasks to do: each key once (the first), the first ``limit`` of them."""
    todo: list[Task] = []
    seen: set[str] = set()
    for t in tasks:
        if t.key not in seen:
            seen.add(t.key)
            todo.append(t)
    return todo if limit is None else todo[:limit]


def _run_locked(todo: list[Task], repos_dir: str | Path, out: Path, config: Config,
                generate_fn: GenerateFn | None,
                on_task: Callable[[str], None] | None,
                on_start: Callable[[RunSummary], None] | None = None) -> RunSummary:
    _check_or_write_run_json(out, config)
    samples_path, outputs_path = out / "samples.jsonl", out / "outputs.jsonl"
    records = finished(samples_path)
    done = {r.get("key") for r in records}
    write_atomic(outputs_path, "".join(json.dumps(_outputs_line(r), ensure_ascii=False) + "\n"
                                       for r in records if "output" in r))
    summary = RunSummary(out=str(out), total=len(todo), done_before=sum(1 for t in todo if t.key in done))
    pending = [t for t in todo if t.key not in done]
    if not pending:
        return summary
    if on_start is not None:
        on_start(summary)
    builder = ContextBuilder(config.bench.setting, repos_dir, config)

    def write(task: Task, context: Context | None, cands: list[Candidate], seconds: float) -> None:
        rec = _sample_record(task, config.bench.setting, context, cands, seconds)
        append_line(samples_path, rec)
        append_line(outputs_path, _outputs_line(rec))
        summary.generated += 1
        summary.keys.append(task.key)
        if on_task is not None:
            on_task(task.key)

    def lost(task: Task, why: str) -> None:  # an infrastructure failure, recorded; not a sample
        append_line(out / "failures.jsonl", {"key": task.key, "error": why,
                                             "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})

    try:
        summary.lost = generate_tasks(pending, builder.build, config, write, default_generate_fn,
                                      generate_fn, repos_dir, out / "rounds", lost)
    finally:
        builder.close()
    return summary
