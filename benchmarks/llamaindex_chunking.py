"""Chunking ablation: ragcode's chunkers vs LlamaIndex's, by the oracle measure of issue 3.

Each variant differs only in ``chunking.*`` (which chunker a file kind gets); everything else is
the defaults plus ``--set`` overrides (BM25 by default: ``embedder.enabled=false``,
``retrieval.mode=bm25``). For each variant it runs ``ragcode mlbench retrieve``'s
``run_retrieve`` on the task file, with its own index root, and prints one markdown table:
found rate and mean normalized oracle coverage (``bench/oracle_measure.py``), chunk counts and
mean chunk size, plus a per-repository found-rate table. Runs are resumable (existing outputs
are re-scored, not re-retrieved); pass ``--fresh`` to start over.

    python benchmarks/llamaindex_chunking.py --work /tmp/indexes-li \\
        [--tasks ../shared/data/mlbench/dev.jsonl] [--repos repos/] \\
        [--variants ragcode li-markdown li-code li-both li-pure] [--set retrieval.mode=hybrid ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
from pathlib import Path
from typing import Any

from ragcode.config import Config, load_config, parse_override

DEFAULT_CHUNKERS = Config().chunking.chunkers
VARIANTS: dict[str, dict[str, Any]] = {
    "ragcode": {},
    "li-markdown": {"chunkers": {"markdown": "llamaindex-markdown"}},
    "li-code": {"chunkers": {"python": "llamaindex-code"}},
    "li-both": {"chunkers": {"markdown": "llamaindex-markdown", "python": "llamaindex-code"}},
    # LlamaIndex's chunkers and no ragcode CLI tables or README-command links
    "li-pure": {"chunkers": {"markdown": "llamaindex-markdown", "python": "llamaindex-code"},
                "cli": {"enabled": False, "link_readme_commands": False}},
}
DESCRIPTIONS = {
    "ragcode": "ragcode: markdown sections + tree-sitter units + CLI tables",
    "li-markdown": "MarkdownNodeParser for .md, ragcode for the rest",
    "li-code": "CodeSplitter for .py, ragcode for the rest (CLI tables kept)",
    "li-both": "MarkdownNodeParser + CodeSplitter (CLI tables kept)",
    "li-pure": "MarkdownNodeParser + CodeSplitter, no CLI tables/links",
}


def variant_config(name: str, overrides: list[str]) -> Config:
    data: dict[str, Any] = {}
    for key, value in map(parse_override, overrides):
        data[key] = value
    extra = VARIANTS[name]
    data["chunking.chunkers"] = {**DEFAULT_CHUNKERS, **extra.get("chunkers", {})}
    for key, value in extra.get("cli", {}).items():
        data[f"chunking.cli.{key}"] = value
    return load_config(overrides=data)


def chunk_stats(index_root: Path) -> tuple[int, float]:
    """(chunks, mean chunk characters) over every repository index under ``index_root``."""
    count, sizes = 0, []
    for manifest in index_root.glob("*/manifest.json"):
        store = manifest.parent / json.loads(manifest.read_text())["chunk_store"]
        with sqlite3.connect(str(store)) as db:
            rows = db.execute("SELECT length(text) FROM chunks").fetchall()
        count += len(rows)
        sizes += [r[0] for r in rows]
    return count, (statistics.fmean(sizes) if sizes else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True, help="Folder for indexes and outputs (outside the repo).")
    ap.add_argument("--tasks", default="../shared/data/mlbench/dev.jsonl")
    ap.add_argument("--repos", default="repos")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--set", dest="overrides", action="append",
                    default=None, help="Config override for every variant (repeatable).")
    ap.add_argument("--fresh", action="store_true", help="Delete earlier outputs and indexes.")
    args = ap.parse_args()
    overrides = args.overrides or ["embedder.enabled=false", "retrieval.mode=bm25"]

    from ragcode.bench.retrieve import run_retrieve

    work = Path(args.work)
    rows, per_repo = [], {}
    for name in args.variants:
        cfg = variant_config(name, overrides)
        out, index_root = work / "runs" / f"{name}.jsonl", work / f"idx-{name}"
        if args.fresh:
            out.unlink(missing_ok=True)
            shutil.rmtree(index_root, ignore_errors=True)
        cfg.index.root = str(index_root)
        report = run_retrieve(args.tasks, args.repos, out, cfg)
        rag, base = report.overall()
        chunks, mean_chars = chunk_stats(index_root)
        rows.append((name, rag, base, chunks, mean_chars, report.p50_seconds()))
        per_repo[name] = {folder: r for folder, (r, _b) in report.by_repo().items()}
        print(f"{name}: found {rag.found_rate:.3f}, norm.cov {rag.mean_normalized:.3f}", flush=True)

    print(f"\nsettings: {' '.join(overrides)}; budget {cfg.context.budget} {cfg.context.unit}; "
          f"tasks: {args.tasks}\n")
    print("| variant | chunking | tasks | found | mean norm. coverage | chunks | mean chunk chars |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, rag, _base, chunks, mean_chars, _p50 in rows:
        print(f"| {name} | {DESCRIPTIONS[name]} | {rag.n} | {rag.found_rate:.3f} | "
              f"{rag.mean_normalized:.3f} | {chunks} | {mean_chars:.0f} |")
    base = rows[0][2]
    print(f"| paper BM25 | (reference, same budget) | {base.n} | {base.found_rate:.3f} | "
          f"{base.mean_normalized:.3f} | | |")
    folders = sorted({f for v in per_repo.values() for f in v})
    print("\nfound rate per repository\n")
    print("| repository | tasks | " + " | ".join(per_repo) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in per_repo) + " |")
    for folder in folders:
        n = next(v[folder].n for v in per_repo.values() if folder in v)
        cells = [f"{per_repo[v][folder].found_rate:.2f}" if folder in per_repo[v] else "" for v in per_repo]
        print(f"| {folder} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
