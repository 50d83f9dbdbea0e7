"""Scoring a run directory or any ML-Bench-format outputs file under a named policy.

Input: ``RUN/`` (reads ``RUN/samples.jsonl`` and ``RUN/run.json``) or a JSONL file of
``{"id", "github_id", "output": [strings]}`` (``{"id", "repo", "output"}`` for tasks that name
their repository). Records are matched to tasks by (id, github_id), as the official scorer does,
or by (id, repo); a record whose (id, github_id) came before is left out (the first one
is scored) and a malformed one (not an object, a non-integer github_id, no output list) too, both
counted in the report (``skipped``). Verdicts are cached by a hash of everything they depend on, so a
killed scoring resumes and a re-score only runs what changed; infrastructure failures are not
cached (they are retried).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ragcode.bench.dataset import as_int, check_id
from ragcode.bench.jsonl import append_line, read_lines
from ragcode.bench.legacy import LEGACY_N
from ragcode.bench.report import TaskScore, build_report, markdown_table
from ragcode.bench.repos import is_slug, repo_dir_for, require_task_repos
from ragcode.bench.runfolder import finished, hold_folder
from ragcode.bench.scoring import ScoreContext, executor_for, load_scorer
from ragcode.fileio import write_atomic
from ragcode.scale.jobs import parallel, score_in_parallel
from ragcode.config import Config
from ragcode.errors import RagcodeError, TaskFormatError
from ragcode.types import Task, Verdict

log = logging.getLogger(__name__)


def load_outputs(source: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(records, run metadata) from a run directory or an outputs file. Lines that are not JSON
    objects are left out and described in ``meta["malformed"]``; ``score_outputs`` checks the
    fields of the rest."""
    source = Path(source)
    meta: dict[str, Any] = {"source": str(source)}
    problems: list[str] = []
    if source.is_dir():
        samples = source / "samples.jsonl"
        if not samples.exists():
            raise RagcodeError(f"{source} holds no samples.jsonl; is it a `ragcode mlbench run` --out directory?")
        run_json = source / "run.json"
        if run_json.exists():
            try:
                info = json.loads(run_json.read_text())
            except (OSError, ValueError):
                info = {}
            if isinstance(info, dict):
                meta.update({k: info.get(k) for k in ("setting", "llm", "model", "config_hash")})
        records = [r for r in read_lines(samples, problems) if "output" in r]
    elif source.is_file():
        records = read_lines(source, problems)
    else:
        raise RagcodeError(f"nothing to score at {source}: give a run directory or an outputs .jsonl file")
    meta["malformed"] = problems
    return records, meta


Keyed = tuple[tuple[str, str], list[str]]  # ((id, github_id or repo), outputs)


def task_match_key(task: Task) -> tuple[str, str]:
    """What an outputs record is matched on: (id, repo) or, for ML-Bench, (id, github_id)."""
    return str(task.id), task.repo or str(int(task.github_id))


def output_record(rec: dict[str, Any]) -> Keyed:
    """The (id, github_id or repo) key and the outputs of one outputs record;
    ``TaskFormatError`` when a field is missing or of the wrong type."""
    if rec.get("id") in (None, ""):
        raise TaskFormatError("no id")
    check_id(rec["id"])
    repo = rec.get("repo")
    if repo is not None and "github_id" not in rec:
        if not isinstance(repo, str) or not repo:
            raise TaskFormatError("repo is not a non-empty string")
        where = repo.rstrip("/")
    else:
        where = str(as_int(rec.get("github_id"), "github_id"))
    outputs = rec.get("output")
    if not isinstance(outputs, list):
        raise TaskFormatError("output is not a list")
    return (str(rec["id"]), where), [str(o) for o in outputs]


def screen_records(records: list[dict[str, Any]]) -> tuple[list[Keyed], list[str], list[str]]:
    """(valid (key, outputs) pairs, malformed descriptions, duplicate keys): a record whose
    (id, github_id) came before is left out, the first one kept, as is a malformed one."""
    valid: list[Keyed] = []
    malformed: list[str] = []
    duplicates: list[str] = []
    seen: set[tuple[str, str]] = set()
    for i, rec in enumerate(records, 1):
        try:
            key, outputs = output_record(rec)
        except TaskFormatError as exc:
            malformed.append(f"record {i} (id {rec.get('id')!r}): {exc}")
            continue
        if key in seen:
            duplicates.append(f"{key[1]}:{key[0]}")
            continue
        seen.add(key)
        valid.append((key, outputs))
    return valid, malformed, duplicates


# bump when a policy's rules or the failure classification change, so cached verdicts are redone
VERDICT_VERSION = 13  # 13: a python-fire command's set parameters are those its words gave;
# 12: a repository callable is named by its file (one file, two module names); 11: click's set options are those its command line gave; 10: a re-exported
# callable is the one where it is defined (the bump was missed then); 9: ./x and x (out/ and out) are one path;
# 8: Python calls: the reference's callables among the answer's, methods' values compared;
# 7: a path under an absolute folder is not the bare name; 6: command lines read whole


def verdict_key(policy: str, executed: bool, task: Task, output: str, config: Config) -> str:
    payload: dict[str, Any] = {
        "version": VERDICT_VERSION, "policy": policy, "executed": executed, "github_id": task.github_id, "path": task.path,
        "arguments": repr(sorted(task.arguments.items(), key=lambda kv: str(kv[0]))), "type": task.type,
        "output": output,
        "execution": config.to_dict()["execution"] if executed else None,
        "exec_timeout_s": config.bench.exec_timeout_s,
    }
    if task.repo:  # a task that names its repository: the repository and pin, not a github_id,
        # and the reference (a policy may compare the answer with it)
        payload.update(repo=task.repo, repo_path=task.repo_path, commit=task.commit, reference=task.output)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _verdict_from(d: dict[str, Any], task: Task, index: int) -> Verdict:
    d = dict(d, task_key=task.key, sample_index=index)
    return Verdict(**d)


def score_outputs(
    records: list[dict[str, Any]],
    tasks: list[Task],
    repos_dir: str | Path,
    policy: str = "mlbench-legacy",
    config: Config | None = None,
    execute: bool = True,
    cache_path: Path | None = None,
    meta: dict[str, Any] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Score ``records`` against ``tasks``; returns the report dict (see ``report.build_report``)."""
    config = config or Config()
    scorer = load_scorer(policy)
    executor = executor_for(scorer, config, execute)
    ctx = ScoreContext(repos_dir=Path(repos_dir), config=config, executor=executor)
    by_key: dict[tuple[str, str], Task] = {task_match_key(t): t for t in tasks}

    cache: dict[str, dict[str, Any]] = {}
    if cache_path is not None:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache = {r["key"]: r["verdict"] for r in finished(cache_path) if "key" in r}

    meta = dict(meta or {})
    valid, malformed, duplicates = screen_records(records)
    malformed = list(meta.pop("malformed", [])) + malformed
    matched: list[tuple[Task, list[str]]] = []
    unmatched, dropped = [], []
    for (rid, where), outputs in valid:
        task = by_key.get((rid, where))
        if task is None:
            unmatched.append(f"{where}:{rid}")
            continue
        need = config.bench.legacy_require_n if policy == "mlbench-legacy" else 0
        if need and len(outputs) != need:
            dropped.append(task.key)
            continue
        matched.append((task, outputs))
    seen = {t.key for t, _ in matched} | set(dropped)
    missing = [t.key for t in tasks if t.key not in seen]
    if executor is not None or not scorer.executes:  # the policy reads or runs the repositories
        require_task_repos([t for t, _ in matched], repos_dir, f"--policy {policy}")

    scored: list[TaskScore] = []
    total = sum(len(o) for _, o in matched)
    bar = _progress(progress, total, policy)
    fresh: dict[str, dict[str, Any]] = {}

    def keep(key: str, stored: dict[str, Any]) -> None:  # a worker's verdict, written here only
        cache[key] = stored
        if cache_path is not None:
            append_line(cache_path, {"key": key, "verdict": stored})

    try:
        if parallel(config):  # scale.workers / --ray: the missing verdicts first, on workers
            fresh = score_in_parallel(matched, policy, config, repos_dir, executor is not None, cache, keep,
                                      verdict_key, (load_scorer, executor_for, ScoreContext),
                                      (lambda k: bar[0].advance(bar[1], k)) if bar is not None else None)
        for task, outputs in matched:
            ts = TaskScore(key=task.key, id=task.id, github_id=task.github_id, repo=_repo_label(task, repos_dir))
            for i, output in enumerate(outputs):
                key = verdict_key(policy, executor is not None, task, output, config)
                if key in cache:
                    verdict = _verdict_from(cache[key], task, i)
                elif key in fresh:  # a worker's infrastructure failure: reported, never cached
                    verdict = _verdict_from(fresh[key], task, i)
                else:
                    verdict = scorer.score_sample(task, output, i, ctx)
                    if cache_path is not None and not verdict.infra_error:
                        stored = {k: v for k, v in asdict(verdict).items() if k not in ("task_key", "sample_index")}
                        append_line(cache_path, {"key": key, "verdict": stored})
                        cache[key] = stored
                ts.verdicts.append(verdict)
                if bar is not None and key not in fresh:
                    bar[0].advance(bar[1])
            scored.append(ts)
    finally:
        if bar is not None:
            bar[0].stop()

    by_repo = isolation_by_repo(executor, {repo_dir_for(t, repos_dir)[1] for t, _ in matched})
    info = {"policy": policy, "executed": executor is not None,
            "isolation": (one_isolation(by_repo) if by_repo else executor.isolation()) if executor is not None
            else "not executed",
            "isolation_by_repo": by_repo,
            "executor": config.execution.executor if executor is not None else None,
            "samples_per_task": max((len(o) for _, o in matched), default=0),
            "unmatched": unmatched, "dropped": dropped, "missing": missing,
            "duplicates": duplicates, "malformed": malformed,
            "skipped": {"duplicates": len(duplicates), "malformed": len(malformed)}}
    if policy == "mlbench-legacy" and config.bench.legacy_require_n == LEGACY_N and dropped:
        info["note"] = (f"{len(dropped)} record(s) without exactly {LEGACY_N} samples were dropped, "
                        "as the official scorer does (set bench.legacy_require_n=0 to score them)")
    skipped = [f"{n} {what} record(s)" for what, n in
               (("duplicate", len(duplicates)), ("malformed", len(malformed))) if n]
    if skipped:
        first = f" (first: {malformed[0]})" if malformed else ""
        note = f"left out {' and '.join(skipped)}; a duplicate's first record is scored{first}"
        info["note"] = f"{info['note']}; {note}" if info.get("note") else note
    info.update(meta)
    info["policy"] = policy
    return build_report(scored, info)


def isolation_by_repo(executor: Any, folders: set[str]) -> dict[str, str]:
    """The isolation in force for each repository's answers: an executor that runs each
    repository with its own interpreter (``execution.envs``) says it per repository
    (``isolation_for``); any other says it once."""
    if executor is None:
        return {}
    label_for = getattr(executor, "isolation_for", None)
    return {f: label_for(f) if label_for else executor.isolation() for f in sorted(folders)}


def one_isolation(by_repo: dict[str, str]) -> str:
    """One label when every repository ran under the same isolation, else each with its repositories."""
    labels: dict[str, list[str]] = {}
    for folder, label in by_repo.items():
        labels.setdefault(label, []).append(folder)
    if len(labels) == 1:
        return next(iter(labels))
    return "; ".join(f"{', '.join(folders)}: {label}" for label, folders in labels.items())


def _repo_label(task: Task, repos_dir: str | Path) -> str:
    """A task's repository in reports: ``owner/name`` as the task names it, else the folder's name."""
    return task.repo if is_slug(task.repo) else repo_dir_for(task, repos_dir)[1]


def _progress(enabled: bool, total: int, policy: str):
    if not enabled or total == 0:
        return None
    from rich.progress import Progress

    prog = Progress(transient=True)
    prog.start()
    return prog, prog.add_task(f"scoring ({policy})", total=total)


def score(
    source: str | Path,
    tasks: list[Task],
    repos_dir: str | Path,
    policy: str = "mlbench-legacy",
    config: Config | None = None,
    execute: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    """Score a run directory (reports and the verdict cache go into it) or an outputs file."""
    source = Path(source)
    if source.is_dir():  # a run folder: no run or other scoring writes it meanwhile
        with hold_folder(source):
            return _score(source, tasks, repos_dir, policy, config or Config(), execute, progress)
    return _score(source, tasks, repos_dir, policy, config or Config(), execute, progress)


def _score(source: Path, tasks: list[Task], repos_dir: str | Path, policy: str, config: Config,
           execute: bool, progress: bool) -> dict[str, Any]:
    records, meta = load_outputs(source)
    if source.is_dir():
        cache_path = source / "verdicts.jsonl"
    else:
        cache_path = Path(config.index.cache_dir) / "verdicts" / "verdicts.jsonl"
    report = score_outputs(records, tasks, repos_dir, policy, config, execute, cache_path, meta, progress)
    from ragcode.provenance import provenance

    report.update(provenance())
    report["scoring_config_hash"] = config.section_hash("execution", "bench")
    if source.is_dir():
        suffix = f"{policy}{'' if report['executed'] else '-noexec'}"
        write_atomic(source / f"report-{suffix}.json", json.dumps(report, indent=1) + "\n")
        write_atomic(source / f"report-{suffix}.md", markdown_table(report))
    return report
