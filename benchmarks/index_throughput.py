"""Index throughput: ragcode's `index_repo` vs LlamaIndex ingestion on the same repository.

    python benchmarks/index_throughput.py REPO [--out results/index_throughput.json]
        [--set embedder.kinds=[markdown]] [--skip-llamaindex]

Each pipeline runs in its own child process (so peak RSS is its own) with a fresh, empty
embedding cache, and the same embedder instance type (ragcode's, by default the bundled MiniLM)
loaded before the clock starts. Reported per pipeline: files, chunks, wall seconds, files/s,
chunks/s, share of time spent embedding, peak RSS. ragcode also reports a second run over the
unchanged repository (the incremental path). LlamaIndex gets the files ragcode's walker accepts:
.py -> CodeSplitter (tree-sitter-python parser, offline), markdown/rst -> MarkdownNodeParser,
anything else -> SentenceSplitter with a whitespace tokenizer (its default tokenizer would
download one); embedding through an IngestionPipeline with ragcode's embedder; vectors into a
FAISS IndexFlatIP.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _config(overrides: list[str], workdir: Path):  # noqa: ANN202
    from ragcode.config import load_config

    return load_config(overrides=[*overrides, f"index.root={workdir / 'indexes'}",
                                  f"index.cache_dir={workdir / 'cache'}"])


def run_ragcode(repo: Path, overrides: list[str]) -> dict[str, Any]:
    from ragcode.embedding import load_embedder
    from ragcode.index.build import index_repo

    with tempfile.TemporaryDirectory(prefix="ragcode-bench-") as tmp:
        cfg = _config(overrides, Path(tmp))
        t0 = time.perf_counter()
        load_embedder(cfg.embedder)
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        index = index_repo(repo, cfg, name="bench", progress=False)
        wall = time.perf_counter() - t0
        s = index.summary
        index.close()
        t0 = time.perf_counter()
        again = index_repo(repo, cfg, name="bench", progress=False)
        rerun = time.perf_counter() - t0
        again.close()
    return {
        "pipeline": "ragcode", "model_load_s": round(load_s, 2), "wall_s": round(wall, 2),
        "files": s.files, "chunks": s.chunks, "vectors": s.vectors, "embedded": s.embedded,
        "chunks_by_kind": s.chunks_by_kind, "files_by_kind": s.files_by_kind,
        "skipped": s.skipped, "stage_s": s.seconds,
        "embed_share": round(s.seconds.get("embed", 0.0) / wall, 3) if wall else 0.0,
        "files_per_s": round(s.files / wall, 2), "chunks_per_s": round(s.chunks / wall, 2),
        "vectors_per_s": round(s.vectors / wall, 2),
        "unchanged_rerun_s": round(rerun, 2), "unchanged_rerun_embedded": again.summary.embedded,
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }


def run_llamaindex(repo: Path, overrides: list[str]) -> dict[str, Any]:
    import faiss
    import numpy as np
    import tree_sitter_python
    from llama_index.core import Document
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import CodeSplitter, MarkdownNodeParser, SentenceSplitter
    from tree_sitter import Language, Parser

    from ragcode.chunking import walk_repo
    from ragcode.integrations.llamaindex.settings import RagcodeEmbedding

    with tempfile.TemporaryDirectory(prefix="ragcode-bench-") as tmp:
        cfg = _config(overrides, Path(tmp))
    embed_model = RagcodeEmbedding(cfg.embedder)
    t0 = time.perf_counter()
    embed_model._load()
    load_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    walked = walk_repo(repo, cfg.chunking.walk)
    groups: dict[str, list[Any]] = {"python": [], "markdown": [], "other": []}
    for f in walked.files:
        kind = walked.file_kind(f.path)
        doc = Document(text=f.text, metadata={"file_path": f.path})
        if f.path.endswith(".py"):
            groups["python"].append(doc)
        elif kind in ("markdown", "rst"):
            groups["markdown"].append(doc)
        else:
            groups["other"].append(doc)
    walk_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    parser = Parser(Language(tree_sitter_python.language()))
    splitters = {
        "python": CodeSplitter(language="python", parser=parser),
        "markdown": MarkdownNodeParser(),
        "other": SentenceSplitter(chunk_size=512, chunk_overlap=64, tokenizer=str.split),
    }
    nodes = []
    for group, docs in groups.items():
        if docs:
            nodes += splitters[group].get_nodes_from_documents(docs)
    chunk_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    nodes = IngestionPipeline(transformations=[embed_model]).run(nodes=nodes)
    embed_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    vecs = np.asarray([n.embedding for n in nodes], dtype=np.float32)
    index = faiss.IndexIDMap2(faiss.IndexFlatIP(vecs.shape[1]))
    index.add_with_ids(vecs, np.arange(len(nodes), dtype=np.int64))
    store_s = time.perf_counter() - t0
    wall = walk_s + chunk_s + embed_s + store_s
    files = len(walked.files)
    return {
        "pipeline": "llamaindex", "model_load_s": round(load_s, 2), "wall_s": round(wall, 2),
        "files": files, "chunks": len(nodes), "vectors": int(index.ntotal),
        "files_by_group": {g: len(d) for g, d in groups.items()},
        "stage_s": {"walk": round(walk_s, 3), "chunk": round(chunk_s, 3),
                    "embed": round(embed_s, 3), "store": round(store_s, 3)},
        "embed_share": round(embed_s / wall, 3) if wall else 0.0,
        "files_per_s": round(files / wall, 2), "chunks_per_s": round(len(nodes) / wall, 2),
        "vectors_per_s": round(len(nodes) / wall, 2),
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }


def _child(pipeline: str, repo: Path, overrides: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, __file__, str(repo), "--child", pipeline]
    for o in overrides:
        cmd += ["--set", o]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{pipeline} run failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="JSON results file")
    ap.add_argument("--set", dest="overrides", action="append", default=[],
                    help="config override section.field=value (both pipelines)")
    ap.add_argument("--skip-llamaindex", action="store_true")
    ap.add_argument("--child", choices=["ragcode", "llamaindex"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    if not repo.is_dir():
        raise SystemExit(f"repository {repo} does not exist")
    if args.child:
        fn = run_ragcode if args.child == "ragcode" else run_llamaindex
        print(json.dumps(fn(repo, args.overrides)))
        return

    results: dict[str, Any] = {"repo": str(repo), "overrides": args.overrides,
                               "cpus": os.cpu_count(), "runs": {}}
    results["runs"]["ragcode"] = _child("ragcode", repo, args.overrides)
    if not args.skip_llamaindex:
        results["runs"]["llamaindex"] = _child("llamaindex", repo, args.overrides)
        r, li = results["runs"]["ragcode"], results["runs"]["llamaindex"]
        results["ratio"] = {
            "wall_llamaindex_over_ragcode": round(li["wall_s"] / r["wall_s"], 3),
            "files_per_s_ragcode_over_llamaindex": round(r["files_per_s"] / li["files_per_s"], 3),
            "chunks_per_s_ragcode_over_llamaindex": round(r["chunks_per_s"] / li["chunks_per_s"], 3),
        }

    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"index throughput: {repo.name}")
    cols = ["files", "chunks", "wall_s", "files_per_s", "chunks_per_s", "embed_share",
            "peak_rss_mb", "model_load_s"]
    table.add_column("pipeline")
    for c in cols:
        table.add_column(c, justify="right")
    for name, run in results["runs"].items():
        table.add_row(name, *(str(run[c]) for c in cols))
    console = Console(width=150)
    console.print(table)
    r = results["runs"]["ragcode"]
    console.print(f"ragcode re-run on the unchanged repo: {r['unchanged_rerun_s']} s, "
                  f"{r['unchanged_rerun_embedded']} chunks embedded")
    if "ratio" in results:
        console.print("ratio: " + ", ".join(f"{k} = {v}" for k, v in results["ratio"].items()))
    out = args.out or Path("results") / f"index_throughput-{repo.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
