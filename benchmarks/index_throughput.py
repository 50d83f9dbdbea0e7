"""Index throughput: ragcode's `index_repo` vs LlamaIndex ingestion, and vs the embedder alone.

    python benchmarks/index_throughput.py REPO [REPO ...] [--out results/index_throughput.json]
        [--set embedder.backend=onnx-int8] [--skip-llamaindex] [--no-embedder-alone]
        [--index-root DIR --cache-dir DIR]

For each repository, each pipeline runs in its own child process (so peak RSS is its own) with a
fresh, empty embedding cache (or ``--cache-dir``), and the same embedder (ragcode's, by default
the bundled MiniLM, at the config's backend) loaded before the clock starts. Reported per
pipeline: files, chunks, vectors, wall seconds, files/s, chunks/s, share of time spent embedding,
peak RSS (the process, and its largest child: ragcode's chunking pool). ragcode also reports:
the embedder alone on exactly the texts ragcode embedded (one ``embed`` call, no cache; the
goal is indexing <= 1.2x that), and a second run over the unchanged repository (the
incremental path). LlamaIndex gets the files ragcode's walker accepts: .py -> CodeSplitter
(tree-sitter-python parser, offline), markdown/rst -> MarkdownNodeParser, anything else ->
SentenceSplitter with a whitespace tokenizer (its default tokenizer would download one);
embedding of every node through an IngestionPipeline with ragcode's embedder; vectors into a
FAISS IndexFlatIP. ``--index-root``/``--cache-dir`` keep ragcode's indexes (and cache) there
instead of a temporary folder: the way to build the default indexes of many repositories and
record their figures in one JSON file.
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


def _peak_child_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _config(overrides: list[str], index_root: Path, cache_dir: Path):  # noqa: ANN202
    from ragcode.config import load_config

    return load_config(overrides=[*overrides, f"index.root={index_root}",
                                  f"index.cache_dir={cache_dir}"])


def _embedder_alone(cfg, index) -> dict[str, Any]:  # noqa: ANN001
    """The embedder on exactly the texts the index has vectors for: one call, no cache."""
    from ragcode.embedding import load_embedder

    have = index.vector_ids()
    texts = [c.embed_text for i, c in index.chunks().items() if i in have]
    model = load_embedder(cfg.embedder)
    t0 = time.perf_counter()
    model.embed(texts)
    alone = time.perf_counter() - t0
    return {"embedder_alone_s": round(alone, 2), "embedder_alone_texts": len(texts),
            "embedder_alone_chunks_per_s": round(len(texts) / alone, 2) if alone else None}


def run_ragcode(repo: Path, overrides: list[str], index_root: str | None, cache_dir: str | None,
                embedder_alone: bool) -> dict[str, Any]:
    from ragcode.embedding import load_embedder
    from ragcode.index.build import index_repo

    with tempfile.TemporaryDirectory(prefix="ragcode-bench-") as tmp:
        cfg = _config(overrides, Path(index_root or Path(tmp) / "indexes"),
                      Path(cache_dir or Path(tmp) / "cache"))
        t0 = time.perf_counter()
        load_embedder(cfg.embedder)
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        index = index_repo(repo, cfg, name=repo.name, progress=False)
        wall = time.perf_counter() - t0
        peak, peak_child = _peak_rss_mb(), _peak_child_rss_mb()
        s = index.summary
        alone = _embedder_alone(cfg, index) if embedder_alone and index.vector_count else {}
        index.close()
        t0 = time.perf_counter()
        again = index_repo(repo, cfg, name=repo.name, progress=False)
        rerun = time.perf_counter() - t0
        again.close()
    embed_s = s.seconds.get("embed", 0.0) + s.background.get("embed", 0.0)
    out = {
        "pipeline": "ragcode", "model_load_s": round(load_s, 2), "wall_s": round(wall, 2),
        "files": s.files, "chunks": s.chunks, "vectors": s.vectors, "embedded": s.embedded,
        "cached": s.cached, "workers": s.workers, "overlapped": s.overlapped,
        "chunks_by_kind": s.chunks_by_kind, "files_by_kind": s.files_by_kind,
        "skipped": s.skipped, "stage_s": s.seconds, "background_s": s.background,
        "embed_share": round(min(embed_s / wall, 1.0), 3) if wall else 0.0,
        "files_per_s": round(s.files / wall, 2), "chunks_per_s": round(s.chunks / wall, 2),
        "vectors_per_s": round(s.vectors / wall, 2),
        "unchanged_rerun_s": round(rerun, 2), "unchanged_rerun_embedded": again.summary.embedded,
        "peak_rss_mb": round(peak, 1), "peak_child_rss_mb": round(peak_child, 1),
        "embedder": cfg.embedder.model_dump(mode="json"),
    }
    out.update(alone)
    if alone.get("embedder_alone_s"):
        out["wall_over_embedder_alone"] = round(wall / alone["embedder_alone_s"], 3)
    return out


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
        cfg = _config(overrides, Path(tmp) / "indexes", Path(tmp) / "cache")
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


def _child(pipeline: str, repo: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, __file__, str(repo), "--child", pipeline]
    for o in args.overrides:
        cmd += ["--set", o]
    for flag in ("index_root", "cache_dir"):
        if getattr(args, flag):
            cmd += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
    if args.no_embedder_alone:
        cmd.append("--no-embedder-alone")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{pipeline} run on {repo.name} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ratios(r: dict[str, Any], li: dict[str, Any]) -> dict[str, float]:
    return {
        "wall_llamaindex_over_ragcode": round(li["wall_s"] / r["wall_s"], 3),
        "files_per_s_ragcode_over_llamaindex": round(r["files_per_s"] / li["files_per_s"], 3),
        "chunks_per_s_ragcode_over_llamaindex": round(r["chunks_per_s"] / li["chunks_per_s"], 3),
    }


def _load_avg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover
        return []


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, default=None, help="JSON results file")
    ap.add_argument("--set", dest="overrides", action="append", default=[],
                    help="config override section.field=value (both pipelines)")
    ap.add_argument("--skip-llamaindex", action="store_true")
    ap.add_argument("--no-embedder-alone", action="store_true",
                    help="do not time the embedder alone on ragcode's texts")
    ap.add_argument("--index-root", type=Path, help="keep ragcode's indexes here")
    ap.add_argument("--cache-dir", type=Path, help="ragcode's embedding cache (default: empty)")
    ap.add_argument("--child", choices=["ragcode", "llamaindex"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    repos = [r.resolve() for r in args.repos]
    for repo in repos:
        if not repo.is_dir():
            raise SystemExit(f"repository {repo} does not exist")
    if args.child:
        if args.child == "ragcode":
            res = run_ragcode(repos[0], args.overrides, args.index_root, args.cache_dir,
                              not args.no_embedder_alone)
        else:
            res = run_llamaindex(repos[0], args.overrides)
        print(json.dumps(res))
        return

    results: dict[str, Any] = {"repos": [str(r) for r in repos], "overrides": args.overrides,
                               "cpus": os.cpu_count(), "load_avg_start": _load_avg(),
                               "per_repo": {}}
    t_all = time.perf_counter()
    for repo in repos:
        runs = {"ragcode": _child("ragcode", repo, args)}
        if not args.skip_llamaindex:
            runs["llamaindex"] = _child("llamaindex", repo, args)
        entry: dict[str, Any] = {"runs": runs}
        if "llamaindex" in runs:
            entry["ratio"] = _ratios(runs["ragcode"], runs["llamaindex"])
        results["per_repo"][repo.name] = entry
        print(f"{repo.name}: ragcode {runs['ragcode']['wall_s']} s"
              + (f", llamaindex {runs['llamaindex']['wall_s']} s" if "llamaindex" in runs else ""),
              file=sys.stderr, flush=True)
    results["elapsed_s"] = round(time.perf_counter() - t_all, 1)
    results["load_avg_end"] = _load_avg()
    rag = [e["runs"]["ragcode"] for e in results["per_repo"].values()]
    results["total_ragcode"] = {
        "files": sum(r["files"] for r in rag), "chunks": sum(r["chunks"] for r in rag),
        "vectors": sum(r["vectors"] for r in rag), "wall_s": round(sum(r["wall_s"] for r in rag), 2),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in rag),
        "peak_child_rss_mb": max(r["peak_child_rss_mb"] for r in rag),
    }
    _print(results)
    out = args.out or Path("results") / (
        f"index_throughput-{repos[0].name}.json" if len(repos) == 1 else "index_throughput.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"wrote {out}")


def _print(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=180)
    table = Table(title="index throughput")
    cols = ["files", "chunks", "vectors", "wall_s", "chunks_per_s", "embed_share",
            "embedder_alone_s", "wall_over_embedder_alone", "peak_rss_mb", "peak_child_rss_mb",
            "unchanged_rerun_s"]
    table.add_column("repo")
    table.add_column("pipeline")
    for c in cols:
        table.add_column(c, justify="right")
    for name, entry in results["per_repo"].items():
        for pipeline, run in entry["runs"].items():
            table.add_row(name, pipeline, *(str(run.get(c, "")) for c in cols))
    t = results["total_ragcode"]
    table.add_row("total", "ragcode", str(t["files"]), str(t["chunks"]), str(t["vectors"]),
                  str(t["wall_s"]), *([""] * 4), str(t["peak_rss_mb"]), str(t["peak_child_rss_mb"]), "")
    console.print(table)
    for name, entry in results["per_repo"].items():
        if "ratio" in entry:
            console.print(f"{name}: " + ", ".join(f"{k} = {v}" for k, v in entry["ratio"].items()))
    console.print(f"load average at start {results['load_avg_start']}, at end {results['load_avg_end']}")


if __name__ == "__main__":
    main()
