"""What the static checks and the default fixes do to right answers: findings per severity and
rewrites by ``ragcode check --fix`` on the reference answers of a task file.

Every reference is a right answer, so every error or warning on it is a false alarm and every
rewrite the fixes keep is a harm. The goals: no rewrite; an error on at most 1 reference in 100,
a warning on at most 1 in 10.

    python benchmarks/reference_harm.py \\
        --tasks /path/to/mlbench/dev.jsonl --repos repos/ \\
        --tasks outside/tasks.jsonl --repos outside/ --out benchmarks/results/reference_harm.json

``--tasks`` and ``--repos`` come in pairs (the n-th folder holds the n-th file's repositories).
A record names its repository by ML-Bench's ``github_id`` (its pinned folder under the repos
folder), by ``repo`` (``owner/name``: the folder ``name``; or a folder path) or by ``repo_dir``;
where the answer runs by ``path``; the reference by ``reference``, ``output`` or ``answer``; the
task by ``instruction``; ``type`` (``bash`` or ``python``), when given, says what kind of answer an
unfenced reference is. Each reference is checked with the default checks and passed through
``generation.fixes`` kept by the one keep rule (``ragcode.answer.fixes.fix_and_keep``), exactly as
``ragcode check --fix`` does. Prints figures per task file and writes one JSON file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _repo_dir(rec: dict[str, Any], repos: Path) -> Path:
    if rec.get("repo_dir"):
        return Path(rec["repo_dir"])
    if rec.get("github_id") not in (None, ""):
        from ragcode.bench.repos import repo_dir_for

        return repo_dir_for(int(rec["github_id"]), repos)[0]
    repo = str(rec.get("repo") or "")
    if not repo:
        raise SystemExit(f"record {rec.get('id')!r} names no repository (github_id, repo or repo_dir)")
    return Path(repo) if Path(repo).is_absolute() else repos / repo.split("/")[-1]


def read_records(path: Path, repos: Path) -> list[dict[str, Any]]:
    """The task file's records as ``{id, repo_dir, path, instruction, answer}``."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        rec = json.loads(line)
        answer = next((rec[k] for k in ("reference", "output", "answer") if rec.get(k)), "")
        if rec.get("type") in ("bash", "python") and "```" not in answer:  # the record says its kind
            answer = f"```{rec['type']}\n{answer}\n```"
        key = rec.get("id") if "github_id" not in rec else f"{rec['github_id']}/{rec.get('id')}"
        rows.append({"id": str(key if key is not None else n), "repo_dir": _repo_dir(rec, repos),
                     "path": rec.get("path") or ".", "instruction": rec.get("instruction", ""), "answer": answer})
    return rows


def measure(row: dict[str, Any], config: Any, checkers: list[Any]) -> dict[str, Any]:
    """One reference's findings and what ``ragcode check --fix`` makes of it."""
    from ragcode.answer.fixes import fix_and_keep
    from ragcode.check import ERROR, CheckContext, check_answer
    from ragcode.generation.parse import parse_answer

    parsed = parse_answer(row["answer"])
    ctx = CheckContext.for_repo(row["repo_dir"], row["path"], row["instruction"], config)
    found = check_answer(parsed.code, parsed.answer_type, ctx, checkers)
    fixed = fix_and_keep(parsed.code, parsed.answer_type, found, ctx, checkers, config.generation.fixes)
    return {"id": row["id"], "repo": Path(row["repo_dir"]).name, "type": parsed.answer_type,
            "errors": [f"{f.code}: {f.message}" for f in found if f.severity == ERROR],
            "warnings": [f"{f.code}: {f.message}" for f in found if f.severity != ERROR],
            "rewrite": fixed.code if fixed is not None else "",
            "fix_record": {k: v for k, v in fixed.record.items() if v} if fixed is not None else {}}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def codes(kind: str) -> dict[str, int]:
        return dict(Counter(m.split(":", 1)[0] for r in rows for m in r[kind]).most_common())

    return {"references": len(rows),
            "with_error": sum(bool(r["errors"]) for r in rows),
            "with_warning": sum(bool(r["warnings"]) for r in rows),
            "error_findings": sum(len(r["errors"]) for r in rows),
            "warning_findings": sum(len(r["warnings"]) for r in rows),
            "error_codes": codes("errors"), "warning_codes": codes("warnings"),
            "rewritten": sum(bool(r["rewrite"]) for r in rows),
            "rewritten_ids": [r["id"] for r in rows if r["rewrite"]]}


def _print(name: str, fig: dict[str, Any], rows: list[dict[str, Any]], verbose: bool) -> None:
    n = fig["references"] or 1
    print(f"{name}: {fig['references']} references; with an error {fig['with_error']} "
          f"({100 * fig['with_error'] / n:.1f} %), with a warning {fig['with_warning']} "
          f"({100 * fig['with_warning'] / n:.1f} %); findings: {fig['error_findings']} errors, "
          f"{fig['warning_findings']} warnings; rewritten by --fix {fig['rewritten']}")
    print(f"  errors {fig['error_codes']}\n  warnings {fig['warning_codes']}")
    for r in rows:
        if verbose and (r["errors"] or r["warnings"]) or r["rewrite"]:
            print(f"  {r['id']}: " + " | ".join(r["errors"] + r["warnings"])
                  + (f"\n    REWRITE -> {r['rewrite']!r}" if r["rewrite"] else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=Path, action="append", required=True, help="a tasks JSONL (repeatable)")
    ap.add_argument("--repos", type=Path, action="append", required=True,
                    help="the folder of the repositories of the --tasks file at the same position")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/reference_harm.json"))
    ap.add_argument("-v", "--verbose", action="store_true", help="print every finding, not only the rewrites")
    args = ap.parse_args(argv)
    if len(args.tasks) != len(args.repos):
        ap.error("give one --repos per --tasks")
    from ragcode.check import DEFAULT_CHECKS, load_checkers
    from ragcode.config import Config
    from ragcode.fileio import write_json_atomic

    config = Config()
    checkers = load_checkers(list(config.generation.check or DEFAULT_CHECKS), config)
    out: dict[str, Any] = {"checks": [c.name for c in checkers], "fixes": list(config.generation.fixes), "sets": {}}
    for tasks, repos in zip(args.tasks, args.repos):
        rows = [measure(r, config, checkers) for r in read_records(tasks, repos)]
        fig = summary(rows)
        _print(tasks.name if tasks.name not in out["sets"] else str(tasks), fig, rows, args.verbose)
        out["sets"][str(tasks)] = {"figures": fig, "rows": rows}
    write_json_atomic(args.out, out)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
