"""What the workers of ``mlbench run`` and ``mlbench score`` run, and how many of which kind.

- ``generate_tasks``: ``mlbench run``'s tasks. The driver builds each context (one
  ``ContextBuilder``, its indexes opened once) and writes each finished task; a worker generates
  the answers of one task at a time.
- ``score_in_parallel``: ``mlbench score``'s samples that have no cached verdict, one execution
  per unit of work, each distinct verdict key once; the driver appends each verdict to the cache
  as it arrives.

Kinds (``plan``): the ``openai`` and ``scripted`` backends hold no model, so their workers are
threads sharing one client (one request budget, ``generation.llm.concurrency``); anything else
that generates is a process per model copy, at most ``scale.max_local_models`` of them; the
executor runs in processes (it forks sandboxes). With Ray every worker is an actor, and an API
backend's concurrency is split between ``--workers`` actors.

This package sits below ``bench`` and ``ablation``: what a worker calls there (the default
generate function, the scorer) is handed in by the caller as a module-level function, which a
worker process imports by name when it unpickles it.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragcode.config import Config
from ragcode.scale.pool import Done, Pool, ProcessPool, SerialPool, ThreadPool, fan_out

log = logging.getLogger(__name__)

NO_MODEL_BACKENDS = ("openai", "scripted")  # backends that keep no model in memory
UNCAPPED = 1 << 20
THREADS_PER_CPU, THREADS_MIN = 4, 32  # API-client threads wait on the network, not on a CPU


def parallel(config: Config) -> bool:
    """Whether ``config`` asks for more than today's one-at-a-time loop."""
    return config.scale.workers > 1 or bool(config.scale.ray_address)


def _picklable(obj: Any) -> bool:
    try:
        pickle.dumps(obj)
        return True
    except Exception:  # noqa: BLE001 - closures, locks, open files
        return False


def plan(config: Config, generates: bool, executes: bool = False) -> tuple[str, int, dict[str, float]]:
    """(kind, cap on workers, Ray resources per actor) for work that ``generates`` answers with
    the configured backend and/or ``executes`` them."""
    llm = config.generation.llm
    local_model = generates and llm.backend not in NO_MODEL_BACKENDS
    kind = "processes" if local_model or executes else "threads"
    cap = config.scale.max_local_models if local_model else UNCAPPED
    gpu = local_model and (llm.backend == "vllm" or llm.device.startswith("cuda"))
    return kind, max(1, cap), ({"num_gpus": 1} if gpu else {})


def machine_slots(kind: str) -> int:
    """How many workers of ``kind`` this machine can keep busy: a process per usable CPU; threads
    (API clients, waiting on the network) a few per CPU."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, cpus) if kind == "processes" else max(THREADS_MIN, THREADS_PER_CPU * cpus)


def open_for(config: Config, kind: str, cap: int, resources: dict[str, float], factory: Any,
             what: str, pending: int) -> Pool:
    """The pool for ``what``: ``scale.workers`` workers of ``kind`` (one: the serial pool), or Ray
    actors with ``scale.ray_address`` (one worker asked: one per CPU of the cluster); never more
    than ``cap``, than the ``pending`` units of work, nor (here) than the machine can run
    (``machine_slots``): ``--workers 1000000`` starts no more processes than that."""
    workers, ray = config.scale.workers, config.scale.ray_address
    if cap < workers:
        log.warning("%s: %d worker(s), not %d: scale.max_local_models=%d (each worker holds its own "
                    "copy of the model); raise it if memory allows", what, cap, workers, cap)
    cap = max(1, min(cap, pending))  # no worker without work
    machine = UNCAPPED if ray else machine_slots(kind)
    if min(workers, cap) > machine:
        log.warning("%s: %d worker(s), not %d: this machine runs at most %d %s at once", what, machine,
                    workers, machine, kind)
    cap = min(cap, machine)
    slots = min(workers, cap)
    if ray:
        from ragcode.scale.ray_pool import RayPool

        pool: Pool = RayPool(factory, slots, ray, resources, cap)
    elif slots <= 1:
        pool = SerialPool(factory)
    elif kind == "processes" and _picklable(factory):
        pool = ProcessPool(factory, slots)
    else:  # API clients; or a caller's own function (a closure) that cannot reach a process
        pool = ThreadPool(factory, slots)
    log.info("%s: %d %s", what, pool.slots, "ray actor(s)" if ray else "worker(s)")
    return pool


# --- mlbench run -----------------------------------------------------------------------------

@dataclass
class GenerateJob:
    """A worker's generate function: ``make_generate(config, repos_dir=, rounds_dir=)`` (the
    runner's default) built in the worker with its own model, or the caller's ``generate_fn``."""

    config: Config
    make_generate: Any
    generate_fn: Any = None
    repos_dir: str | None = None
    rounds_dir: str | None = None
    share: int = 1  # Ray actors that split the API request budget

    def __call__(self) -> Callable[[Any], Any]:
        generate = self.generate_fn
        if generate is None:
            config = self.config
            if self.share > 1:
                config = config.model_copy(deep=True)
                config.generation.llm.concurrency = max(1, config.generation.llm.concurrency // self.share)
            generate = self.make_generate(config, repos_dir=self.repos_dir,
                                          rounds_dir=Path(self.rounds_dir) if self.rounds_dir else None)

        def handle(payload: Any) -> Any:
            task, context = payload
            start = time.perf_counter()
            return generate(task, context), time.perf_counter() - start

        return handle


def generate_tasks(pending: Sequence[Any], build_context: Callable[[Any], Any], config: Config,
                   write: Callable[[Any, Any, list, float], None], make_generate: Any,
                   generate_fn: Any = None, repos_dir: str | Path | None = None,
                   rounds_dir: str | Path | None = None,
                   lost: Callable[[Any, str], None] | None = None) -> int:
    """Generate every task of ``pending``; ``write(task, context, candidates, seconds)`` runs in
    this thread for each finished one, in the order they finish. A task whose worker died on
    every try is not written (a resumed run does it) but passed to ``lost(task, why)``; returns
    how many were. A task's own journal under ``rounds_dir`` (checked answers' rounds, an agent's
    trajectory) is written by the worker that runs the task, its only writer."""
    kind, cap, resources = plan(config, generates=True)
    ray = config.scale.ray_address
    job = GenerateJob(config, make_generate, generate_fn, str(repos_dir) if repos_dir is not None else None,
                      None if rounds_dir is None else str(rounds_dir))
    if ray and config.generation.llm.backend == "openai":
        job.share = max(1, config.scale.workers)
    pool = open_for(config, kind, cap, resources, job, "mlbench run", pending=len(pending))
    contexts: dict[int, tuple[Any, float]] = {}
    count = [0]

    def items():
        for i, task in enumerate(pending):
            start = time.perf_counter()
            context = build_context(task)
            contexts[i] = (context, time.perf_counter() - start)
            yield i, (task, context)

    def on_done(done: Done) -> None:
        task = pending[done.tag]
        context, ctx_s = contexts.pop(done.tag)
        if done.lost:
            count[0] += 1
            if lost is not None:
                lost(task, f"{done.lost}, {done.attempts} time(s)")
            return
        cands, gen_s = done.value
        write(task, context, cands, ctx_s + gen_s)

    fan_out(pool, items(), on_done)
    return count[0]


# --- mlbench score ---------------------------------------------------------------------------

@dataclass
class ScoreJob:
    """A worker's scorer, executor and score context, built once per worker from the caller's
    ``parts`` = (load_scorer, executor_for, ScoreContext) of ``ragcode.bench.scoring``."""

    policy: str
    config: Config
    repos_dir: str
    execute: bool
    parts: tuple[Any, Any, Any]

    def __call__(self) -> Callable[[Any], Any]:
        load_scorer, executor_for, score_context = self.parts
        scorer = load_scorer(self.policy)
        ctx = score_context(repos_dir=Path(self.repos_dir), config=self.config,
                            executor=executor_for(scorer, self.config, self.execute))

        def handle(payload: Any) -> dict[str, Any]:
            task, output, index = payload
            return stored_verdict(scorer.score_sample(task, output, index, ctx))

        return handle


def stored_verdict(verdict: Any) -> dict[str, Any]:
    """A verdict as the cache keeps it: without the task key and sample index it was made for."""
    return {k: v for k, v in asdict(verdict).items() if k not in ("task_key", "sample_index")}


def score_in_parallel(matched: Sequence[tuple[Any, list[str]]], policy: str, config: Config,
                      repos_dir: str | Path, executed: bool, cache: dict[str, dict[str, Any]],
                      keep: Callable[[str, dict[str, Any]], None], key_of: Callable[..., str],
                      parts: tuple[Any, Any, Any], advance: Callable[[int], None] | None = None
                      ) -> dict[str, dict[str, Any]]:
    """Verdicts (as stored) of every sample of ``matched`` whose ``key_of(policy, executed, task,
    output, config)`` is not in ``cache``, each distinct key run once. ``keep(key, verdict)``
    runs here, in the driver, for each verdict without an infrastructure error as it arrives
    (the caller appends it to its cache); ``advance(k)`` counts finished samples."""
    from ragcode.types import Verdict

    todo: dict[str, tuple[Any, str, int]] = {}
    count: dict[str, int] = {}
    for task, outputs in matched:
        for i, output in enumerate(outputs):
            key = key_of(policy, executed, task, output, config)
            if key not in cache:
                todo.setdefault(key, (task, output, i))
                count[key] = count.get(key, 0) + 1
    fresh: dict[str, dict[str, Any]] = {}
    if not todo:
        return fresh
    kind, cap, resources = plan(config, generates=False, executes=executed)
    job = ScoreJob(policy, config, str(repos_dir), executed, parts)
    pool = open_for(config, kind, cap, resources, job, "mlbench score", pending=len(todo))
    keys = list(todo)

    def on_done(done: Done) -> None:
        key = keys[done.tag]
        stored = done.value
        if done.lost:
            stored = stored_verdict(Verdict(task_key="", sample_index=0, policy=policy, passed=False,
                                            infra_error=f"{done.lost}, {done.attempts} time(s)"))
        fresh[key] = stored
        if not stored.get("infra_error"):
            keep(key, stored)
        if advance is not None:
            advance(count[key])

    fan_out(pool, ((i, todo[key]) for i, key in enumerate(keys)), on_done)
    return fresh
