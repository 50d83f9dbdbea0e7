"""pass@1 on a task file whose records name their repository: the greedy answer as drawn vs the
checked answer, under the legacy text check, the static policy and (when registered) the parsed one.

Two runs of ``ragcode mlbench run``'s harness (``ragcode.bench.runner.run_bench``) on the same
tasks, context setting and model:

- **drawn**: one greedy sample per task, no checks (``generation.check=[]``, ``-n 1``);
- **checked**: ``-n`` samples with the default checks, checked selection and fixes; its first
  answer is the one scored at pass@1.

Each run is scored without executing anything (``execute=False``): ``mlbench-legacy`` is then
ML-Bench's two text checks (every ``arguments`` value in the answer, the answer type),
``static`` adds checks that need no environment, ``parsed`` asks the repository's own parser.
Runs resume (rerun the same command after a kill); verdicts are cached in the run folders.

    python benchmarks/outside_passk.py --tasks benchmarks/data/outside/tasks.jsonl --repos OUT/ \\
        --out runs/outside/ [--llm llamacpp --model qwen2.5-coder-1.5b] [-n 5] [--limit N] \\
        [--setting ragcode] [--type bash|python] [--every K] [--modes drawn,checked] [--set key=value ...]

Prints a table and writes ``OUT/outside_passk.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

BASE_POLICIES = ("mlbench-legacy", "static")


def policies() -> list[str]:
    from ragcode.bench.scoring import SCORERS

    names = list(BASE_POLICIES)
    if "parsed" in SCORERS.names():
        names.append("parsed")
    return names


def mode_config(args: argparse.Namespace, mode: str) -> Any:
    from ragcode.config import load_config

    overrides = [f"generation.llm.backend={args.llm}", f"bench.setting={args.setting}",
                 "bench.legacy_require_n=0", f"index.root={Path(args.out) / 'indexes'}"]
    if args.model:
        overrides.append(f"generation.llm.model={args.model}")
    if mode == "drawn":
        overrides += ["generation.n=1", "generation.check=[]"]
    else:
        overrides.append(f"generation.n={args.n}")
    return load_config(args.config, overrides=[*overrides, *args.set])


def run_mode(args: argparse.Namespace, tasks: list[Any], mode: str) -> dict[str, Any]:
    from ragcode.bench.evaluate import score
    from ragcode.bench.runner import run_bench

    config = mode_config(args, mode)
    out = Path(args.out) / mode
    start = time.perf_counter()
    summary = run_bench(tasks, args.repos, out, config, limit=args.limit)
    gen_s = time.perf_counter() - start
    reports = {p: score(out, tasks, args.repos, p, config, execute=False) for p in policies()}
    first = {p: {t["key"]: bool(t["passes"] and t["passes"][0]) for t in r["tasks"]} for p, r in reports.items()}
    return {"run": str(out), "generated": summary.generated, "tasks": summary.total,
            "generation_seconds": round(gen_s, 1),
            "pass@1": {p: r["pass@1"] for p, r in reports.items()}, "first": first,
            "by_type": by_type(first, tasks)}


def task_type(task: Any) -> str:
    return "python" if "python" in (task.type or "").lower() else "bash"


def by_type(first: dict[str, dict[str, bool]], tasks: list[Any]) -> dict[str, dict[str, list[int]]]:
    """policy -> task type (bash, python) -> [passed at 1, tasks]."""
    kinds = {t.key: task_type(t) for t in tasks}
    out: dict[str, dict[str, list[int]]] = {}
    for policy, passes in first.items():
        for key, ok in passes.items():
            cell = out.setdefault(policy, {}).setdefault(kinds.get(key, "bash"), [0, 0])
            cell[0] += int(ok)
            cell[1] += 1
    return out


def paired(drawn: dict[str, bool], checked: dict[str, bool]) -> dict[str, int]:
    keys = drawn.keys() & checked.keys()
    return {"gained": sum(checked[k] and not drawn[k] for k in keys),
            "lost": sum(drawn[k] and not checked[k] for k in keys)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", required=True, help="A JSONL task file (records that name their repository).")
    ap.add_argument("--repos", required=True, help="Folder with the checkouts (ROOT/name or ROOT/owner+name).")
    ap.add_argument("--out", required=True, help="Folder for the two runs, the indexes and the JSON.")
    ap.add_argument("--llm", default="llamacpp")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("-n", type=int, default=5, help="Samples of the checked run.")
    ap.add_argument("--limit", type=int, default=None, help="Only the first N tasks.")
    ap.add_argument("--every", type=int, default=1, help="Only every K-th task (1st, K+1th, ...): a subset.")
    ap.add_argument("--type", choices=("bash", "python"), default=None,
                    help="Only the tasks of this type (before --every).")
    ap.add_argument("--modes", default="drawn,checked", help="Which runs: drawn, checked or both (comma-separated).")
    ap.add_argument("--setting", default="ragcode")
    ap.add_argument("--config", default=None)
    ap.add_argument("--set", action="append", default=[], help="A config override, key=value.")
    args = ap.parse_args(argv)

    from ragcode.bench.dataset import load_tasks
    from ragcode.fileio import write_json_atomic
    from ragcode.provenance import provenance

    loaded = load_tasks(args.tasks)
    tasks = [t for t in loaded.tasks if args.type is None or task_type(t) == args.type][::max(1, args.every)]
    modes = [m for m in ("drawn", "checked") if m in args.modes.split(",")]
    results = {mode: run_mode(args, tasks, mode) for mode in modes}
    rows = []
    if len(modes) == 1:
        only = results[modes[0]]
        for p in policies():
            rows.append({"policy": p, modes[0]: only["pass@1"][p]})
            print(f"| {p} | {only['tasks']} | {modes[0]} pass@1 {only['pass@1'][p]:.3f} |")
    for p in policies() if len(modes) == 2 else ():
        d, c = results["drawn"], results["checked"]
        pair = paired(d["first"][p], c["first"][p])
        rows.append({"policy": p, "drawn": d["pass@1"][p], "checked": c["pass@1"][p], **pair})
        print(f"| {p} | {c['tasks']} | {d['pass@1'][p]:.3f} | {c['pass@1'][p]:.3f} | +{pair['gained']}/-{pair['lost']} |")
    for mode, r in results.items():
        print(f"{mode}: {r['generated']} task(s) generated in {r['generation_seconds']} s ({r['run']})")
        for p, kinds in r["by_type"].items():
            print(f"  {mode} {p}: " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(kinds.items())))
    report = {"tasks_file": args.tasks, "skipped_records": len(loaded.skipped), "llm": args.llm,
              "model": args.model, "n": args.n, "setting": args.setting, "limit": args.limit, "every": args.every,
              "type": args.type,
              "rows": rows, "runs": results, **provenance()}
    write_json_atomic(Path(args.out) / "outside_passk.json", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
