"""Replay the dev tasks' stored answers through the checks, selection and fixes, and write
everything they produce as one JSON file, so two commits can be compared on real repositories.

    python benchmarks/dev_replay.py --data /path/to/mlbench --repos repos/ --out results/dev_replay.json
    git stash; python benchmarks/dev_replay.py ... --out results/before.json; git stash pop
    cmp results/before.json results/dev_replay.json

The answers are each task's reference output and, where ``reference_outputs/
mlagent_agent_pass5_output.jsonl`` has them, ML-Agent's five outputs (ranked and the first fixed,
as checked generation would). Per answer: its findings, and what the fixes make of it; per task
with five outputs: the order chosen and the answer returned (``--parsed``: and whether it passes the
``parsed`` policy). ``--check``/``--fixes`` replay other checks or fix steps (``--check parse``: with
the dry run, as checked generation has it). Prints counts by finding code and by fix, and the hash
of the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def _findings(fs: list[Any]) -> list[str]:
    return [f"{f.code}|{f.severity}|{f.line}|{f.target}|{f.suggestion}|{f.message}" for f in fs]


def _task(task: Any, texts: list[str], repos: Path, checkers: list[Any], fixes: tuple[str, ...] | None = None,
          scorer: Any = None, fix_each: bool = False) -> dict[str, Any]:
    from ragcode.answer.fixes import fix_answer
    from ragcode.answer.pipeline import choose
    from ragcode.answer.run import CheckedRun
    from ragcode.bench.repos import repo_dir_for
    from ragcode.check import CheckContext, check_answer
    from ragcode.generation.generate import to_candidate
    from ragcode.generation.parse import parse_answer

    repo, _ = repo_dir_for(task, repos)
    ctx = CheckContext(repo, task.path or ".", task.instruction)
    rows = []
    for text in texts:
        parsed = parse_answer(text)
        fs = check_answer(parsed.code, parsed.answer_type, ctx, checkers)
        code, fixed_fs, record = fix_answer(parsed.code, parsed.answer_type, fs, ctx, checkers,
                                            *([fixes] if fixes is not None else []))
        rows.append({"findings": _findings(fs), "fixed": code, "fixed_findings": _findings(fixed_fs), "record": record})
    entry: dict[str, Any] = {"answers": rows}
    samples = [to_candidate(t, i, {}) for i, t in enumerate(texts[1:])]
    if samples:  # ranked and fixed as checked generation does (ragcode.answer.pipeline.choose)
        run = CheckedRun(ctx, checkers, autofix=True, fix_each=fix_each, **({"fixes": fixes} if fixes is not None else {}))
        ranked, _ = choose(samples, run)
        chosen = ranked[0]
        entry.update(order=[c.metadata["check"]["original_index"] for c in ranked], chosen=chosen.code)
        if scorer is not None:  # --parsed: the chosen answer under the strict policy, read as generation read it
            entry["chosen_parsed"] = scorer(task, f"```{chosen.answer_type}\n{chosen.code}\n```")
    return entry


def _parsed_scorer(repos: Path) -> Any:
    """``(task, answer) -> passed`` under the ``parsed`` policy."""
    from types import SimpleNamespace

    from ragcode.bench.parsed import ParsedScorer
    from ragcode.config import Config

    scorer, ctx = ParsedScorer(), SimpleNamespace(repos_dir=repos, config=Config())
    return lambda task, answer: scorer.score_sample(task, answer, 0, ctx).passed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="folder with dev.jsonl and reference_outputs/")
    p.add_argument("--repos", required=True, help="folder of the pinned repositories")
    p.add_argument("--out", default="benchmarks/results/dev_replay.json")
    p.add_argument("--check", action="append", default=[], help="a checker (repeat; default: the static checks "
                   "bash, python, coverage); --check parse adds the dry run, as checked generation has it")
    p.add_argument("--fixes", default=None, help="the fix steps, comma-separated (default: generation.fixes' default)")
    p.add_argument("--parsed", action="store_true", help="also score each chosen answer under the parsed policy")
    p.add_argument("--fix-each", action="store_true", help="fix every output before ranking (generation.fix_each)")
    args = p.parse_args(argv)
    from ragcode.bench.dataset import load_tasks
    from ragcode.check import DEFAULT_CHECKS, load_checkers
    from ragcode.fileio import write_atomic

    data = Path(args.data)
    outputs: dict[tuple[int, Any], list[str]] = {}
    five = data / "reference_outputs" / "mlagent_agent_pass5_output.jsonl"
    for line in (five.read_text().splitlines() if five.is_file() else []):
        rec = json.loads(line)
        outputs[(rec["github_id"], rec["id"])] = rec["output"]
    checkers = load_checkers(args.check or list(DEFAULT_CHECKS))
    fixes = tuple(x for x in args.fixes.split(",") if x) if args.fixes else None
    scorer = _parsed_scorer(Path(args.repos)) if args.parsed else None
    result = {task.key: _task(task, [task.output, *outputs.get((task.github_id, task.id), [])], Path(args.repos),
                              checkers, fixes, scorer, args.fix_each) for task in load_tasks(str(data / "dev.jsonl")).tasks}
    text = json.dumps(result, sort_keys=True, indent=1) + "\n"
    write_atomic(Path(args.out), text)
    codes = Counter(f.split("|")[0] for e in result.values() for a in e["answers"] for f in a["findings"])
    fixes = Counter(k for e in result.values() for a in e["answers"] for k, v in a["record"].items() if v)
    answers = sum(len(e["answers"]) for e in result.values())
    print(f"{len(result)} tasks, {answers} answers, {sum('chosen' in e for e in result.values())} ranked")
    print(f"findings by code: {dict(codes.most_common())}\nfixes: {dict(fixes.most_common())}")
    if scorer is not None:
        judged = [e["chosen_parsed"] for e in result.values() if "chosen_parsed" in e]
        print(f"chosen answers passing the parsed policy: {sum(judged)}/{len(judged)}")
    print(f"sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
