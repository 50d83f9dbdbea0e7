"""Verify an outside task set: dry-run every reference against its repository's own parser.

Reads a task file in the outside format (``benchmarks/data/outside/README.md``: one JSON record
per line with ``id``, ``repo``, ``path``, ``type``, ``reference``...) and a folder holding one
checkout per repository name (``DIR/nanoGPT`` for ``karpathy/nanoGPT``, each at the task's pinned
``commit``). Every reference goes through the parse-only dry run (``ragcode.dryrun``, in the
bubblewrap sandbox); a table gives, per task, the verdict (accepted / rejected / unreached, or
no-entry when the reference runs no Python entry point), the parser that read it and the
parameters it sets (``ragcode.bench.parsed.set_params``: changed from their defaults, or a Python
answer's call arguments).

    python benchmarks/outside_verify.py --tasks benchmarks/data/unseen/tasks.jsonl --repos DIR
    python benchmarks/outside_verify.py --tasks ... --repos DIR --write   # fill params and dryrun

``--write`` rewrites the task file in place (atomically) with ``params`` and ``dryrun`` taken
from each accepted parse, keeping every other field and the line order. Exit status: 0 when every
reference is accepted, 1 when any is not (the file is then written only for the accepted ones),
2 on bad input (a missing or malformed task file, a missing checkout, no sandbox), said in one line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

FIELDS = ("id", "repo", "path", "type", "instruction", "reference")


class BadInput(Exception):
    pass


def read_tasks(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read task file {path}: {exc}") from None
    tasks, seen = [], set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise BadInput(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(rec, dict):
            raise BadInput(f"{path}:{number}: a record must be a JSON object")
        missing = [f for f in FIELDS if not isinstance(rec.get(f), str) or not rec.get(f)]
        if missing:
            raise BadInput(f"{path}:{number}: missing or empty field(s) {', '.join(missing)}")
        if rec["type"] not in ("bash", "python"):
            raise BadInput(f"{path}:{number}: type must be bash or python, not {rec['type']!r}")
        if "/" not in rec["repo"]:
            raise BadInput(f"{path}:{number}: repo must be owner/name, not {rec['repo']!r}")
        if rec["id"] in seen:
            raise BadInput(f"{path}:{number}: duplicate id {rec['id']!r}")
        seen.add(rec["id"])
        tasks.append(rec)
    if not tasks:
        raise BadInput(f"no tasks in {path}")
    return tasks


def repo_dir(rec: dict[str, Any], repos: Path) -> Path:
    return repos / rec["repo"].split("/", 1)[1]


def verdict(results: list[Any]) -> str:
    if not results:
        return "no-entry"
    for status in ("rejected", "unreached"):
        if any(r.status == status for r in results):
            return status
    return "accepted"


def verify(rec: dict[str, Any], repos: Path, runner: Any) -> dict[str, Any]:
    """The dry run's word on one task's reference: verdict, parser, params, messages."""
    from ragcode.bench.parsed import set_params
    from ragcode.check import CheckContext
    from ragcode.dryrun import dry_run

    ctx = CheckContext(repo_dir(rec, repos), rec["path"], rec["instruction"])
    results = dry_run(rec["reference"], rec["type"], ctx, runner)
    params: dict[str, Any] = {}
    for r in results:
        params.update(set_params(r))
    parsers = list(dict.fromkeys(r.parser or "?" for r in results))
    return {"id": rec["id"], "status": verdict(results), "parser": "+".join(parsers), "params": params,
            "messages": [f"{r.status}: {r.message.strip()[:300]}" for r in results if r.status != "accepted"]}


def _short(params: dict[str, Any], width: int = 110) -> str:
    text = json.dumps(params, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def write_tasks(path: Path, tasks: list[dict[str, Any]], rows: dict[str, dict[str, Any]]) -> int:
    """Fill ``params`` and ``dryrun`` of every accepted task; the other fields and order are kept."""
    from ragcode.fileio import write_atomic

    changed, out = 0, []
    for rec in tasks:
        row = rows.get(rec["id"])
        if row is not None and row["status"] == "accepted":
            new = {**rec, "params": row["params"], "dryrun": row["parser"]}
            changed += new != rec
            rec = new
        out.append(json.dumps(rec, ensure_ascii=False))
    write_atomic(path, "\n".join(out) + "\n")
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", type=Path, required=True, help="task file (JSON lines, the outside format)")
    ap.add_argument("--repos", type=Path, required=True, help="folder with one checkout per repository name")
    ap.add_argument("--write", action="store_true", help="fill params and dryrun of the accepted tasks in place")
    ap.add_argument("--only", nargs="*", default=[], help="verify only these task ids")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds one parse may take (default 60)")
    ap.add_argument("--cache-dir", type=Path, default=None, help="dry-run result cache (default ~/.cache/ragcode)")
    args = ap.parse_args(argv)
    try:
        tasks = read_tasks(args.tasks)
        if not args.repos.is_dir():
            raise BadInput(f"no repository folder {args.repos}")
        unknown = sorted(set(args.only) - {t["id"] for t in tasks})
        if unknown:
            raise BadInput(f"unknown task id(s): {', '.join(unknown)}")
        chosen = [t for t in tasks if not args.only or t["id"] in args.only]
        absent = sorted({str(repo_dir(t, args.repos)) for t in chosen if not repo_dir(t, args.repos).is_dir()})
        if absent:
            raise BadInput(f"checkout(s) missing: {', '.join(absent)}")
        from ragcode.execution.bwrap import bwrap_works

        if not bwrap_works():
            raise BadInput("bubblewrap cannot run here: no sandbox for the dry run")
    except BadInput as exc:
        print(f"outside_verify: {exc}", file=sys.stderr)
        return 2
    from ragcode.config import Config
    from ragcode.dryrun.sandbox import DryRunner

    execution = Config().execution.model_copy(update={"memory_mb": 16384})
    runner = DryRunner(execution, cache_dir=args.cache_dir, timeout_s=args.timeout)
    rows: dict[str, dict[str, Any]] = {}
    print(f"{'id':28} {'status':10} {'parser':13} params")
    for rec in chosen:
        row = verify(rec, args.repos, runner)
        rows[rec["id"]] = row
        print(f"{row['id']:28} {row['status']:10} {row['parser']:13} {_short(row['params'])}", flush=True)
        for message in row["messages"]:
            print(f"{'':28} {message}")
    bad = [r["id"] for r in rows.values() if r["status"] != "accepted"]
    kinds: dict[str, int] = {}
    for rec in chosen:
        kinds[rec["type"]] = kinds.get(rec["type"], 0) + 1
    print(f"{len(rows)} references ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}) on "
          f"{len({t['repo'] for t in chosen})} repositories: accepted {len(rows) - len(bad)}"
          + (f", not accepted {len(bad)}: {' '.join(bad)}" if bad else ""))
    if args.write:
        changed = write_tasks(args.tasks, tasks, rows)
        print(f"wrote {args.tasks}: params and dryrun changed on {changed} task(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
