"""``ragcode serve`` over stdio against the same search in process: latency, start-up, memory.

    python benchmarks/serve_latency.py --index /work/idx/dgl [--tasks dev.jsonl] [--repeat 3] \\
        [--also IDX2 --also IDX3 ...] [--watch-copy SCRATCH] [--set k=v] [--out results/serve_latency.json]

On one index (``--index``, a name under ``index.root`` or a folder), with the same config:

- in process: ``ragcode.retrieval.search.search`` and the server's own tool function
  (``ragcode.agent.tools.search_tool``: the search plus the text it returns), after one untimed
  search (retrievers built, model warm), each run right before the same query through the
  server (interleaved, so both see the same load on a shared machine);
- through stdio: ``ragcode serve INDEX`` spawned by the MCP SDK's stdio client, each
  ``tools/call search`` timed at the client (request, JSON-RPC, the server's worker thread,
  the reply);
- start-up: from spawning the server to its answer to ``initialize`` (imports, opening the
  index, the warm-up search), and to the first ``tools/list``;
- memory: the server process's RSS after the calls; with ``--also``, the RSS of one server
  serving ``--index`` and every ``--also`` index, after its start-up;
- with ``--watch-copy DIR``: the repository copied to DIR and indexed there, served with
  ``--watch``, one Python file edited, and the seconds until ``search`` over code chunks ranks
  it first for the new word (the repository itself is never written).

Queries: the instructions of ``--tasks`` (a JSONL of ML-Bench records) whose repository folder
is the index's repository's name, else a fixed list of generic questions; each is run
``--repeat`` times, k = 5. Prints p50/p95 per path, the ratio of the p50s (stdio / in process)
and the median of the per-query ratios (each stdio call over the in-process search of the same
query just before it), writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

GENERIC = ["how do I train the model", "evaluate a checkpoint on the test set", "learning rate flag",
           "install the requirements", "run the example on a GPU", "batch size and number of epochs",
           "download the dataset", "save the trained model", "which script runs inference",
           "command line arguments of the training script"]
CLI = "import sys; from ragcode.cli import main; main(sys.argv[1:])"


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else 0.0


def _stats(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50_ms": round(1000 * _pct(xs, 0.5), 2), "p95_ms": round(1000 * _pct(xs, 0.95), 2),
            "mean_ms": round(1000 * statistics.fmean(xs), 2) if xs else 0.0}


def queries_for(repo_name: str, tasks: Path | None) -> tuple[list[str], str]:
    if tasks is None or not tasks.exists():
        return GENERIC, "generic"
    from ragcode.bench.repos import repo_folder

    out = []
    for line in tasks.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            try:
                folder = repo_folder(int(rec["github_id"]))
            except Exception:  # noqa: BLE001 - a repository ragcode does not know
                continue
            if folder == repo_name and rec.get("instruction"):
                out.append(rec["instruction"])
    return (out, f"{len(out)} task instructions of {tasks.name}") if out else (GENERIC, "generic")


class InProcess:
    """The index opened here with the same config: ``search()`` and the server's tool function."""

    def __init__(self, index_name: str, overrides: list[str]):
        from ragcode.agent.tools import AgentEnv
        from ragcode.config import load_config
        from ragcode.index.store import open_index_dir, resolve_index_dir
        from ragcode.retrieval.search import search

        self.cfg = load_config(overrides=overrides)
        self.index = open_index_dir(resolve_index_dir(index_name, self.cfg))
        self.env = AgentEnv(Path(self.index.manifest.repo), self.index, self.cfg)
        search(self.index, "warm up", 1, self.cfg)
        self.raw: list[float] = []
        self.tool: list[float] = []

    def time(self, query: str, k: int) -> None:
        from ragcode.agent.tools import search_tool
        from ragcode.retrieval.search import search

        t0 = time.perf_counter()
        search(self.index, query, k, self.cfg)
        self.raw.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        search_tool(self.env, query, k)
        self.tool.append(time.perf_counter() - t0)


def _server_rss(before: set[int]) -> tuple[int, float]:
    """(pid, RSS in MiB) of the server: the newest child of this process."""
    import psutil

    kids = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    proc = max(kids, key=lambda p: p.create_time())
    return proc.pid, proc.memory_info().rss / 2 ** 20


async def through_stdio(argv: list[str], queries: list[str], k: int, local: InProcess | None = None) -> dict[str, Any]:
    """Start the server, then each query through it; with ``local``, the same query in process
    right before it (interleaved, so both see the same load on a shared machine)."""
    import psutil
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    times: list[float] = []
    with open(os.devnull, "w") as err:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                ready = time.perf_counter() - t0
                await session.list_tools()
                listed = time.perf_counter() - t0
                for q in queries:
                    if local is not None:
                        local.time(q, k)
                    t1 = time.perf_counter()
                    res = await session.call_tool("search", {"query": q, "k": k})
                    times.append(time.perf_counter() - t1)
                    if res.is_error:
                        raise SystemExit(f"search failed through the server: {getattr(res.content[0], 'text', res)}")
                pid, rss = _server_rss(before)
    return {"startup_s": round(ready, 3), "startup_to_tools_s": round(listed, 3), "search": _stats(times),
            "server_rss_mib": round(rss, 1), "times": times}


async def watch_edit(repo: Path, copy: Path, overrides: list[str], k: int) -> dict[str, Any]:
    """Copy ``repo`` to ``copy``, index the copy (the embedding cache makes this cheap for an
    indexed repository), serve it with ``--watch`` over stdio, append a function with a new word
    to its first Python file, and time until ``search`` (``kind`` code: the default ranking puts
    README sections and flag tables before code) ranks that file first for the word."""
    import shutil

    import anyio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from ragcode.config import load_config
    from ragcode.index.build import index_repo

    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(repo, copy / "repo", symlinks=True, ignore=shutil.ignore_patterns(".git"))
    t0 = time.perf_counter()
    index = index_repo(copy / "repo", load_config(overrides=overrides), name="watched", out=copy / "index",
                       progress=False)
    reindex_s = time.perf_counter() - t0
    index.close()
    target = sorted((copy / "repo").rglob("*.py"))[0]
    word = "zebraquokkafeature"
    sets = [a for s in overrides for a in ("--set", s)]
    argv = [sys.executable, "-c", CLI, "serve", str(index.dir), "--watch", "--watch-interval", "0.5", *sets]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    with open(os.devnull, "w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                with target.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n\ndef {word}():\n    return '{word} helper'\n")
                edited = time.perf_counter()
                found = None
                while time.perf_counter() - edited < 300:
                    res = await session.call_tool("search", {"query": word, "k": k, "kind": "code"})
                    hits = (res.structured_content or {}).get("hits", [])
                    if hits and (copy / "repo" / hits[0]["path"]).resolve() == target.resolve():
                        found = time.perf_counter() - edited
                        break
                    await anyio.sleep(0.1)
    return {"copy_index_s": round(reindex_s, 2), "edited": str(target.relative_to(copy / "repo")),
            "watch_interval_s": 0.5, "edit_to_found_s": round(found, 2) if found is not None else None}


def main(argv: list[str] | None = None) -> None:
    import anyio

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", required=True, help="index name (under index.root) or folder")
    ap.add_argument("--also", action="append", default=[], help="more indexes, for the memory of one server serving all")
    ap.add_argument("--tasks", type=Path, default=None, help="ML-Bench JSONL: queries from its instructions")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--watch-copy", type=Path, default=None,
                    help="a scratch folder: copy the repository there and time an edit until search finds it")
    ap.add_argument("--out", type=Path, default=Path("results/serve_latency.json"))
    args = ap.parse_args(argv)

    from ragcode.config import load_config
    from ragcode.index.store import open_index_dir, resolve_index_dir
    from ragcode.version import __version__

    index_dir = resolve_index_dir(args.index, load_config(overrides=args.overrides))
    probe = open_index_dir(index_dir)
    repo_name = Path(probe.manifest.repo).name
    probe.close()
    base, source = queries_for(repo_name, args.tasks)
    queries = [q for _ in range(args.repeat) for q in base]
    sets = [a for s in args.overrides for a in ("--set", s)]
    local = InProcess(str(index_dir), args.overrides)
    served = anyio.run(through_stdio, [sys.executable, "-c", CLI, "serve", str(index_dir), *sets], queries, args.k,
                       local)
    local.index.close()
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()), "ragcode": __version__, "commit": _commit(),
        "index": str(index_dir), "repo": local.index.manifest.repo, "chunks": local.index.chunk_count,
        "vectors": local.index.vector_count,
        "config": args.overrides, "queries": source, "calls": len(queries), "k": args.k,
        "in_process": {"search": _stats(local.raw), "search_tool": _stats(local.tool)}, "stdio": served,
        "ratio_p50": round(served["search"]["p50_ms"] / max(_stats(local.raw)["p50_ms"], 1e-9), 3),
        "ratio_p50_vs_tool": round(served["search"]["p50_ms"] / max(_stats(local.tool)["p50_ms"], 1e-9), 3),
        "ratio_paired_median": round(statistics.median(a / b for a, b in zip(served.pop("times"), local.raw)), 3),
        "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}
    if args.also:
        dirs = [index_dir, *(resolve_index_dir(a, load_config(overrides=args.overrides)) for a in args.also)]
        many = anyio.run(through_stdio, [sys.executable, "-c", CLI, "serve", *map(str, dirs), *sets],
                         GENERIC[:2], args.k)
        result["all_indexes"] = {"indexes": len(dirs), "startup_s": many["startup_s"],
                                 "server_rss_mib": many["server_rss_mib"]}
    if args.watch_copy is not None:
        result["watch"] = anyio.run(watch_edit, Path(result["repo"]), args.watch_copy, args.overrides, args.k)
    _print(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


def _commit() -> str:
    """The short commit, with ``+dirty`` when the working tree has changes."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=here, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=here, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return head + ("+dirty" if dirty else "")


def _print(r: dict[str, Any]) -> None:
    print(f"index {r['index']} ({r['chunks']} chunks, {r['vectors']} vectors); {r['calls']} searches "
          f"({r['queries']}), k={r['k']}; {r['date']} commit {r['commit']}, load {r['load_1min']}")
    rows = [("in process: search()", r["in_process"]["search"]),
            ("in process: search tool", r["in_process"]["search_tool"]),
            ("stdio: tools/call search", r["stdio"]["search"])]
    for name, s in rows:
        print(f"  {name:<28} p50 {s['p50_ms']:>8.2f} ms   p95 {s['p95_ms']:>8.2f} ms")
    print(f"  stdio p50 / in-process p50: {r['ratio_p50']:.2f}x (vs the tool function: {r['ratio_p50_vs_tool']:.2f}x; "
          f"median of the per-query ratios: {r['ratio_paired_median']:.2f}x)")
    print(f"  server start-up to initialize: {r['stdio']['startup_s']:.2f} s; RSS {r['stdio']['server_rss_mib']:.0f} MiB")
    if "all_indexes" in r:
        a = r["all_indexes"]
        print(f"  {a['indexes']} indexes in one server: start-up {a['startup_s']:.2f} s, RSS {a['server_rss_mib']:.0f} MiB")
    if "watch" in r:
        w = r["watch"]
        print(f"  --watch: {w['edited']} edited, found by search after {w['edit_to_found_s']} s "
              f"(interval {w['watch_interval_s']} s; indexing the copy took {w['copy_index_s']} s)")


if __name__ == "__main__":
    main()
