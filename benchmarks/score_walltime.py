"""Wall time of ``mlbench score`` with execution: ``--workers 1``, ``--workers 2``, ``--ray local``.

    python benchmarks/score_walltime.py --outputs RUN1/outputs.jsonl [RUN2/outputs.jsonl ...] \\
        --tasks dev.jsonl --repos REPOS [--policy exec-strict] [--modes w1 w2 ray] \\
        [--out benchmarks/results/score_walltime.json]

The outputs files (ML-Bench's format, one line per task with its samples) are joined into one
(a task in two files: the first wins), then scored once per mode by the real command line in a
fresh interpreter (start-up, Ray's included, counts) with an empty verdict cache of its own, so
every distinct answer is executed in the sandbox in every mode (a failure the environment
causes, such as a module the repository needs and the interpreter lacks, is never cached, so it
runs again each time anyway). The script checks that all modes report the same figures, and
records for each mode the wall time, the samples scored per second, the infrastructure
failures and time-outs, and the load average at its start.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scale_walltime import MODES  # the same three modes as the scripted-run benchmark

from ragcode.fileio import write_atomic


def join_outputs(files: list[Path], dest: Path) -> tuple[int, int]:
    """One outputs file from several; returns (tasks, samples)."""
    seen: dict[tuple, dict] = {}
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                seen.setdefault((rec["github_id"], rec["id"]), rec)
    dest.write_text("".join(json.dumps(r) + "\n" for r in seen.values()), encoding="utf-8")
    return len(seen), sum(len(r.get("output") or []) for r in seen.values())


def score_once(outputs: Path, tasks: str, repos: Path, policy: str, mode: str, cache: Path) -> dict:
    argv = [sys.executable, "-c", "import sys; from ragcode.cli import main; main(sys.argv[1:])",
            "mlbench", "score", str(outputs), "--tasks", tasks, "--repos", str(repos),
            "--policy", policy, "--json", *MODES[mode], "--set", f"index.cache_dir={cache}"]
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    samples = report.get("samples") or {}
    total = int(samples.get("total", 0))
    return {"mode": mode, "wall_s": round(wall, 1), "samples": total,
            "samples_per_s": round(total / wall, 2) if wall else 0.0,
            "load_at_start": round(load, 2),
            "figures": {k: report.get(k) for k in ("n", "pass@1", "pass@2", "pass@5", "passed", "failures")},
            "infra_failures": samples.get("infra_failures"), "timed_out": samples.get("timed_out")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outputs", type=Path, nargs="+", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--repos", type=Path, required=True)
    ap.add_argument("--policy", default="exec-strict")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    ap.add_argument("--out", default="benchmarks/results/score_walltime.json")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ragcode-score-") as tmp:
        joined = Path(tmp) / "outputs.jsonl"
        n_tasks, n_samples = join_outputs(args.outputs, joined)
        print(f"{n_tasks} tasks, {n_samples} samples", file=sys.stderr, flush=True)
        for mode in args.modes:
            row = score_once(joined, args.tasks, args.repos, args.policy, mode, Path(tmp) / f"cache-{mode}")
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    same = len({json.dumps(r["figures"], sort_keys=True) for r in rows}) == 1
    result = {"machine": {"cpus": os.cpu_count(), "loadavg_at_end": list(os.getloadavg())},
              "policy": args.policy, "tasks": n_tasks, "samples": n_samples,
              "same_figures_in_every_mode": same, "runs": rows}
    write_atomic(args.out, json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
