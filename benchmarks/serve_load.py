"""Load on ``ragcode serve --http``: many concurrent MCP clients over loopback, search and check.

    python benchmarks/serve_load.py --index IDX [--clients 50] [--calls 10] [--set k=v ...] \\
        [--cache DIR] [--out results/serve_load.json]

Starts ``ragcode serve INDEX --http 127.0.0.1:0`` (the default ``serve.*`` limits unless
``--set`` says otherwise; the dry-run cache in a fresh folder, so each distinct check answer is
dry-run once for real, or in ``--cache DIR``, which a second run finds warm), reads its URL and bearer token, warms it (one search, one check), then
runs ``--clients`` clients at once, each its own session of the MCP SDK's streamable HTTP client
doing ``--calls`` calls, alternating ``search`` (the ML-Bench-style questions below, k = 5) and
``check`` (commands built from the index's own flag tables: a flag written as the table has it,
and one with ``_``/``-`` swapped, which the checks correct). Each call is timed at the client.

Prints and writes: per tool the calls, errors (tool errors and failed requests; must be 0),
p50 / p99 / max latency; the server's OS threads, processes and RSS (psutil) before the clients,
at their end and once settled (no call running), and its own figures (``ragcode://server``:
Python threads, calls running, waiting, started, stopped). OS threads include the native pools
of the libraries (onnxruntime, OpenMP), which grow with concurrent use up to their size and stay.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

QUERIES = ["how do I train the model", "evaluate a checkpoint on the test set", "learning rate flag",
           "install the requirements", "run the example on a GPU", "batch size and number of epochs",
           "download the dataset", "save the trained model", "which script runs inference",
           "command line arguments of the training script"]
CLI = "import sys; from ragcode.cli import main; main(sys.argv[1:])"


def check_answers(index_dir: Path, overrides: list[str]) -> list[str]:
    """Commands from the index's flag tables: ``python SCRIPT --flag VALUE`` and its misspelling."""
    from ragcode.config import load_config
    from ragcode.index.store import open_index_dir

    index = open_index_dir(index_dir)
    try:
        tables = [c.metadata for c in index.chunks().values() if c.kind == "cli" and c.metadata.get("flags")]
    finally:
        index.close()
    load_config(overrides=overrides)  # the overrides must be valid before a server is started
    out = []
    for meta in sorted(tables, key=lambda m: str(m.get("script")))[:20]:
        flag = next((f for f in meta["flags"] if not f.get("positional")), None)
        if flag is None:
            continue
        value = "" if flag.get("action") == "store_true" else " 1"
        name = flag["name"]
        swapped = name[:2] + name[2:].translate(str.maketrans("-_", "_-"))
        out += [f"python {meta['script']} {name}{value}", f"python {meta['script']} {swapped}{value}"]
    return out or ["ls"]


def start_server(argv: list[str], log: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str, str]:
    """The server process, its URL and the token it printed."""
    with log.open("w") as err:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 300
    while not re.search(r"at (http://\S+/mcp)", log.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)
    text = log.read_text()
    url = re.search(r"at (http://\S+/mcp)", text).group(1)  # type: ignore[union-attr]
    token = re.search(r"bearer token \(new[^)]*\): (\S+)", text).group(1)  # type: ignore[union-attr]
    return proc, url, token


def server_load(pid: int) -> dict[str, Any]:
    import psutil

    proc = psutil.Process(pid)
    return {"threads": proc.num_threads(), "processes": len(proc.children(recursive=True)),
            "rss_mib": round(proc.memory_info().rss / 2 ** 20, 1)}


async def session_calls(url: str, token: str, plan: list[tuple[str, dict[str, Any]]], out: list[dict]) -> None:
    """One client: its own session, the calls of ``plan`` one after another."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    try:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for tool, arguments in plan:
                        t0 = time.perf_counter()
                        res = await session.call_tool(tool, arguments)
                        error = res.content[0].text if res.is_error else ""  # type: ignore[union-attr]
                        out.append({"tool": tool, "s": time.perf_counter() - t0, "error": error})
    except Exception as exc:  # noqa: BLE001 - a failed session is counted, not fatal
        out.append({"tool": "session", "s": 0.0, "error": f"{type(exc).__name__}: {exc}"})


def plans(clients: int, calls: int, answers: list[str]) -> list[list[tuple[str, dict[str, Any]]]]:
    out = []
    for c in range(clients):
        plan = []
        for i in range(calls):
            n = c * calls + i
            plan.append(("search", {"query": QUERIES[n % len(QUERIES)], "k": 5}) if i % 2 == 0 else
                        ("check", {"answer": answers[n % len(answers)]}))
        out.append(plan)
    return out


async def run_load(url: str, token: str, all_plans: list[list[tuple[str, dict[str, Any]]]]) -> tuple[list[dict], float]:
    import anyio

    records: list[dict] = []
    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for plan in all_plans:
            tg.start_soon(session_calls, url, token, plan, records)
    return records, time.perf_counter() - t0


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else 0.0


def summarize(records: list[dict]) -> dict[str, Any]:
    out = {}
    for tool in sorted({r["tool"] for r in records}):
        rs = [r for r in records if r["tool"] == tool]
        xs = [r["s"] for r in rs]
        errors = [r["error"] for r in rs if r["error"]]
        out[tool] = {"calls": len(rs), "errors": len(errors), "error_examples": sorted(set(errors))[:3],
                     "p50_ms": round(1000 * _pct(xs, 0.5), 1), "p99_ms": round(1000 * _pct(xs, 0.99), 1),
                     "max_ms": round(1000 * max(xs), 1) if xs else 0.0}
    return out


async def warm_up(url: str, token: str, answer: str) -> None:
    out: list[dict] = []
    await session_calls(url, token, [("search", {"query": QUERIES[0], "k": 5}), ("check", {"answer": answer})], out)
    bad = [r for r in out if r["error"]]
    if bad:
        raise SystemExit(f"the warm-up failed: {bad[0]['error']}")


async def figures(url: str, token: str) -> dict[str, Any]:
    """The server's own load figures (the ``ragcode://server`` resource)."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                res = await session.read_resource("ragcode://server")
                return json.loads(res.contents[0].text)  # type: ignore[union-attr]


def snapshot(pid: int, url: str, token: str) -> dict[str, Any]:
    """OS threads, processes and RSS of the server (psutil), and its own figures."""
    import anyio

    own = anyio.run(figures, url, token)
    return {**server_load(pid), "python_threads": own["threads"], "calls_running": own["calls"]["running"],
            "calls_waiting": own["calls"]["waiting"], "calls_started": own["calls"]["started"],
            "calls_stopped": own["calls"]["stopped"]}


def settle(pid: int, url: str, token: str, wait_s: float = 60.0) -> dict[str, Any]:
    """The server's load once no call runs and no process of its is left (or after ``wait_s``)."""
    deadline = time.monotonic() + wait_s
    now = snapshot(pid, url, token)
    while (now["calls_running"] or now["processes"]) and time.monotonic() < deadline:
        time.sleep(0.2)
        now = snapshot(pid, url, token)
    return now


def measure(args: argparse.Namespace, index_dir: Path, scratch: Path) -> dict[str, Any]:
    import anyio

    answers = check_answers(index_dir, args.overrides)
    sets = [a for s in args.overrides for a in ("--set", s)]
    env = {k: v for k, v in os.environ.items() if k != "RAGCODE_SERVE_TOKEN"}
    env["RAGCODE_CACHE"] = str(args.cache or scratch / "cache")
    argv = [sys.executable, "-c", CLI, "serve", str(index_dir), "--http", "127.0.0.1:0", *sets]
    proc, url, token = start_server(argv, scratch / "server.log", env)
    try:
        anyio.run(warm_up, url, token, answers[0])
        before = snapshot(proc.pid, url, token)
        records, wall = anyio.run(run_load, url, token, plans(args.clients, args.calls, answers))
        at_end = server_load(proc.pid)
        settled = settle(proc.pid, url, token)
        log_tail = (scratch / "server.log").read_text().count("Traceback")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    tools = summarize(records)
    return {"clients": args.clients, "calls_per_client": args.calls, "cache": "given" if args.cache else "fresh", "distinct_check_answers": len(answers),
            "wall_s": round(wall, 2), "calls_per_s": round(len(records) / wall, 1), "tools": tools,
            "errors": sum(t["errors"] for t in tools.values()), "server_tracebacks": log_tail,
            "server": {"before": before, "at_end": at_end, "settled": settled}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", required=True, help="index name (under index.root) or folder")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--calls", type=int, default=10, help="calls per client (half search, half check)")
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--cache", type=Path, default=None,
                    help="the server's cache folder (dry-run results); default: a fresh one, so checks start cold")
    ap.add_argument("--out", type=Path, default=Path("results/serve_load.json"))
    args = ap.parse_args(argv)

    from ragcode.config import load_config
    from ragcode.index.store import resolve_index_dir
    from ragcode.version import __version__

    index_dir = resolve_index_dir(args.index, load_config(overrides=args.overrides))
    with tempfile.TemporaryDirectory(prefix="ragcode-serve-load-") as scratch:
        result = measure(args, index_dir, Path(scratch))
    result = {"date": time.strftime("%Y-%m-%d", time.gmtime()), "ragcode": __version__, "commit": _commit(),
              "index": str(index_dir), "config": args.overrides, "cpus": os.cpu_count(),
              "load_1min": round(os.getloadavg()[0], 2), **result}
    _print(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


def _commit() -> str:
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
    print(f"index {r['index']}; {r['clients']} clients x {r['calls_per_client']} calls over loopback HTTP; "
          f"{r['date']} commit {r['commit']}, {r['cpus']} CPUs, load {r['load_1min']}")
    for tool, s in r["tools"].items():
        print(f"  {tool:<7} {s['calls']:>5} calls  errors {s['errors']}  p50 {s['p50_ms']:>8.1f} ms  "
              f"p99 {s['p99_ms']:>8.1f} ms  max {s['max_ms']:>8.1f} ms")
        for example in s["error_examples"]:
            print(f"          error: {example[:200]}")
    srv = r["server"]
    print(f"  {r['calls_per_s']} calls/s over {r['wall_s']} s; errors {r['errors']}; "
          f"tracebacks in the server log {r['server_tracebacks']}")
    for when in ("before", "at_end", "settled"):
        s = srv[when]
        own = (f"  python threads {s['python_threads']:>3}  calls running {s['calls_running']}"
               if "python_threads" in s else "")
        print(f"  server {when:<7} OS threads {s['threads']:>3}  processes {s['processes']:>3}  "
              f"RSS {s['rss_mib']:.0f} MiB{own}")


if __name__ == "__main__":
    main()
