"""Right answers under the checks: findings, fix rewrites and dry-run verdicts on reference answers.

Two sets of right answers: the outside-ML-Bench tasks (``benchmarks/data/outside/tasks.jsonl``:
public ML repositories at pinned commits, references verified by the parse-only dry run) and
ML-Bench's dev references (``output`` of ``dev.jsonl``). For each reference:

- **findings**: what the default checks (``generation.check``: bash, python, coverage) say; every
  error or warning on a right answer is a false alarm;
- **rewrites**: whether ``ragcode check --fix`` (the fixes checked generation applies, kept by the
  same rule: ``ragcode.answer.fixes.fix_and_keep``) changes it; every
  rewrite of a right answer is a harm; with ``--dryrun`` also whether ``ragcode.dryrun.keeps_fix``
  would let the rewrite through;
- **dry run** (``--dryrun``): accepted / rejected / unreached by the repository's own parser, and
  the findings left when the parser's answers overrule the static guesses
  (``ragcode.dryrun.checker.overrule``).

The bounds (errors on at most 1 in 100 right answers, warnings on at most 1 in 10, no rewrite)
are reported on the references not shown wrong: ``--faults`` lists ML-Bench dev references
checked by hand against the pinned repository (the parser rejects them, the file or function
they call lacks what they use, or they drop a value the instruction gives), each with its
evidence; every other reference counts as right. The list is measurement data only: nothing in
``ragcode`` reads it.

    # the outside repositories checked out at the pinned commits, one folder per repository name
    python benchmarks/outside_set.py --outside benchmarks/data/outside/tasks.jsonl --outside-repos OUT/ \\
        --mlbench dev.jsonl --repos repos/ --dryrun --out results/outside_set.json

Prints a table and writes JSON (figures and one row per reference).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ragcode.fileio import write_json_atomic

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def outside_records(path: Path, repos: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            rows.append({"set": "outside", "id": rec["id"], "repo_dir": repos / rec["repo"].split("/")[1],
                         "path": rec["path"], "instruction": rec["instruction"], "answer": rec["reference"]})
    return rows


def mlbench_records(path: Path, repos: Path) -> list[dict[str, Any]]:
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.repos import repo_dir_for

    rows = []
    for task in load_tasks(path).tasks:
        repo_dir, _folder = repo_dir_for(task, repos)
        rows.append({"set": "mlbench-dev", "id": task.key, "repo_dir": repo_dir, "path": task.path or ".",
                     "instruction": task.instruction, "answer": task.output})
    return rows


def measure(row: dict[str, Any], checkers: list[Any], runner: Any) -> dict[str, Any]:
    from ragcode.check import ERROR, CheckContext, check_answer
    from ragcode.answer.fixes import fix_and_keep
    from ragcode.generation.parse import parse_answer

    parsed = parse_answer(row["answer"])
    code, kind = parsed.code, parsed.answer_type
    ctx = CheckContext(Path(row["repo_dir"]), row["path"], row["instruction"])
    found = check_answer(code, kind, ctx, checkers)
    kept = fix_and_keep(code, kind, found, ctx, checkers)
    fixed = kept.code if kept is not None else code
    rewritten = kept is not None
    out = {"set": row["set"], "id": row["id"], "type": kind,
           "errors": sorted({f.code for f in found if f.severity == ERROR}),
           "warnings": sorted({f.code for f in found if f.severity != ERROR}),
           "messages": [f"{f.severity}: {f.code}: {f.message}" for f in found],
           "rewrite": fixed if rewritten else ""}
    if runner is not None:
        from ragcode.dryrun import dry_run, keeps_fix

        from ragcode.dryrun.checker import overrule

        results = dry_run(code, kind, ctx, runner)
        left = overrule(found, results)
        out["errors_overruled"] = sorted({f.code for f in left if f.severity == ERROR})
        out["warnings_overruled"] = sorted({f.code for f in left if f.severity != ERROR})
        out["dryrun"] = [r.status for r in results]
        out["dryrun_messages"] = [r.message[:200] for r in results if r.status != "accepted"]
        if rewritten:
            from ragcode.bench.parsed import compare

            out["guard_keeps"] = keeps_fix(code, fixed, kind, ctx, runner)
            if results and all(r.status == "accepted" for r in results):  # the parsed policy can judge it
                out["rewrite_parsed_pass"] = all(compare(results, dry_run(fixed, kind, ctx, runner))[0].values())
    return out


def load_faults(path: Path | None) -> dict[str, str]:
    """Reference id -> why it is wrong (``benchmarks/data/mlbench/dev_reference_faults.jsonl``)."""
    if path is None or not path.is_file():
        return {}
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {r["id"]: f"{r['evidence']}: {r['fault']}" for r in rows}


def bounds(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's bounds on right answers: errors <= 1 %, warnings <= 10 %, no rewrite."""
    right = [r for r in rows if not r.get("fault")]
    n = len(right) or 1
    errors, warnings = sum(bool(r["errors"]) for r in right), sum(bool(r["warnings"]) for r in right)
    rewrites = sum(bool(r["rewrite"]) for r in right)
    return {"right": len(right), "shown_wrong": len(rows) - len(right), "errors": errors, "warnings": warnings,
            "rewrites": rewrites, "errors_share": round(errors / n, 3), "warnings_share": round(warnings / n, 3),
            "met": errors / n <= 0.01 and warnings / n <= 0.10 and rewrites == 0,
            "warned": [r["id"] for r in right if r["warnings"]]}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    verdicts: Counter[str] = Counter()
    for r in rows:
        if "dryrun" in r:
            verdicts[_verdict(r["dryrun"])] += 1
    rewrites = [r for r in rows if r["rewrite"]]
    return {
        "n": n,
        "with_error": sum(bool(r["errors"]) for r in rows),
        "with_warning": sum(bool(r["warnings"]) for r in rows),
        "error_codes": dict(Counter(c for r in rows for c in r["errors"]).most_common()),
        "warning_codes": dict(Counter(c for r in rows for c in r["warnings"]).most_common()),
        "with_error_overruled": sum(bool(r.get("errors_overruled")) for r in rows),
        "with_warning_overruled": sum(bool(r.get("warnings_overruled")) for r in rows),
        "rewritten": len(rewrites),
        "rewrites_guard_keeps": sum(bool(r.get("guard_keeps")) for r in rewrites),
        "rewrites_judged_by_parsed": sum("rewrite_parsed_pass" in r for r in rewrites),
        "rewrites_failing_parsed": sum(r.get("rewrite_parsed_pass") is False for r in rewrites),
        "dryrun": dict(verdicts),
        "on_right_answers": bounds(rows),
    }


def _verdict(statuses: list[str]) -> str:
    if not statuses:
        return "no-entry"
    for status in ("rejected", "unreached"):
        if status in statuses:
            return status
    return "accepted"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outside", type=Path, help="outside task file (tasks.jsonl)")
    ap.add_argument("--outside-repos", type=Path, help="folder with one checkout per outside repository name")
    ap.add_argument("--mlbench", type=Path, help="ML-Bench task file whose `output` references are measured")
    ap.add_argument("--repos", type=Path, help="folder with the ML-Bench repositories")
    ap.add_argument("--dryrun", action="store_true", help="also dry-run every reference and guard every rewrite")
    ap.add_argument("--faults", type=Path, default=Path(__file__).parent / "data/mlbench/dev_reference_faults.jsonl",
                    help="references shown wrong by hand (id, evidence, fault); the rest count as right")
    ap.add_argument("--out", type=Path, default=Path("results/outside_set.json"))
    args = ap.parse_args(argv)
    from ragcode.check import DEFAULT_CHECKS, load_checkers
    from ragcode.config import Config

    config = Config()
    checkers = load_checkers(list(config.generation.check or DEFAULT_CHECKS), config)
    runner = None
    if args.dryrun:
        from ragcode.dryrun.sandbox import DryRunner

        runner = DryRunner(config.execution.model_copy(update={"memory_mb": 16384}), timeout_s=60)
    rows: list[dict[str, Any]] = []
    if args.outside:
        rows += outside_records(args.outside, args.outside_repos or Path("."))
    if args.mlbench:
        rows += mlbench_records(args.mlbench, args.repos or Path("repos"))
    faults = load_faults(args.faults)
    measured = [{**measure(r, checkers, runner), "fault": faults.get(r["id"], "") if r["set"] == "mlbench-dev" else ""}
                for r in rows]
    sets = {s: summary([r for r in measured if r["set"] == s]) for s in dict.fromkeys(r["set"] for r in measured)}
    for name, figures in sets.items():
        print(f"{name}: {figures['n']} references; with an error {figures['with_error']}, with a warning "
              f"{figures['with_warning']}; rewritten by --fix {figures['rewritten']}"
              + (f" (guard keeps {figures['rewrites_guard_keeps']}; the parsed policy fails "
                 f"{figures['rewrites_failing_parsed']} of the {figures['rewrites_judged_by_parsed']} it can judge); "
                 f"dry run {figures['dryrun']}" if args.dryrun else ""))
        print(f"  errors {figures['error_codes']}\n  warnings {figures['warning_codes']}")
        b = figures["on_right_answers"]
        print(f"  on the {b['right']} right answers ({b['shown_wrong']} shown wrong): with an error {b['errors']} "
              f"({b['errors_share']:.1%}), with a warning {b['warnings']} ({b['warnings_share']:.1%}), rewritten "
              f"{b['rewrites']}; bounds (<= 1 %, <= 10 %, 0) {'met' if b['met'] else 'NOT met'}")
        if args.dryrun:
            print(f"  with the parser's answers overruling static guesses (dryrun.checker.overrule): with an error "
                  f"{figures['with_error_overruled']}, with a warning {figures['with_warning_overruled']}")
    write_json_atomic(args.out, {"sets": sets, "rows": measured, "checks": list(config.generation.check)})
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
