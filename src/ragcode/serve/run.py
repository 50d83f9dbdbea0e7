"""Start a server: open the indexes, warm their searchers, optionally watch the repositories,
then speak MCP over stdio or streamable HTTP until the client (or a signal) ends it."""

from __future__ import annotations

import logging
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcode.config import Config
from ragcode.errors import ConfigError
from ragcode.serve.served import ServedIndex, open_served, warm
from ragcode.serve.server import CallLog, build_server
from ragcode.serve.tools import Catalogue

log = logging.getLogger("ragcode.serve")


@dataclass
class ServeOptions:
    """How to serve: ``http`` is ``HOST:PORT`` (None: stdio), ``watch`` polls the repositories
    every ``watch_interval_s``, ``allow_run`` offers ``run``, ``generate`` offers ``generate``
    (with ``generation.llm``), ``log_file`` gets a JSONL record per call, ``timeout_s`` limits a
    call."""

    http: str | None = None
    watch: bool = False
    watch_interval_s: float = 2.0
    allow_run: bool = False
    generate: bool = False
    log_file: str | Path | None = None
    timeout_s: float = 120.0


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1); ``[::1]:PORT`` for IPv6."""
    text = value.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise ConfigError(f"--http {value!r}: give HOST:PORT with a port from 0 to 65535 (0 = any free port)")
    return host, number


def prepare(indexes: list[str], config: Config, opts: ServeOptions) -> tuple[Catalogue, Any, Any]:
    """(catalogue, MCP server, watcher or None): everything but the transport."""
    served = open_served(indexes, config)
    for s in served:
        with s.lease() as index:
            warm(index, config)
    cat = Catalogue(served, allow_run=opts.allow_run,
                    model_config=config if opts.generate else None)
    server = build_server(cat, CallLog(opts.log_file), opts.timeout_s)
    watcher = None
    if opts.watch:
        from ragcode.serve.watch import Watcher

        watcher = Watcher(served, opts.watch_interval_s)
    return cat, server, watcher


def serve(indexes: list[str], config: Config, opts: ServeOptions) -> None:
    """Serve ``indexes`` until the client closes stdin (stdio) or the process is stopped (HTTP)."""
    start = time.perf_counter()
    if not log.isEnabledFor(logging.DEBUG):  # the SDK logs every HTTP session at INFO; -vv shows it
        logging.getLogger("mcp").setLevel(logging.WARNING)
    endpoint = parse_http(opts.http) if opts.http else None
    cat, server, watcher = prepare(indexes, config, opts)
    names = ", ".join(s.name for s in cat.served)
    if watcher is not None:
        watcher.start()
    try:
        if endpoint is None:
            _ready(f"ragcode serve: {names} over stdio", start)
            run_stdio(server)
        else:
            run_http(server, *endpoint, on_ready=lambda url: _ready(f"ragcode serve: {names} at {url}", start))
    finally:
        if watcher is not None:
            watcher.stop()
        _close(cat.served)


def _ready(line: str, start: float) -> None:
    print(f"{line} (ready in {time.perf_counter() - start:.2f}s)", file=sys.stderr, flush=True)


def _close(served: list[ServedIndex]) -> None:
    for s in served:
        s.close()


def run_stdio(server: Any) -> None:
    """MCP over stdin/stdout until the client closes stdin. While serving, the SDK points fd 1
    at stderr and speaks on a private copy of it; Python-level prints go to stderr as well, so
    nothing a library or a tool prints can land in the protocol stream."""
    import contextlib

    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            with contextlib.redirect_stdout(sys.stderr):
                await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: one the system picks)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"--http {host}:{port}: cannot listen there ({exc.strerror or exc})") from None
    sock.listen(128)
    return sock


def run_http(server: Any, host: str, port: int, on_ready: Any = None) -> None:
    """Streamable HTTP at ``http://HOST:PORT/mcp`` (uvicorn); ``on_ready(url)`` once listening.
    On a loopback host the SDK's DNS-rebinding protection is on; there is no authentication,
    so any other host exposes the repository to whoever reaches the port."""
    import uvicorn

    sock = bind(host, port)
    bound = sock.getsockname()[1]
    app = server.streamable_http_app(host=host)
    shown = f"[{host}]" if ":" in host else host
    if host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("serving on %s without authentication: anyone who reaches the port can read the "
                    "repository through the tools", host)
    if on_ready is not None:
        on_ready(f"http://{shown}:{bound}/mcp")
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
