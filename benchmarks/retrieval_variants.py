"""Oracle measure of retrieval settings on ML-Bench tasks, over indexes already built.

Usage (after `ragcode mlbench retrieve ... --index-root /work/indexes/X` built the indexes):

    HF_HUB_OFFLINE=1 python benchmarks/retrieval_variants.py --tasks dev.jsonl --repos /work/repos \
        --index-root /work/indexes/X [--set retrieval.mode=bm25 --set rerank.enabled=true ...]

Prints found-rate, mean normalized coverage per repository and overall, and p50 time per query
(retrieval + packing, index already open). Writes nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from ragcode.bench.dataset import load_tasks
from ragcode.bench.oracle_measure import RepoOracle, summarize
from ragcode.bench.repos import repo_for
from ragcode.chunking.walk import walk_repo
from ragcode.config import load_config
from ragcode.index.store import load_index
from ragcode.retrieval.search import Searcher


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--repos", required=True)
    ap.add_argument("--index-root", required=True)
    ap.add_argument("--set", action="append", default=[], dest="overrides")
    args = ap.parse_args()
    cfg = load_config(None, args.overrides)
    by_repo = defaultdict(list)
    for task in load_tasks(args.tasks).tasks:
        by_repo[task.github_id].append(task)
    scores, times = [], []
    for github_id in sorted(by_repo):
        folder = repo_for(github_id).folder
        index_dir = Path(args.index_root) / folder
        if not (index_dir / "manifest.json").exists():
            print(f"{folder:28s} (no index at {index_dir}; skipped)")
            continue
        oracle = RepoOracle(f.text for f in walk_repo(Path(args.repos) / folder,
                                                      cfg.chunking.walk).files)
        searcher = Searcher(load_index(index_dir), cfg)
        repo_scores = []
        for task in by_repo[github_id]:
            t0 = time.perf_counter()
            ctx = searcher.context(task.instruction)
            times.append(time.perf_counter() - t0)
            repo_scores.append(oracle.score(task.oracle, ctx.text))
        scores += repo_scores
        s = summarize(repo_scores)
        print(f"{folder:28s} n={s.n:2d} found={s.found_rate:.3f} norm={s.mean_normalized:.3f}")
    s = summarize(scores)
    p50 = statistics.median(times) * 1000 if times else float("nan")
    print(f"{'overall':28s} n={s.n:2d} found={s.found_rate:.3f} norm={s.mean_normalized:.3f} "
          f"p50={p50:.0f} ms")


if __name__ == "__main__":
    main()
