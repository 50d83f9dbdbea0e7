"""Code search: does a query find the chunk holding a definition? ragcode against baselines.

    python benchmarks/code_search.py --repos /work/repos/PyTorch-GAN /work/repos/if ... \\
        --work /tmp/code-search [--per-repo 80] [--seed 0] [--out results/code_search.json]

Definitions are read with Python's own ``ast`` (not ragcode's extractor): module-level
functions and classes and the methods of classes, outside test folders and dunder methods.
From each repository up to ``--per-repo`` are sampled (seeded) for each query type:

- **name**: the bare name (``Class.method`` for a method), for definitions whose query name is
  unique in the repository (an ambiguous name has several right answers);
- **docstring**: the first sentence of the docstring (at least four words, unique in the
  repository).

The right answer is any chunk of kind ``code`` whose file is the definition's and whose lines
hold its ``def`` / ``class`` line. Measured: recall@1, recall@5 and MRR@10 per system, for the
top 10 hits of ``Searcher.search`` over a per-repository index (every file of the repository is
indexed; queries of one repository go to its own index). Systems:

- ``bm25``: ragcode's chunks, BM25 alone (no sub-queries, priors, boosts or symbol index);
- ``dense-code``: MiniLM vectors of every chunk, dense search over ``code`` chunks only;
- ``llamaindex-hybrid``: LlamaIndex's ``CodeSplitter`` (Python) and ``MarkdownNodeParser``
  chunks, no CLI or api chunks, every chunk embedded, hybrid (BM25 + dense, RRF), no priors;
- ``ragcode``: the defaults; ``ragcode-api-vectors``: the defaults with api chunks embedded too
  (``embedder.kinds=[markdown, cli, api]``).

All indexes share one embedding cache under ``--work`` (a chunk embedded once is reused).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

PLAIN = ["retrieval.multi_query=false", "retrieval.docs_query_weight=0",
         "retrieval.kind_weights={}", "retrieval.path_weights={}",
         "retrieval.heading_weights={}", "retrieval.identifier_boost=0",
         "retrieval.symbol_weight=0", "retrieval.api_explain_top=0"]
INDEXES: dict[str, list[str]] = {
    "ragcode": [],
    "ragcode-api": ["embedder.kinds=[markdown, cli, api]"],
    "all-vectors": ["embedder.kinds=[]"],
    "llamaindex": ["chunking.chunkers.python=llamaindex-code",
                   "chunking.chunkers.markdown=llamaindex-markdown",
                   "chunking.cli.enabled=false", "chunking.api.enabled=false",
                   "embedder.kinds=[]"],
}
SYSTEMS: dict[str, tuple[str, list[str]]] = {
    "bm25": ("ragcode", PLAIN + ["retrieval.mode=bm25"]),
    "dense-code": ("all-vectors", PLAIN + ["retrieval.mode=dense", "retrieval.kinds=[code]"]),
    "llamaindex-hybrid": ("llamaindex", PLAIN + ["retrieval.mode=hybrid"]),
    "ragcode": ("ragcode", []),
    "ragcode-api-vectors": ("ragcode-api", []),
}
_TESTS = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_test\.py$|conftest\.py$")
_SKIP_DIRS = {".git", "node_modules", "__pycache__", "build", "dist", "third_party", "vendor"}


def first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


def definitions(repo: Path) -> list[dict[str, Any]]:
    """Every module-level function / class and class method of the repository's Python files."""
    out: list[dict[str, Any]] = []
    for path in sorted(repo.rglob("*.py")):
        rel = path.relative_to(repo).as_posix()
        if _TESTS.search(rel) or set(path.relative_to(repo).parts) & _SKIP_DIRS:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            out.extend(_defs(node, rel, ""))
    return out


def _defs(node: ast.AST, rel: str, cls: str) -> list[dict[str, Any]]:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    if node.name.startswith("__") and node.name.endswith("__"):
        return []
    name = f"{cls}.{node.name}" if cls else node.name
    found = [{"path": rel, "line": node.lineno, "query_name": name,
              "doc": first_sentence(ast.get_docstring(node) or "")}]
    if isinstance(node, ast.ClassDef) and not cls:
        for child in node.body:
            found.extend(_defs(child, rel, node.name))
    return found


def sample(repo: Path, per_repo: int, rng: random.Random) -> list[dict[str, Any]]:
    defs = definitions(repo)
    names: dict[str, int] = {}
    docs: dict[str, int] = {}
    for d in defs:
        names[d["query_name"]] = names.get(d["query_name"], 0) + 1
        docs[d["doc"]] = docs.get(d["doc"], 0) + 1
    by_name = [d for d in defs if names[d["query_name"]] == 1]
    by_doc = [d for d in defs if len(d["doc"].split()) >= 4 and docs[d["doc"]] == 1]
    queries = [{**d, "type": "name", "query": d["query_name"]}
               for d in rng.sample(by_name, min(per_repo, len(by_name)))]
    queries += [{**d, "type": "docstring", "query": d["doc"]}
                for d in rng.sample(by_doc, min(per_repo, len(by_doc)))]
    for q in queries:
        q["repo"] = repo.name
    return queries


def build_indexes(repos: list[Path], work: Path, wanted: set[str]) -> dict[str, float]:
    from ragcode.config import load_config
    from ragcode.index.build import index_repo

    seconds: dict[str, float] = {}
    for name, overrides in INDEXES.items():
        if name not in wanted:
            continue
        cfg = load_config(None, overrides + [f"index.cache_dir={work / 'cache'}"])
        t0 = time.perf_counter()
        for repo in repos:
            index_repo(repo, cfg, name=repo.name, out=work / name, progress=False).close()
        seconds[name] = round(time.perf_counter() - t0, 1)
        print(f"index {name}: {seconds[name]} s", file=sys.stderr)
    return seconds


def holds(chunk: Any, q: dict[str, Any]) -> bool:
    return chunk.kind == "code" and chunk.path == q["path"] and \
        chunk.start_line <= q["line"] <= chunk.end_line


def evaluate(system: str, queries: list[dict[str, Any]], work: Path) -> list[int | None]:
    """The 1-based rank of the first right chunk in the top 10 (None: not there) per query."""
    from ragcode.config import load_config
    from ragcode.index.store import load_index
    from ragcode.retrieval.search import Searcher

    index_name, overrides = SYSTEMS[system]
    cfg = load_config(None, overrides)
    ranks: list[int | None] = []
    searchers: dict[str, Searcher] = {}
    for q in queries:
        if q["repo"] not in searchers:
            searchers[q["repo"]] = Searcher(load_index(work / index_name / q["repo"]), cfg)
        hits = searchers[q["repo"]].search(q["query"], 10)
        ranks.append(next((i + 1 for i, h in enumerate(hits) if holds(h.chunk, q)), None))
    return ranks


def metrics(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {"n": len(ranks),
            "recall@1": round(sum(r == 1 for r in ranks) / n, 3),
            "recall@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
            "mrr@10": round(sum(1 / r for r in ranks if r is not None) / n, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repos", type=Path, nargs="+", required=True)
    ap.add_argument("--work", type=Path, required=True, help="indexes and embedding cache")
    ap.add_argument("--per-repo", type=int, default=80, help="queries per type and repository")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--out", type=Path, default=Path("results/code_search.json"))
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    queries = [q for repo in args.repos for q in sample(repo, args.per_repo, rng)]
    index_s = build_indexes(args.repos, args.work, {SYSTEMS[s][0] for s in args.systems})
    results: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    for system in args.systems:
        t0 = time.perf_counter()
        ranks = evaluate(system, queries, args.work)
        seconds[system] = round(time.perf_counter() - t0, 1)
        for q, r in zip(queries, ranks):
            q.setdefault("ranks", {})[system] = r
        results[system] = {t: metrics([r for q, r in zip(queries, ranks) if q["type"] == t])
                           for t in ("name", "docstring")}
    _print(results, queries)
    report = {"repos": [str(r) for r in args.repos], "seed": args.seed, "per_repo": args.per_repo,
              "queries": {t: sum(q["type"] == t for q in queries) for t in ("name", "docstring")},
              "results": results, "index_seconds": index_s, "query_seconds": seconds,
              "per_query": queries}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"wrote {args.out}")
    return 0


def _print(results: dict[str, Any], queries: list[dict[str, Any]]) -> None:
    counts = {t: sum(q["type"] == t for q in queries) for t in ("name", "docstring")}
    print(f"queries: {counts['name']} by name, {counts['docstring']} by docstring; "
          f"repositories: {len({q['repo'] for q in queries})}")
    print("| system | name R@1 | name R@5 | name MRR@10 | doc R@1 | doc R@5 | doc MRR@10 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for system, by_type in results.items():
        n, d = by_type["name"], by_type["docstring"]
        print(f"| {system} | {n['recall@1']:.3f} | {n['recall@5']:.3f} | {n['mrr@10']:.3f} | "
              f"{d['recall@1']:.3f} | {d['recall@5']:.3f} | {d['mrr@10']:.3f} |")


if __name__ == "__main__":
    raise SystemExit(main())
