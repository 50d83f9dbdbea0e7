"""Agent mode vs single-shot on ML-Bench tasks: answers, where they came from, and what they cost.

    # single-shot with our retrieval, and the agent over the same indexes (n = 5 episodes)
    ragcode mlbench run --tasks dev.jsonl --repos repos/ --setting ragcode -n 5 --out runs/single/
    ragcode mlbench run --tasks dev.jsonl --repos repos/ --setting agent -n 5 --out runs/agent/
    # a served model with native tool calls (vLLM, llama.cpp server, any OpenAI-compatible API):
    ragcode mlbench run ... --setting agent --llm openai --model MODEL \\
        --set generation.llm.base_url=http://127.0.0.1:8000/v1 --set generation.llm.n_ctx=32768
    # the scorer's view, then this table
    ragcode mlbench score runs/agent/ --tasks dev.jsonl --repos repos/ --policy static
    python benchmarks/agent_dev.py --tasks dev.jsonl runs/single/ runs/agent/
    ragcode mlbench show runs/agent/ --task 1:100         # one task's episodes, step by step

Per run: ML-Bench's two text checks (every argument value, lower-cased, a substring of the
answer, and the answer type right) at pass@1 (the first sample) and pass@n (any sample), seconds
per task; for agent runs also, per episode, the mean steps, tokens and seconds, why episodes
stopped (submitted / max_steps / max_tokens / max_seconds), where answers came from (submit /
best-check / best-run / single-shot), the tools called, and the share of steps whose call was
malformed or refused. The task's arguments and type are read only here, to score; nothing of
them reached the model. Prints a table and writes JSON next to each run (``agent_dev.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from ragcode.fileio import write_atomic

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def summarize(run: Path, tasks: dict) -> dict:
    from ragcode.bench.legacy import arguments_ok, type_ok

    recs = [r for r in _lines(run / "samples.jsonl") if r.get("key") in tasks]
    out: dict = {"run": str(run), "setting": (json.loads((run / "run.json").read_text()).get("setting")
                                               if (run / "run.json").exists() else "?"),
                 "tasks": len(recs)}
    p1 = pn = 0
    seconds = 0.0
    stops: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    episodes = steps = tokens = bad_steps = 0
    ep_seconds = 0.0
    for rec in recs:
        task = tasks[rec["key"]]
        codes = rec.get("output") or [""]
        ok = [arguments_ok(c, task.arguments) and type_ok(c, task.type) for c in codes]
        p1 += ok[0]
        pn += any(ok)
        seconds += rec.get("seconds") or 0
        for cand in rec.get("candidates", []):
            agent = cand.get("metadata", {}).get("agent")
            if not agent:
                continue
            episodes += 1
            steps += agent.get("steps", 0)
            tokens += agent.get("tokens", 0)
            ep_seconds += agent.get("seconds", 0)
            stops[agent.get("stop", "?")] += 1
            sources[agent.get("source", "?")] += 1
        for line in _lines(run / "trajectories" / f"{_safe(rec['key'])}.jsonl"):
            if line.get("type") == "step":
                tools[(line.get("call") or {}).get("name") or "(none)"] += 1
                bad_steps += bool(line.get("error"))
    n = len(recs) or 1
    out.update({"pass@1": round(p1 / n, 3), "pass@n": round(pn / n, 3), "seconds_per_task": round(seconds / n, 1)})
    if episodes:
        out.update({"episodes": episodes, "steps_per_episode": round(steps / episodes, 2),
                    "tokens_per_episode": round(tokens / episodes), "seconds_per_episode": round(ep_seconds / episodes, 1),
                    "stops": dict(stops), "sources": dict(sources), "tools": dict(tools.most_common()),
                    "bad_step_share": round(bad_steps / max(1, sum(tools.values())), 3)})
    return out


def _safe(key: str) -> str:
    from ragcode.agent.trajectory import safe_name

    return safe_name(key)


def main(argv: list[str] | None = None) -> int:
    from ragcode.bench.dataset import load_tasks

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--tasks", required=True)
    args = ap.parse_args(argv)
    tasks = {t.key: t for t in load_tasks(args.tasks).tasks}
    rows = [summarize(run, tasks) for run in args.runs]
    print("| run | setting | tasks | pass@1 | pass@n | s/task | steps/ep. | tokens/ep. | stops | sources |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        print(f"| {r['run']} | {r['setting']} | {r['tasks']} | {r['pass@1']:.3f} | {r['pass@n']:.3f} | "
              f"{r['seconds_per_task']} | {r.get('steps_per_episode', '')} | {r.get('tokens_per_episode', '')} | "
              f"{r.get('stops', '')} | {r.get('sources', '')} |")
        write_atomic(Path(r["run"]) / "agent_dev.json", json.dumps(r, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
