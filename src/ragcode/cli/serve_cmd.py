"""`ragcode serve INDEX [INDEX ...]`: the indexes as an MCP tool server (a skin over
``ragcode.serve.serve``); stdio by default, streamable HTTP with ``--http HOST:PORT``. Every
flag is a spelling of a ``serve.*`` (or ``generation.llm.*``, ``agent.*``) override."""

from __future__ import annotations

import json
import select
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common


def _quoted(value: Any) -> str | None:
    """A flag's value as an override that YAML reads back unchanged (``[::1]:80``, paths)."""
    return None if value is None else json.dumps(value if isinstance(value, list) else str(value))


def serve_command(
    indexes: list[str] = typer.Argument(..., help="Index names (under index.root) or folders; the first is the default."),
    http: Optional[str] = typer.Option(None, "--http", help="Serve streamable HTTP at HOST:PORT (host "
                                       "127.0.0.1 when only :PORT is given; port 0 = any free one) "
                                       "instead of stdio (serve.http)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="Allow --http on an address that is not "
                                      "loopback (serve.allow_remote); warns."),
    no_auth: bool = typer.Option(False, "--no-auth", help="No bearer token over HTTP (serve.auth=false); loopback only."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", help="Read the bearer token from this 0600 "
                                              "file, created with a new token if missing (serve.token_file)."),
    allow_origin: Optional[list[str]] = typer.Option(None, "--allow-origin", help="Accept this Origin besides "
                                                     "the loopback ones (serve.allowed_origins; repeatable)."),
    allow_host: Optional[list[str]] = typer.Option(None, "--allow-host", help="Accept this Host besides loopback "
                                                   "and the bound address (serve.allowed_hosts; repeatable)."),
    watch: bool = typer.Option(False, "--watch", help="Re-index changed files while serving (serve.watch)."),
    watch_interval: Optional[float] = typer.Option(None, "--watch-interval", help="Seconds between two looks "
                                                   "at the repositories (serve.watch_interval_s, default 2)."),
    allow_run: bool = typer.Option(False, "--allow-run", help="Offer the run tool (answers run in the sandbox)."),
    llm: Optional[str] = typer.Option(None, "--llm", help="Offer the generate tool with this backend "
                                      "(llamacpp, transformers, openai, vllm, scripted)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model of --llm (alias, path or server model name)."),
    max_chars: Optional[int] = typer.Option(None, "--max-chars", help="Most characters of one tool result (agent.max_observation_chars)."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds a tool call may take (serve.timeout_s, "
                                            "default 120; run: plus the sandbox timeout)."),
    log: Optional[Path] = typer.Option(None, "--log", help="Append one JSON line per tool call to this file (serve.log_file)."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
) -> None:
    """Serve indexes to coding agents over MCP: search, open, ls, cli, api, check (run, generate)."""
    require_mcp(stdio=http is None)  # before any index, config or transport
    from ragcode.serve import serve

    common.setup_logging()  # stderr: stdout carries the protocol under stdio
    overrides = common.with_flags(
        set_, generation__llm__backend=llm, generation__llm__model=model, agent__max_observation_chars=max_chars,
        serve__http=_quoted(http), serve__allow_remote=allow_remote or None, serve__auth=False if no_auth else None,
        serve__token_file=_quoted(token_file), serve__allowed_origins=_quoted(allow_origin),
        serve__allowed_hosts=_quoted(allow_host), serve__watch=watch or None,
        serve__watch_interval_s=watch_interval, serve__allow_run=allow_run or None,
        serve__generate=True if llm is not None else None, serve__timeout_s=timeout, serve__log_file=_quoted(log))
    serve(indexes, common.config_from(config, overrides))


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
