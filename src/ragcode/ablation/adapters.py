"""The default stages of a grid, built from ragcode's own index, retrieval and bench parts.

Retrieval: each repository is indexed once per chunking + embedder setting, under the name
``<folder>-<Config.section_hash("chunking", "embedder")[:12]>`` in ``config.index.root``, so cells
that share those settings share the index (and, through the embedding cache, cells that share an
embedder share vectors). Per task it records the ranked hits (``retrieval.k`` of them) and the
packed context, exactly what ``ragcode.retrieval.search`` gives a prompt.

The oracle measure's ``attainable`` (the best coverage of any single file) is computed over the
files the walker accepts with *default* walk settings, the same for every cell, so cells are
compared against one yardstick.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from ragcode.ablation.stages import (GenerationStage, RetrievalBatch, RetrievalStage,
                                     TaskGeneration, TaskRetrieval)
from ragcode.config import Config
from ragcode.types import Chunk, Task

log = logging.getLogger(__name__)


def index_name(folder: str, config: Config) -> str:
    return f"{folder}-{config.section_hash('chunking', 'embedder')[:12]}"


@lru_cache(maxsize=1)  # one repository's file tokens at a time: all 14 would hold gigabytes
def _repo_oracle(repo_dir: str):
    from ragcode.bench.oracle_measure import RepoOracle
    from ragcode.chunking.walk import walk_repo

    return RepoOracle(f.text for f in walk_repo(repo_dir).files)


_ATTAINABLE: dict[tuple[str, str], float] = {}


def attainable(repo_dir: Path, oracle: str) -> float:
    """The oracle's best single-file coverage in the repository (memoized per process, so later
    cells of a grid never walk the repository again)."""
    key = (str(repo_dir), oracle)
    if key not in _ATTAINABLE:
        _ATTAINABLE[key] = _repo_oracle(str(repo_dir)).attainable(oracle)
    return _ATTAINABLE[key]


def bench_retrieval(tasks: Sequence[Task], repos: Path, config: Config) -> RetrievalBatch:
    from ragcode.bench.oracle_measure import score_context
    from ragcode.bench.repos import require_repo_dir
    from ragcode.index.build import index_repo
    from ragcode.retrieval.search import searcher_for

    by_repo: dict[int, list[Task]] = {}
    for task in tasks:
        by_repo.setdefault(task.github_id, []).append(task)
    results: list[TaskRetrieval] = []
    pools: dict[int, Sequence[Chunk]] = {}
    for github_id, repo_tasks in by_repo.items():
        folder = require_repo_dir(github_id, repos)
        index = index_repo(folder, config, name=index_name(folder.name, config), progress=False)
        searcher = searcher_for(index, config)
        pools[github_id] = list(index.chunks().values())
        for task in repo_tasks:
            hits, ctx = searcher.retrieve(task.instruction)  # one ranking for both
            score = score_context(task.oracle, ctx.text, attainable(folder, task.oracle))
            results.append(TaskRetrieval(
                task=task, context=ctx.text, ranked_ids=tuple(h.chunk.id for h in hits),
                context_ids=ctx.chunk_ids, attainable=score.attainable,
                normalized_coverage=score.normalized))
        log.info("retrieved %d task(s) of %s", len(repo_tasks), folder.name)
    return RetrievalBatch(results=results, pools=pools)


def bench_generation(
    retrievals: Sequence[TaskRetrieval],
    repos: Path,
    config: Config,
    policy: str,
    run_dir: Path,
    execute: bool = True,
) -> list[TaskGeneration]:
    """Generate ``generation.n`` answers per task from its stored context and score each one.

    Answers come from ``ragcode.answering.generate_from_config`` through the benchmark runner's
    generate function (the configured model, template and checks); the parsed code of each is scored by the named policy (``ragcode.bench.scoring``),
    run by the configured executor unless ``execute`` is false (text checks only). Every finished
    task is appended to ``run_dir/samples.jsonl``, so a killed cell resumes where it stopped.
    """
    from ragcode.bench.jsonl import append_line
    from ragcode.bench.runfolder import finished
    from ragcode.bench.runner import default_generate_fn
    from ragcode.bench.scoring import ScoreContext, executor_for, load_scorer
    from ragcode.types import Context

    run_dir.mkdir(parents=True, exist_ok=True)
    samples = run_dir / "samples.jsonl"
    done = {rec["task_key"]: rec for rec in finished(samples)}
    scorer = load_scorer(policy)
    executor = executor_for(scorer, config, execute)
    score_ctx = ScoreContext(repos_dir=repos, config=config, executor=executor)
    generate = None
    out: list[TaskGeneration] = []
    for r in retrievals:
        rec = done.get(r.task.key)
        if rec is None:
            generate = generate or default_generate_fn(
                config, repos_dir=repos, rounds_dir=run_dir / "rounds",
                index_name=lambda folder: index_name(folder, config))  # an agent cell's index
            context = Context(text=r.context, chunk_ids=r.context_ids, budget=config.context.budget,
                              unit=config.context.unit, query=r.task.instruction)
            candidates = generate(r.task, context)
            verdicts = [scorer.score_sample(r.task, c.code, c.sample_index, score_ctx)
                        for c in candidates]
            rec = {"task_key": r.task.key, "github_id": r.task.github_id, "id": r.task.id,
                   "output": [c.code for c in candidates], "policy": policy,
                   "passed": [v.passed for v in verdicts],
                   "infra_errors": sum(1 for v in verdicts if v.infra_error),
                   "model": candidates[0].metadata.get("model") if candidates else ""}
            append_line(samples, rec)
        out.append(TaskGeneration(task_key=rec["task_key"], passed=tuple(rec["passed"]),
                                  infra_errors=int(rec["infra_errors"])))
    return out


# the stages a grid runs when given none (``run_grid``), typed as the seams they fill
default_retrieval_stage: RetrievalStage = bench_retrieval
default_generation_stage: GenerationStage = bench_generation
