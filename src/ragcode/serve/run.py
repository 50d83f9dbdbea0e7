"""Start a server: check the address and load the token, open the indexes, warm their
searchers, optionally watch the repositories, then speak MCP over stdio or streamable HTTP
until the client (or a signal) ends it. Every setting is ``config.serve`` (``ServeConfig``)."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from ragcode.config import Config
from ragcode.serve.served import ServedIndex, open_served, warm
from ragcode.serve.server import CallLog, build_server
from ragcode.serve.tools import Catalogue

log = logging.getLogger("ragcode.serve")


def prepare(indexes: list[str], config: Config) -> tuple[Catalogue, Any, Any]:
    """(catalogue, MCP server, watcher or None): everything but the transport."""
    cfg = config.serve
    served = open_served(indexes, config)
    for s in served:
        with s.lease() as index:
            warm(index, config)
    cat = Catalogue(served, allow_run=cfg.allow_run, model_config=config if cfg.generate else None)
    server = build_server(cat, CallLog(cfg.log_file or None), cfg)
    watcher = None
    if cfg.watch:
        from ragcode.serve.watch import Watcher

        watcher = Watcher(served, cfg.watch_interval_s)
    return cat, server, watcher


def serve(indexes: list[str], config: Config) -> None:
    """Serve ``indexes`` until the client closes stdin (stdio) or the process is stopped (HTTP)."""
    start = time.perf_counter()
    if not log.isEnabledFor(logging.DEBUG):  # the SDK logs every HTTP session at INFO; -vv shows it
        logging.getLogger("mcp").setLevel(logging.WARNING)
    listener = Listener.open(config) if config.serve.http else None  # a bad address fails before loading
    if listener is None:
        _warn_http_only(config)
    try:
        cat, server, watcher = prepare(indexes, config)
    except BaseException:
        if listener is not None:
            listener.sock.close()
        raise
    names = ", ".join(s.name for s in cat.served)
    if watcher is not None:
        watcher.start()
    try:
        if listener is None:
            from ragcode.serve.stdio import run_stdio

            _ready(f"ragcode serve: {names} over stdio", start)
            run_stdio(server)
        else:
            listener.run(server, lambda url: _ready(f"ragcode serve: {names} at {url}", start))
    finally:
        if watcher is not None:
            watcher.stop()
        _close(cat.served)


class Listener:
    """The HTTP side: the checked, bound address and the token (None: ``serve.auth`` off)."""

    def __init__(self, host: str, sock: Any, token: Any, config: Config):
        self.host, self.sock, self.token, self.config = host, sock, token, config

    @classmethod
    def open(cls, config: Config) -> Listener:
        from ragcode.serve.auth import load_token
        from ragcode.serve.http import bind, check_address, parse_http

        cfg = config.serve
        host, port = parse_http(cfg.http)
        check_address(host, cfg.allow_remote, cfg.auth)
        token = load_token(cfg.token_file, cfg.token_env) if cfg.auth else None
        return cls(host, bind(host, port), token, config)

    def run(self, server: Any, on_ready: Any) -> None:
        from ragcode.serve.http import build_app, is_loopback, run_http, url_of

        url = url_of(self.host, self.sock)
        app = build_app(server, self.host, url, self.config.serve, self.token.value if self.token else None)
        if not is_loopback(self.host):
            log.warning("listening on %s, which is not loopback: whoever reaches the port and has the token "
                        "can read the repository through the tools%s", self.host,
                        " and run code in the sandbox" if self.config.serve.allow_run else "")
        _announce_token(self.token)  # before the ready line, which says the server can be called
        on_ready(url)
        run_http(app, self.sock)


def _warn_http_only(config: Config) -> None:
    """Say so when settings that only HTTP reads were given to a stdio server."""
    cfg, default = config.serve, type(config.serve)()
    given = [f"serve.{name}" for name in ("allow_remote", "auth", "token_file", "allowed_hosts", "allowed_origins",
                                          "max_request_bytes") if getattr(cfg, name) != getattr(default, name)]
    if given:
        log.warning("only HTTP (--http) uses %s; over stdio the client that started the server is the "
                    "only one that can call it", ", ".join(given))


def _announce_token(token: Any) -> None:
    if token is None:
        log.warning("serving without authentication (--no-auth): any program of any user of this "
                    "machine can call the tools")
    elif token.generated:
        print("ragcode serve: bearer token (new at each start; keep one with --token-file or "
              f"$RAGCODE_SERVE_TOKEN): {token.value}", file=sys.stderr, flush=True)
    else:
        print(f"ragcode serve: bearer token from {token.source}", file=sys.stderr, flush=True)


def _ready(line: str, start: float) -> None:
    print(f"{line} (ready in {time.perf_counter() - start:.2f}s)", file=sys.stderr, flush=True)


def _close(served: list[ServedIndex]) -> None:
    for s in served:
        s.close()
