"""``ablate --workers N`` / ``--ray``: the unfinished cells of a grid, one cell per worker.

Each worker runs the grid's own ``run_cell`` (``ragcode.ablation.runner._run_cell``, handed in by
the runner) exactly as a one-worker grid does, with a store that hands a new retrieval record
back instead of writing it: the driver writes ``retrieval/<key>.json`` and ``cells/<key>.json``
as results arrive. Cells that share a retrieval setting run after the first of them and reuse
its record, so each retrieval setting is computed once, as in a one-worker grid. A generation
cell's run folder ``runs/<cell key>/`` is written by the worker that runs the cell, its only
writer (with Ray: on storage the driver shares, see docs/scale.md).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragcode.errors import RagcodeError
from ragcode.scale.jobs import open_for, parallel, plan
from ragcode.scale.pool import Done, fan_out
from ragcode.scale.progress import TaskProgress

log = logging.getLogger(__name__)


class _WorkerStore:
    """The results folder as a worker sees it: the given retrieval record instead of a read, a
    new one kept for the driver instead of a write; the rest (``run_dir``) is the real store's."""

    def __init__(self, store: Any, record: dict[str, Any] | None):
        self._store = store
        self.given = record
        self.new: dict[str, Any] | None = None

    def load_retrieval(self, key: str) -> dict[str, Any] | None:
        return self.given

    def save_retrieval(self, key: str, data: dict[str, Any]) -> None:
        self.new = data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@dataclass
class _Runs:
    retrieval_runs: int = 0


@dataclass
class CellJob:
    run_cell: Any  # (cell, ckey, spec, tasks, tkey, repos, store, retrieval_stage, generation_stage, result)
    spec: Any
    tasks: Sequence[Any]
    tkey: str
    repos: Any
    store: Any
    retrieval_stage: Any
    generation_stage: Any

    def __call__(self):
        def handle(payload: Any) -> tuple[dict[str, Any], dict[str, Any] | None, int]:
            cell, ckey, record = payload
            store, runs = _WorkerStore(self.store, record), _Runs()
            row = self.run_cell(cell, ckey, self.spec, self.tasks, self.tkey, self.repos, store,
                                self.retrieval_stage, self.generation_stage, runs)
            return row, store.new, runs.retrieval_runs

        return handle


def run_cells_in_parallel(todo: Sequence[tuple[Any, str, str]], job: CellJob, result: Any,
                          progress: bool = False) -> dict[str, dict[str, Any]]:
    """Run ``todo`` = (cell, cell key, retrieval key) of unfinished cells on ``scale.workers``
    workers (or Ray); returns their rows by cell key, each already saved in ``job.store`` (and
    ``result.retrieval_runs`` counted). Nothing is run, and {} returned, for a one-worker grid."""
    if not todo or not parallel(todo[0][0].config):
        return {}
    spec, store = job.spec, job.store
    config = todo[0][0].config
    generation = spec.measure == "generation"
    kind, cap, resources = plan(config, generates=generation, executes=generation and spec.execute)
    if not generation:
        kind = "processes"  # retrieval embeds on the CPU
    rows: dict[str, dict[str, Any]] = {}
    lost: list[str] = []
    leaders: set[str] = set()
    first, rest = [], []
    for cell, ckey, rkey in todo:
        if rkey not in leaders or store.load_retrieval(rkey) is not None:
            leaders.add(rkey)
            first.append((cell, ckey, rkey))
        else:
            rest.append((cell, ckey, rkey))
    pool = open_for(config, kind, cap, resources, job, f"ablation {spec.name}", pending=len(todo))
    bar = TaskProgress(f"ablation {spec.name}") if progress else None
    if bar is not None:
        bar.start(len(todo))

    def on_done(batch: list, done: Done) -> None:
        cell, ckey, rkey = batch[done.tag]
        if done.lost:
            lost.append(f"{cell.name} ({done.lost}, {done.attempts} time(s))")
            return
        row, record, runs = done.value
        if record is not None:
            store.save_retrieval(rkey, record)
        result.retrieval_runs += runs
        store.save_cell(ckey, row)
        rows[ckey] = row
        log.info("cell %s: %s=%s in %.1fs", cell.name, spec.primary_metric,
                 row.get(spec.primary_metric), row["seconds"])
        if bar is not None:
            bar.advance(cell.name)

    try:
        for batch, last in ((first, not rest), (rest, True)):
            if batch:
                items = ((i, (c, k, store.load_retrieval(r))) for i, (c, k, r) in enumerate(batch))
                fan_out(pool, items, functools.partial(on_done, batch), close=last)
    finally:
        if bar is not None:
            bar.stop()
    if lost:
        raise RagcodeError(f"{len(lost)} cell(s) lost their worker on every try: {'; '.join(lost)}; "
                           "the other cells are saved, run the grid again to retry these")
    return rows

