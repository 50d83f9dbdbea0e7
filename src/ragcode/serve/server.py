"""The MCP server over a ``Catalogue``: ``build_server(catalogue, call_log, settings)`` returns
the SDK's low-level ``mcp.server.lowlevel.Server`` with its handlers.

- ``tools/list``: the catalogue's tools, each with its JSON schema and description;
- ``tools/call``: the tool in a worker thread of its own (``ragcode.serve.calls``: at most
  ``serve.max_concurrent`` at once, ``serve.max_queued`` waiting), within ``serve.timeout_s``,
  and stopped, its processes killed, when the client cancels or goes away; every failure of
  the call (an argument over ``serve.max_argument_chars``, unknown tool, a wrong argument type,
  a path out of the repository, a broken index, a timeout, a bug) is one line in a result with
  ``isError``, so the server never stops on a call; every call is logged with its duration;
- ``resources/list`` / ``resources/read``: ``ragcode://indexes`` (every served index),
  ``ragcode://index/NAME`` (one index: its repository, folder and manifest) and
  ``ragcode://server`` (its load: calls running and waiting, threads, processes), as JSON.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

from ragcode.agent.schema import Observation, Tool, ToolCallError
from ragcode.config import ServeConfig
from ragcode.errors import RagcodeError
from ragcode.serve.calls import CallCancelled, CallRunner
from ragcode.serve.tools import Catalogue, structured

log = logging.getLogger("ragcode.serve")

_ERROR_CHARS = 500
_INDEXES_URI = "ragcode://indexes"
_INDEX_URI = "ragcode://index/"
_SERVER_URI = "ragcode://server"


def one_line(text: str, limit: int = _ERROR_CHARS) -> str:
    line = "; ".join(part.strip() for part in str(text).splitlines() if part.strip()) or "failed"
    return line if len(line) <= limit else line[: limit - 3] + "..."


class CallLog:
    """Every tool call as a log line (``ragcode.serve``, INFO) and, with ``path``, a JSONL record
    ``{"time", "tool", "arguments", "seconds", "error", "chars"}`` (long argument values cut)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def record(self, tool: str, arguments: Any, seconds: float, error: str, chars: int) -> None:
        log.info("%s %.3fs%s", tool, seconds, f" error: {error}" if error else f" ({chars} chars)")
        if self.path is None:
            return
        from ragcode.fileio import append_line

        args = {k: (v if not isinstance(v, str) or len(v) <= 300 else v[:300] + "...")
                for k, v in arguments.items()} if isinstance(arguments, dict) else arguments
        rec = {"time": round(time.time(), 3), "tool": tool, "arguments": args, "seconds": round(seconds, 4),
               "error": error, "chars": chars}
        with self._lock:
            append_line(self.path, rec)


def input_schema(tool: Tool, cat: Catalogue) -> dict[str, Any]:
    """The tool's JSON schema, with the bounds the tools enforce spelled out."""
    schema = tool.schema()
    props = schema["properties"]
    if "k" in props:
        props["k"].update(minimum=1, maximum=20)
    for name in ("start", "end"):
        if name in props:
            props[name]["minimum"] = 0 if name == "end" else 1
    if "index" in props:
        props["index"]["enum"] = [s.name for s in cat.served]
    return schema


def call_timeout(name: str, cat: Catalogue, timeout_s: float) -> float:
    """The time limit of one call: ``timeout_s``; ``run`` gets its sandbox timeout on top."""
    if name != "run":
        return timeout_s
    cfg = cat.served[0].config
    return timeout_s + float(cfg.bench.exec_timeout_s or cfg.execution.timeout_s)


def run_call(cat: Catalogue, tools: dict[str, Tool], name: str, arguments: Any) -> Observation:
    """One call, synchronously: the tool's strict argument check, then its function."""
    tool = tools.get(name)
    if tool is None:
        raise ToolCallError(f"unknown tool {name!r}; the tools are {', '.join(tools)}")
    return tool(cat, {} if arguments is None else arguments)


def check_sizes(name: str, arguments: Any, limit: int) -> None:
    """Refuse a call with a string argument (at any depth) longer than ``limit`` characters."""
    stack = list(arguments.items()) if isinstance(arguments, dict) else []
    while stack:
        key, value = stack.pop()
        if isinstance(value, str) and len(value) > limit:
            raise ToolCallError(f"{name}: argument {key!r} has {len(value)} characters; this server takes "
                                f"at most {limit} (serve.max_argument_chars)")
        if isinstance(value, dict):
            stack += [(key, v) for v in value.values()]
        elif isinstance(value, list):
            stack += [(key, v) for v in value]


async def answer_call(cat: Catalogue, tools: dict[str, Tool], runner: CallRunner, settings: ServeConfig,
                      name: str, arguments: Any, stop: Any) -> tuple[Observation | None, str]:
    """(observation, "") or (None, the one-line error) of one call."""
    limit = call_timeout(name, cat, settings.timeout_s)
    try:
        check_sizes(name, arguments, settings.max_argument_chars)
        return await runner.run(name, run_call, cat, tools, name, arguments, timeout_s=limit, stop=stop), ""
    except (ToolCallError, RagcodeError) as exc:
        return None, one_line(str(exc))
    except TimeoutError:
        return None, f"{name}: no result within {limit:g}s; the call was stopped"
    except CallCancelled:
        return None, f"{name}: cancelled, the client went away; the call was stopped"
    except Exception as exc:  # noqa: BLE001 - a failing call must not take the server down
        log.exception("tool %s failed", name)
        return None, one_line(f"{name} failed: {type(exc).__name__}: {exc}")


def build_server(cat: Catalogue, call_log: CallLog | None = None, settings: ServeConfig | None = None) -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from ragcode.serve.http import client_gone
    from ragcode.version import __version__

    settings = settings or ServeConfig()
    tools = {t.name: t for t in cat.tools()}
    listed = [types.Tool(name=t.name, description=t.description, input_schema=input_schema(t, cat),
                         annotations=types.ToolAnnotations(read_only_hint=t.name not in ("run", "generate"),
                                                           open_world_hint=False))
              for t in tools.values()]
    calls = call_log or CallLog()
    runner = CallRunner(settings.max_concurrent, settings.max_queued)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        name, arguments = params.name, params.arguments
        start = time.perf_counter()
        obs, error = None, "cancelled by the client; the call was stopped"
        try:
            obs, error = await answer_call(cat, tools, runner, settings, name, arguments, client_gone(ctx))
        finally:
            calls.record(name, arguments, time.perf_counter() - start, error, len(obs.text) if obs else 0)
        if obs is None:
            return types.CallToolResult(content=[types.TextContent(text=error)], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=obs.text)],
                                    structured_content=structured(obs))

    async def list_resources(ctx: Any, params: Any) -> Any:
        res = [types.Resource(uri=_INDEXES_URI, name="indexes", mime_type="application/json",
                              description="every served index: name, repository, counts"),
               types.Resource(uri=_SERVER_URI, name="server", mime_type="application/json",
                              description="the server's load: calls running and waiting, threads, processes")]
        res += [types.Resource(uri=_INDEX_URI + s.name, name=s.name, mime_type="application/json",
                               description=f"index {s.name} of {s.repo}: its manifest") for s in cat.served]
        return types.ListResourcesResult(resources=res)

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        if uri == _INDEXES_URI:
            body: Any = [_summary(s.describe()) for s in cat.served]
        elif uri == _SERVER_URI:
            body = server_load(runner)
        elif uri.startswith(_INDEX_URI) and any(s.name == uri[len(_INDEX_URI):] for s in cat.served):
            body = next(s for s in cat.served if s.name == uri[len(_INDEX_URI):]).describe()
        else:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r}; see resources/list")
        text = json.dumps(body, indent=1, ensure_ascii=False)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=text)])

    return Server("ragcode", version=__version__, instructions=_instructions(cat),
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_read_resource=read_resource)


def server_load(runner: CallRunner) -> dict[str, Any]:
    """The ``ragcode://server`` figures: the calls (``CallRunner.stats``), the Python threads
    and the processes this server has started that are still running."""
    import psutil

    return {"calls": runner.stats(), "threads": threading.active_count(),
            "processes": len(psutil.Process().children(recursive=True))}


def _summary(desc: dict[str, Any]) -> dict[str, Any]:
    m = desc["manifest"]
    return {"name": desc["name"], "repo": desc["repo"], "index_dir": desc["index_dir"],
            "updates": desc["updates"], "counts": m.get("counts"), "embedder": (m.get("embedder") or {}).get("name"),
            "updated_at": m.get("updated_at")}


def _instructions(cat: Catalogue) -> str:
    names = ", ".join(f"{s.name} ({s.repo.name})" for s in cat.served)
    return (f"ragcode serves the repository index(es) {names}. Find how a repository does something "
            "with search, read files with open and ls, read a script's real flags with cli, and "
            "check a command before running it with check.")
