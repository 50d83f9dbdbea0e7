"""Wall time of a scripted ``mlbench run`` with ``--workers 1``, ``--workers 2`` and ``--ray local``.

    python benchmarks/scale_walltime.py [--tasks 1000] [--latency-ms 0 50] [--modes w1 w2 ray]
        [--out benchmarks/results/scale_walltime.json]

Builds ``--tasks`` fixture tasks on a one-file fixture repository (oracle setting, n=5), then runs
the real command line (a fresh interpreter each time, so start-up, Ray's included, counts) once
per mode and per model: ``scripted`` answers at once; ``--latency-ms L`` is a scripted model that
waits L ms per call, as an API model does. Each run writes its own folder; the script checks
that every folder holds every task exactly once. The JSON records the CPU count and load.
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

from ragcode.fileio import write_atomic
from ragcode.generation.backends.scripted import ScriptedLLM

MODES = {"w1": ["--workers", "1"], "w2": ["--workers", "2"], "ray": ["--ray", "local", "--workers", "2"]}
ANSWER = "```bash\npython train.py --dataset citeseer\n```"


class SleepyLLM(ScriptedLLM):
    """The scripted model, waiting ``$RAGCODE_BENCH_LATENCY_MS`` per call (an API's latency)."""

    def generate(self, messages, n, sampling):  # noqa: ANN001
        time.sleep(float(os.environ.get("RAGCODE_BENCH_LATENCY_MS", "0")) / 1000)
        return super().generate(messages, n, sampling)


def make_tasks(root: Path, count: int) -> tuple[Path, Path]:
    repo = root / "repos" / "dgl"
    (repo / "examples" / "gcn").mkdir(parents=True)
    (repo / "README.md").write_text("# demo\nRun `python train.py --dataset cora`.\n")
    (repo / "examples" / "gcn" / "train.py").write_text("print('trained')\n")
    rows = [{"github_id": 1, "github": "https://github.com/dmlc/dgl", "repo_id": i, "id": 100 + i,
             "path": "./examples/gcn", "arguments": "{'dataset': 'citeseer'}",
             "instruction": f"Train a GCN on citeseer (variant {i}).", "oracle": "python train.py --dataset cora",
             "type": "Bash Script", "output": "python train.py --dataset citeseer", "prefix_code": ""}
            for i in range(count)]
    tasks = root / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tasks, root / "repos"


def run_once(tasks: Path, repos: Path, out: Path, mode: str, latency_ms: float) -> dict:
    llm = "scripted" if not latency_ms else "scale_walltime:SleepyLLM"
    argv = [sys.executable, "-c", "import sys; from ragcode.cli import main; main(sys.argv[1:])",
            "mlbench", "run", "--tasks", str(tasks), "--repos", str(repos), "--out", str(out),
            "--setting", "oracle", "--llm", llm, "-n", "5", "-q", *MODES[mode],
            "--set", f"generation.llm.scripted_answers={json.dumps([ANSWER])}",
            "--set", "scale.max_local_models=2"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]),
               RAGCODE_BENCH_LATENCY_MS=str(latency_ms), HF_HUB_OFFLINE="1")
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed: {proc.stderr[-2000:]}")
    keys = [json.loads(x)["key"] for x in (out / "samples.jsonl").read_text().splitlines()]
    assert len(keys) == len(set(keys)), "a task was written twice"
    return {"mode": mode, "latency_ms": latency_ms, "tasks": len(keys), "wall_s": round(wall, 2),
            "tasks_per_s": round(len(keys) / wall, 1), "load_at_start": round(load, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--latency-ms", type=float, nargs="+", default=[0.0])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    ap.add_argument("--out", default="benchmarks/results/scale_walltime.json")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ragcode-scale-") as tmp:
        tasks, repos = make_tasks(Path(tmp), args.tasks)
        for latency in args.latency_ms:
            for mode in args.modes:
                row = run_once(tasks, repos, Path(tmp) / f"run-{mode}-{latency}", mode, latency)
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
    result = {"machine": {"cpus": os.cpu_count(), "loadavg_at_end": list(os.getloadavg())}, "runs": rows}
    write_atomic(args.out, json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
