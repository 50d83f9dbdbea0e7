"""Run an ablation grid: every cell retrieved (and, if asked, generated and scored), cached, reported.

``run_grid`` is the whole job; the CLI (``ragcode ablate``) is a skin over it. Work is skipped at
three levels: a finished cell (its row file exists) is not run again; cells that share their
retrieval settings share one retrieval record; and below that the index stage reuses indexes and
vectors by content hash (index name from the repository and the chunking + embedder settings).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragcode.ablation.adapters import default_generation_stage, default_retrieval_stage
from ragcode.ablation.cells import ResultStore, cell_key, retrieval_key
from ragcode.ablation.grid import Cell, GridSpec
from ragcode.ablation.measures import TaskRetrievalScore, score_task, summarize
from ragcode.ablation.report import write_reports
from ragcode.ablation.result import GridResult
from ragcode.ablation.stages import (
    GenerationStage,
    RetrievalBatch,
    RetrievalStage,
    TaskGeneration,
    TaskRetrieval,
)
from ragcode.bench.oracle_measure import tokens
from ragcode.bench.passk import KS as PASS_KS
from ragcode.bench.passk import pass_rates
from ragcode.bench.runfolder import hold_folder
from ragcode.errors import RagcodeError
from ragcode.hashing import digest
from ragcode.provenance import checkout_commit
from ragcode.scale.cells import CellJob, run_cells_in_parallel
from ragcode.scale.jobs import parallel
from ragcode.types import Task
from ragcode.version import __version__

log = logging.getLogger(__name__)


def tasks_key(tasks: Sequence[Task]) -> str:
    """Content hash of the task set (every field), so a changed task file never reuses results."""
    return digest([dataclasses.asdict(t) for t in tasks])


def run_grid(
    spec: GridSpec,
    tasks: Sequence[Task],
    repos: Path,
    out: Path,
    index_root: Path | None = None,
    retrieval_stage: RetrievalStage | None = None,
    generation_stage: GenerationStage | None = None,
    overrides: dict[str, Any] | None = None,
    progress: bool = True,
    report: bool = True,
) -> GridResult:
    """Run (or resume) every cell of ``spec`` over ``tasks``; write rows, tables and plots to ``out``.

    Indexes are built and reused in ``index_root``; without it, in ``overrides["index.root"]``,
    else the spec's own (``set: index.root`` or its base config's), else ``out/indexes``.
    """
    started = time.perf_counter()
    repos = Path(repos).resolve()
    out = Path(out)
    if not tasks:
        raise RagcodeError("the ablation grid got no tasks; check --tasks (and --limit)")
    with hold_folder(out, "results folder"):  # one grid at a time
        retrieval_stage = retrieval_stage or default_retrieval_stage
        generation_stage = generation_stage or default_generation_stage
        extra = dict(overrides or {})
        # index_root, else --set/overrides, else the spec's own (set: or base), else OUT/indexes
        root = index_root or extra.get("index.root") or spec.index_root() or out / "indexes"
        extra["index.root"] = str(Path(root).resolve())
        cells = spec.expand(extra)
        store = ResultStore(out)
        tkey = tasks_key(tasks)
        result = GridResult(spec=spec, rows=[])
        fresh: dict[str, dict[str, Any]] = {}
        if cells and parallel(cells[0].config):  # scale.workers / --ray: unfinished cells on workers
            todo: dict[str, tuple[Cell, str, str]] = {}
            for cell in cells:
                ckey = cell_key(cell.config, spec.measure, spec.measure_key(), tkey, repos)
                if ckey not in todo and store.load_cell(ckey) is None:
                    todo[ckey] = (cell, ckey, retrieval_key(cell.config, tkey, repos))
            job = CellJob(_run_cell, spec, list(tasks), tkey, repos, store, retrieval_stage, generation_stage)
            fresh = run_cells_in_parallel(list(todo.values()), job, result, progress)

        for i, cell in enumerate(_progress(cells, spec.name, progress)):
            ckey = cell_key(cell.config, spec.measure, spec.measure_key(), tkey, repos)
            row = None if ckey in fresh else store.load_cell(ckey)
            if row is not None:
                row.update(varied_values(spec, cell))  # rows read back show every varied field too
                result.cached.append(cell.name)
                log.info("cell %d/%d %s: finished before (%s), skipped", i + 1, len(cells), cell.name, ckey)
            else:
                row = fresh.get(ckey) or _run_cell(cell, ckey, spec, tasks, tkey, repos, store,
                                                   retrieval_stage, generation_stage, result)
                if ckey not in fresh:  # a worker's row was saved as it arrived
                    store.save_cell(ckey, row)
                result.computed.append(cell.name)
                log.info("cell %d/%d %s: %s=%s in %.1fs", i + 1, len(cells), cell.name,
                         spec.primary_metric, row.get(spec.primary_metric), row["seconds"])
            result.rows.append(row)
        result.seconds = time.perf_counter() - started
        if report:
            result.files = write_reports(result, out)
        return result


def _run_cell(
    cell: Cell,
    ckey: str,
    spec: GridSpec,
    tasks: Sequence[Task],
    tkey: str,
    repos: Path,
    store: ResultStore,
    retrieval_stage: RetrievalStage,
    generation_stage: GenerationStage,
    result: GridResult,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    rkey = retrieval_key(cell.config, tkey, repos)
    record = store.load_retrieval(rkey)
    retrieval_cached = record is not None
    if record is None:
        batch = retrieval_stage(tasks, repos, cell.config)
        result.retrieval_runs += 1
        record = _retrieval_record(batch, tasks)
        store.save_retrieval(rkey, record)
    scores = [TaskRetrievalScore(**{**s, "ranks": tuple(s["ranks"])}) for s in record["scores"]]
    row: dict[str, Any] = {
        "cell": cell.name,
        "cell_key": ckey,
        "config_hash": cell.config.hash(),
        "retrieval_key": rkey,
        "measure": spec.measure,
        **varied_values(spec, cell),
        **summarize(scores, spec.ks).as_row(),
    }
    if spec.measure == "generation":
        by_key = {t.key: t for t in tasks}
        retrievals = [
            TaskRetrieval(task=by_key[r["task_key"]], context=r["context"],
                          ranked_ids=tuple(r["ranked_ids"]), context_ids=tuple(r["context_ids"]))
            for r in record["tasks"]
        ]
        generations = generation_stage(retrievals, repos, cell.config, spec.policy,
                                       store.run_dir(ckey), execute=spec.execute)
        row["policy"] = spec.policy if spec.execute else f"{spec.policy} (no execution)"
        row.update(generation_row(generations, len(tasks)))
    row["retrieval_cached"] = retrieval_cached
    row["seconds"] = round(time.perf_counter() - t0, 2)
    commit, _ = checkout_commit()  # the code that computed this row (a cached row keeps its own)
    row.update(ragcode_version=__version__, git_commit=commit)
    return row


def generation_row(generations: Sequence[TaskGeneration], n_tasks: int) -> dict[str, Any]:
    """ML-Bench's positional pass@k (``ragcode.bench.passk``) for the k the samples allow, and
    the infrastructure failures."""
    n_samples = max((len(g.passed) for g in generations), default=0)
    ks = [k for k in PASS_KS if k <= max(n_samples, 1)]
    rates = pass_rates((g.passed for g in generations), ks, n_tasks)
    out: dict[str, Any] = {key: round(value, 4) for key, value in rates.items()}
    out["infra_errors"] = sum(g.infra_errors for g in generations)
    return out


def _retrieval_record(batch: RetrievalBatch, tasks: Sequence[Task]) -> dict[str, Any]:
    """Score a retrieval batch against the oracle and keep what later cells need (JSON-able)."""
    pool_tokens: dict[int, list[tuple[str, str, frozenset[str]]]] = {}
    wanted = {t.key for t in tasks}
    out_tasks, scores = [], []
    for r in batch.results:
        if r.task.key not in wanted:
            continue
        gid = r.task.github_id
        if gid not in pool_tokens:
            pool_tokens[gid] = [(c.id, c.path, tokens(c.text)) for c in batch.pools.get(gid, ())]
        score = score_task(r.task.key, r.task.oracle, r.context, r.ranked_ids, pool_tokens[gid],
                           attainable=r.attainable, normalized_coverage=r.normalized_coverage)
        scores.append(dataclasses.asdict(score))
        out_tasks.append({"task_key": r.task.key, "context": r.context,
                          "ranked_ids": list(r.ranked_ids), "context_ids": list(r.context_ids)})
    missing = wanted - {t["task_key"] for t in out_tasks}
    if missing:
        raise RagcodeError(f"the retrieval stage returned nothing for {len(missing)} task(s), e.g. "
                           f"{sorted(missing)[:3]}; check that --repos holds their repositories")
    return {"tasks": out_tasks, "scores": scores}


def varied_values(spec: GridSpec, cell: Cell) -> dict[str, Any]:
    """Every varied field's resolved value in this cell (a listed cell may not set them all)."""
    return {key: _cell_value(resolved_value(cell.config, key)) for key in spec.varied_keys()}


def resolved_value(config: Any, dotted: str) -> Any:
    """The value of ``a.b.c`` in the resolved config (also for cells that did not set it)."""
    cur: Any = config.to_dict()
    for part in dotted.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return cur


def _cell_value(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _progress(cells: list[Cell], name: str, enabled: bool):
    if not enabled:
        yield from cells
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        job = bar.add_task(f"ablation {name}", total=len(cells))
        for cell in cells:
            bar.update(job, description=f"ablation {name}: {cell.name}")
            yield cell
            bar.advance(job)
