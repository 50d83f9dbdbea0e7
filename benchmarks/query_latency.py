"""Query latency of ``retrieve_context`` (ranking + context assembly) on ML-Bench dev tasks, with
the share of each step.

    python benchmarks/query_latency.py --tasks ../shared/data/mlbench/dev.jsonl --repos REPOS \\
        --index-root INDEXES [--set k=v] [--repeat 1] [--out results/query_latency.json]

Every task's instruction is run against its repository's index (built at the config's settings
if missing), with the index open and one untimed query per repository first (BM25 tables
loaded, the model warm). Steps, timed by wrapping the objects of the ``Searcher``: ``embed``
(query embeddings), ``faiss`` (vector search), ``bm25`` (BM25 scores and top-k), ``rank-rest``
(fusion, priors, boosts: ranking minus the three), ``assemble`` (packing the context). Prints
p50/p95 per step and overall, writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Timer:
    def __init__(self) -> None:
        self.now: dict[str, float] = defaultdict(float)

    def wrap(self, obj: Any, attr: str, step: str) -> None:
        fn: Callable[..., Any] = getattr(obj, attr)

        def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                self.now[step] += time.perf_counter() - t0
        setattr(obj, attr, timed)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else 0.0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--split", default="full")
    ap.add_argument("--repos", type=Path, required=True)
    ap.add_argument("--index-root", type=Path, required=True)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=1, help="times each query is run")
    ap.add_argument("--out", type=Path, default=Path("results/query_latency.json"))
    args = ap.parse_args(argv)

    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.repos import repo_folder, require_repo_dir
    from ragcode.config import load_config
    from ragcode.index.build import index_repo
    from ragcode.retrieval.search import Searcher

    cfg = load_config(overrides=[*args.overrides, f"index.root={args.index_root}"])
    tasks = load_tasks(args.tasks, split=args.split).tasks
    by_repo: dict[int, list[Any]] = defaultdict(list)
    for t in tasks:
        by_repo[t.github_id].append(t)
    rows: list[dict[str, Any]] = []
    for github_id in sorted(by_repo):
        folder = repo_folder(github_id)
        index = index_repo(require_repo_dir(github_id, args.repos), cfg, name=folder,
                           out=args.index_root, progress=False)
        searcher = Searcher(index, cfg)
        timer = Timer()
        retriever = searcher.ranker.retriever
        for obj, attr, step in ((index, "search_vectors", "faiss"),
                                (searcher.assembler, "assemble", "assemble")):
            timer.wrap(obj, attr, step)
        dense = getattr(retriever, "dense", retriever if retriever.name == "dense" else None)
        bm25 = getattr(retriever, "bm25", retriever if retriever.name == "bm25" else None)
        if dense is not None:
            timer.wrap(dense, "query_vectors", "embed")
        if bm25 is not None:
            timer.wrap(bm25, "retrieve", "bm25")
        searcher.retrieve(by_repo[github_id][0].instruction + " warm up")  # untimed
        for task in by_repo[github_id]:
            for _ in range(args.repeat):
                timer.now.clear()
                if dense is not None:  # a repeat must embed its query again
                    dense._vectors.clear()
                t0 = time.perf_counter()
                searcher.retrieve(task.instruction)
                total = time.perf_counter() - t0
                steps = dict(timer.now)
                rank = total - steps.get("assemble", 0.0)
                steps["rank-rest"] = max(0.0, rank - sum(steps.get(k, 0.0)
                                                         for k in ("embed", "faiss", "bm25")))
                rows.append({"repo": folder, "id": task.id, "total_s": total, **{
                    f"{k}_s": v for k, v in steps.items()}})
        index.close()
        print(f"{folder}: {len(by_repo[github_id])} tasks", file=sys.stderr, flush=True)

    steps = ["embed", "faiss", "bm25", "rank-rest", "assemble"]
    totals = [r["total_s"] for r in rows]
    summary = {
        "queries": len(rows), "p50_ms": round(1000 * statistics.median(totals), 1),
        "p95_ms": round(1000 * _pct(totals, 0.95), 1),
        "mean_ms": round(1000 * statistics.fmean(totals), 1),
        "steps": {s: {"p50_ms": round(1000 * statistics.median(r.get(f"{s}_s", 0.0) for r in rows), 2),
                      "share": round(sum(r.get(f"{s}_s", 0.0) for r in rows) / sum(totals), 3)}
                  for s in steps},
        "overrides": args.overrides, "index_root": str(args.index_root),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
    }
    print(f"{summary['queries']} queries: p50 {summary['p50_ms']} ms, p95 {summary['p95_ms']} ms, "
          f"mean {summary['mean_ms']} ms (load average {summary['load_avg']})")
    for s, v in summary["steps"].items():
        print(f"  {s:<10} p50 {v['p50_ms']:>7} ms  share {100 * v['share']:5.1f} %")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "queries": rows}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
