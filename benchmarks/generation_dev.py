"""Generation on ML-Bench dev tasks with the default local model: ML-Bench's two text checks,
tokens/s and time per task.

    python benchmarks/generation_dev.py [--tasks dev.jsonl] [--repos repos/]
        [--setting oracle] [--per-repo 1] [--n 5] [--set generation.llm.max_tokens=192]
        [--out benchmarks/results/generation_dev_oracle.json]

For each task (``--per-repo`` first tasks of every repository, or all with 0) it builds the
setting's context (``ragcode.bench.settings.ContextBuilder``: none / readme / bm25 / ragcode /
oracle), draws ``n`` samples, and applies ML-Bench's first two checks to each parsed answer:
(a) every argument value, lower-cased, is a substring of the lower-cased answer; (b) the type
matches (a bash answer contains ".sh " or ".py ", a python answer contains neither). It reports
the share of samples passing (a), (b) and both, the share of tasks whose first sample / any
sample passes both, generated tokens per second (answer tokens / generation wall time, prompt
evaluation included) and seconds per task. Per-task rows are appended to ``<out>.jsonl`` as they
finish, so an interrupted run resumes; the summary JSON is rewritten at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from ragcode.fileio import write_atomic

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="../shared/data/mlbench/dev.jsonl")
    ap.add_argument("--repos", default="repos")
    ap.add_argument("--setting", default="oracle", choices=["none", "readme", "bm25", "ragcode", "oracle"])
    ap.add_argument("--per-repo", type=int, default=1, help="first K tasks of each repository (0 = all)")
    ap.add_argument("--n", type=int, default=5)
    ap.add_argument("--set", action="append", default=[], help="config override section.field=value")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)

    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.legacy import arguments_ok, type_ok
    from ragcode.bench.settings import ContextBuilder
    from ragcode.config import load_config
    from ragcode.generation.generate import generate_candidates
    from ragcode.generation.llm import Sampling, load_llm

    cfg = load_config(overrides=args.set)
    out = Path(args.out or f"benchmarks/results/generation_dev_{args.setting}.json")
    rows_path = out.with_suffix(".jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)

    tasks = list(load_tasks(args.tasks).tasks)
    if args.per_repo:
        seen: dict[int, int] = {}
        picked = []
        for t in tasks:
            if seen.get(t.github_id, 0) < args.per_repo:
                seen[t.github_id] = seen.get(t.github_id, 0) + 1
                picked.append(t)
        tasks = picked
    done = {}
    if rows_path.exists():
        for line in rows_path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["task"]] = row
    t0 = time.perf_counter()
    llm = load_llm(cfg)
    load_s = time.perf_counter() - t0
    gen = cfg.generation
    sampling = Sampling.from_config(gen.llm)
    builder = ContextBuilder(args.setting, args.repos, cfg)
    print(f"{llm.model_id}: loaded in {load_s:.1f}s; {len(tasks)} tasks, {len(done)} done", file=sys.stderr)
    try:
        for i, task in enumerate(tasks, 1):
            if task.key in done:
                continue
            started = time.perf_counter()
            context = builder.build(task)
            cands = generate_candidates(task.instruction, context, llm, n=args.n, template=gen.template,
                                        sampling=sampling, context_tokens=gen.context_tokens)
            seconds = time.perf_counter() - started
            samples = [{"code": c.code, "text": c.text[:600], "answer_type": c.answer_type,
                        "args_ok": arguments_ok(c.code, task.arguments),
                        "type_ok": type_ok(c.code, task.type),
                        "answer_tokens": c.metadata["answer_tokens"]} for c in cands]
            row = {"task": task.key, "type": task.type, "seconds": round(seconds, 2),
                   "gen_seconds": cands[0].metadata["seconds"],
                   "prompt_tokens": cands[0].metadata["prompt_tokens"],
                   "context_truncated": cands[0].metadata["context_truncated"], "samples": samples}
            with rows_path.open("a") as f:
                f.write(json.dumps(row) + "\n")
            done[task.key] = row
            both = sum(s["args_ok"] and s["type_ok"] for s in samples)
            print(f"[{i}/{len(tasks)}] {task.key} {seconds:.1f}s both-ok {both}/{len(samples)}", file=sys.stderr)
    finally:
        builder.close()

    rows = [done[t.key] for t in tasks if t.key in done]
    samples = [s for r in rows for s in r["samples"]]
    gen_s = sum(r["gen_seconds"] for r in rows)
    share = lambda xs: round(sum(xs) / len(xs), 4) if xs else None  # noqa: E731
    summary = {
        "model": llm.model_id, "setting": args.setting, "template": gen.template,
        "sampling": sampling.to_dict(), "n": args.n, "context_tokens": gen.context_tokens,
        "tasks": len(rows), "samples": len(samples),
        "type_ok": share([s["type_ok"] for s in samples]),
        "args_ok": share([s["args_ok"] for s in samples]),
        "both_ok": share([s["args_ok"] and s["type_ok"] for s in samples]),
        "tasks_first_sample_both_ok": share([r["samples"][0]["args_ok"] and r["samples"][0]["type_ok"] for r in rows]),
        "tasks_any_sample_both_ok": share([any(s["args_ok"] and s["type_ok"] for s in r["samples"]) for r in rows]),
        "answer_type_bash_share": share([s["answer_type"] == "bash" for s in samples]),
        "tokens_per_s": round(sum(s["answer_tokens"] for s in samples) / gen_s, 2) if gen_s else None,
        "seconds_per_task": round(sum(r["seconds"] for r in rows) / len(rows), 2) if rows else None,
        "prompt_tokens_mean": round(sum(r["prompt_tokens"] for r in rows) / len(rows), 1) if rows else None,
        "model_load_s": round(load_s, 1),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_at_end": list(os.getloadavg())},
    }
    write_atomic(out, json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
