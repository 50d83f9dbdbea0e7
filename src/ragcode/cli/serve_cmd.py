"""`ragcode serve INDEX [INDEX ...]`: the indexes as an MCP tool server (a skin over
``ragcode.serve.serve``); stdio by default, streamable HTTP with ``--http HOST:PORT``."""

from __future__ import annotations

import json
import select
import sys
from pathlib import Path
from typing import Optional

import typer

from ragcode.cli import common


def serve_command(
    indexes: list[str] = typer.Argument(..., help="Index names (under index.root) or folders; the first is the default."),
    http: Optional[str] = typer.Option(None, "--http", help="Serve streamable HTTP at HOST:PORT (host "
                                       "127.0.0.1 when only :PORT is given; port 0 = any free one) "
                                       "instead of stdio."),
    watch: bool = typer.Option(False, "--watch", help="Re-index changed files while serving."),
    watch_interval: float = typer.Option(2.0, "--watch-interval", min=0.1, help="Seconds between two looks at the repositories."),
    allow_run: bool = typer.Option(False, "--allow-run", help="Offer the run tool (answers run in the sandbox)."),
    llm: Optional[str] = typer.Option(None, "--llm", help="Offer the generate tool with this backend "
                                      "(llamacpp, transformers, openai, vllm, scripted)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model of --llm (alias, path or server model name)."),
    max_chars: Optional[int] = typer.Option(None, "--max-chars", min=200, help="Most characters of one tool result (agent.max_observation_chars)."),
    timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Seconds a tool call may take (run: plus the sandbox timeout)."),
    log: Optional[Path] = typer.Option(None, "--log", help="Append one JSON line per tool call to this file."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
) -> None:
    """Serve indexes to coding agents over MCP: search, open, ls, cli, check (run, generate)."""
    require_mcp(stdio=http is None)  # before any index, config or transport
    from ragcode.serve import serve
    from ragcode.serve.run import ServeOptions

    common.setup_logging()  # stderr: stdout carries the protocol under stdio
    overrides = common.with_flags(set_, generation__llm__backend=llm, generation__llm__model=model,
                                  agent__max_observation_chars=max_chars)
    cfg = common.config_from(config, overrides)
    opts = ServeOptions(http=http, watch=watch, watch_interval_s=watch_interval, allow_run=allow_run,
                        generate=llm is not None, log_file=log, timeout_s=timeout)
    serve(indexes, cfg, opts)


MISSING_MCP = "ragcode serve needs the MCP SDK: pip install 'ragcode[mcp]'"


def require_mcp(stdio: bool) -> None:
    """Stop with one line and exit 2 when the ``mcp`` extra is missing. Under stdio the client
    launched us and shows only "Connection closed" for a server that exits: its first request
    (``initialize``) is answered with a JSON-RPC error carrying the same line, so it shows that."""
    from ragcode.errors import ConfigError

    try:
        import mcp  # noqa: F401
    except ImportError:
        if stdio:
            _answer_first_request(MISSING_MCP)
        raise ConfigError(MISSING_MCP) from None


def _answer_first_request(message: str, wait_s: float = 5.0) -> None:
    """Read the client's first JSON-RPC request from stdin (waiting at most ``wait_s``; nothing
    when stdin is a terminal) and write an error response to it on stdout."""
    stdin = sys.stdin
    try:
        if stdin.isatty() or not select.select([stdin], [], [], wait_s)[0]:
            return
        request = json.loads(stdin.readline(1_000_000))
    except (OSError, ValueError):
        return
    if isinstance(request, dict) and "id" in request:
        reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": message}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def register(app: typer.Typer) -> None:
    """Add ``ragcode serve`` to ``app``."""
    app.command("serve")(common.handle_errors(serve_command))
