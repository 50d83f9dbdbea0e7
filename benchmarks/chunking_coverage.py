"""How well chunking covers what ML-Bench answers need: scripts, their flags, README links.

For every task of a task file whose reference answer runs a script (``python x.py ...``,
``bash x.sh``), resolve that script under the task's ``path`` and check, in the chunks of the
checked-out repository: the script was walked; it has a ``cli`` chunk; every ``--flag`` of the
reference answer is one that chunk lists; a documentation chunk links to it. Also prints per
repository: files, chunks by kind, skipped by reason, seconds. The answers are only read to
measure; nothing here feeds back into chunking.

    python benchmarks/chunking_coverage.py [--tasks ../shared/data/mlbench/dev.jsonl]
                                           [--repos repos/]
"""

from __future__ import annotations

import argparse
import json
import posixpath
import time
from collections import Counter, defaultdict
from pathlib import Path

from ragcode.bench.repos import repo_for
from ragcode.chunking import chunk_repo
from ragcode.config import ChunkingConfig
from ragcode.shell import script_calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default="../shared/data/mlbench/dev.jsonl")
    ap.add_argument("--repos", default="repos")
    args = ap.parse_args()
    tasks = [json.loads(line) for line in Path(args.tasks).read_text().splitlines() if line]
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for t in tasks:
        by_repo[repo_for(t["github_id"]).folder].append(t)
    totals: Counter[str] = Counter()
    for folder in sorted(by_repo):
        root = Path(args.repos) / folder
        if not root.is_dir():
            print(f"{folder}: not checked out, skipped")
            continue
        t0 = time.perf_counter()
        result = chunk_repo(root, ChunkingConfig())
        secs = time.perf_counter() - t0
        chunks = result.all_chunks()
        cli = {c.metadata["script"]: c for c in chunks if c.kind == "cli"}
        linked: dict[str, set[str]] = {}  # script -> scripts whose cli chunks are linked
        for c in chunks:
            for cmd in c.metadata.get("commands", []):
                if cmd["script"]:
                    linked.setdefault(cmd["script"], set()).update(cmd["flags_from"])
        paths = {f.path for f in result.files}
        counts: Counter[str] = Counter()
        for t in by_repo[folder]:
            counts["tasks"] += 1
            calls = script_calls(t["output"])  # the first script the answer runs
            if not calls or calls[0].kind == "module":
                continue
            target, rest = calls[0].target, calls[0].args
            counts["script_answers"] += 1
            base = t["path"].strip().lstrip("./").rstrip("/")
            script = posixpath.normpath(posixpath.join(base, target))
            if script not in paths:
                continue
            counts["script_walked"] += 1
            if script in linked:
                counts["doc_linked"] += 1
            sources = [script] if script in cli else sorted(linked.get(script, ()))
            if script in cli:
                counts["own_cli_chunk"] += 1
            if sources:
                counts["cli_chunk_or_imported"] += 1
                known = {n for s in sources for f in cli[s].metadata["flags"]
                         for n in [f["name"], *f["aliases"]]}
                used = {w.split("=", 1)[0] for w in rest if w.startswith("-")}
                counts["flags_all_known"] += used <= known
        totals.update(counts)
        print(f"{folder}: {len(result.files)} files, {len(chunks)} chunks "
              f"{dict(result.counts_by_kind())}, skipped {dict(result.skipped)}, {secs:.1f}s")
        print(f"    tasks {dict(counts)}")
    print(f"ALL: {dict(totals)}")


if __name__ == "__main__":
    main()
