"""Helpers for the ``ragcode serve`` tests: the GAN fixture repository and its BM25 index, the
server as a real subprocess (stdio, or streamable HTTP on a free loopback port), and the MCP
SDK's own client sessions on it."""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

from agent_helpers import gan_index
from bench_helpers import cli_argv, cli_env

FAST = ("embedder.enabled=false", "retrieval.mode=bm25")


def serve_fixture(tmp_path: Path) -> tuple[Path, Path]:
    """(repository, index folder) of the GAN fixture repository, indexed with BM25 only."""
    repo, _, index = gan_index(tmp_path)
    index.close()
    return repo, index.dir


def serve_argv(index_dir: Path, *flags: str) -> list[str]:
    """``ragcode serve INDEX`` in a fresh interpreter with the fast settings and ``flags``."""
    sets = [a for s in FAST for a in ("--set", s)]
    return cli_argv("serve", str(index_dir), *sets, *flags)


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@contextlib.asynccontextmanager
async def stdio_session(argv: list[str], errlog: Path) -> AsyncIterator[Any]:
    """An initialised ``mcp.ClientSession`` on ``argv`` spawned by the SDK's stdio client;
    the server's stderr goes to ``errlog``."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=cli_env())
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@contextlib.asynccontextmanager
async def http_session(url: str, token: str | None = None) -> AsyncIterator[Any]:
    """An initialised ``mcp.ClientSession`` over the SDK's streamable HTTP client, sending
    ``token`` as the bearer token."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=bearer(token)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@dataclass
class HttpServer:
    """A running ``serve --http``: its URL, the bearer token it printed (None when it printed
    none), the process and its stderr log."""

    url: str
    token: str | None
    proc: subprocess.Popen
    log: Path

    def text(self) -> str:
        return self.log.read_text()


TOKEN_LINE = re.compile(r"bearer token \(new at each start[^)]*\): (\S+)")


@contextlib.contextmanager
def http_server(argv: list[str], errlog: Path, wait_s: float = 120.0, **env: str) -> Iterator[HttpServer]:
    """``argv`` (a ``serve ... --http 127.0.0.1:0``) as a subprocess with ``env`` added (and no
    inherited ``RAGCODE_SERVE_TOKEN``); yields it once it prints its URL, stops it at the end."""
    environ = {k: v for k, v in cli_env(**env).items() if k != "RAGCODE_SERVE_TOKEN" or k in env}
    with errlog.open("w") as err:
        proc = subprocess.Popen(argv, env=environ, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err)
    try:
        deadline = time.monotonic() + wait_s
        while not re.search(r"at (http://\S+/mcp)", errlog.read_text()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start (exit {proc.poll()}):\n{errlog.read_text()[-3000:]}")
            time.sleep(0.05)
        text = errlog.read_text()
        url = re.search(r"at (http://\S+/mcp)", text).group(1)  # type: ignore[union-attr]
        token = TOKEN_LINE.search(text)
        yield HttpServer(url, token.group(1) if token else None, proc, errlog)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bash(code: str) -> str:
    """An answer for ``run``/``check``: a fenced bash block (plain text is read as Python)."""
    return f"```bash\n{code}\n```"


def load_of(pid: int) -> tuple[int, int]:
    """(threads, descendant processes) of the process ``pid``."""
    import psutil

    proc = psutil.Process(pid)
    return proc.num_threads(), len(proc.children(recursive=True))


async def until(condition: Any, deadline_s: float = 60.0) -> bool:
    """Poll ``condition()`` until it holds (True) or ``deadline_s`` passes (False): a bound on a
    wait that should end, never a measure of speed."""
    import anyio

    deadline = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await anyio.sleep(0.05)
    return True


JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw-test-client", "version": "1"}}}


def raw_session(client: Any, url: str, token: str | None) -> dict[str, str]:
    """Initialise a session with plain HTTP requests (``client``: an ``httpx.Client``); the
    headers every later request of the session carries."""
    headers = {**JSON_HEADERS, **bearer(token)}
    reply = client.post(url, headers=headers, json=INITIALIZE)
    assert reply.status_code == 200, reply.text
    headers.update({"mcp-session-id": reply.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"})
    assert client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
                       ).status_code == 202
    return headers
