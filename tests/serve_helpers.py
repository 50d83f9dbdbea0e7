"""Helpers for the ``ragcode serve`` tests: the GAN fixture repository and its BM25 index, the
server as a real subprocess (stdio, or streamable HTTP on a free loopback port), and the MCP
SDK's own client sessions on it."""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
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


@contextlib.asynccontextmanager
async def http_session(url: str) -> AsyncIterator[Any]:
    """An initialised ``mcp.ClientSession`` over the SDK's streamable HTTP client."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@contextlib.contextmanager
def http_server(argv: list[str], errlog: Path, wait_s: float = 120.0) -> Iterator[str]:
    """``argv`` (a ``serve ... --http 127.0.0.1:0``) as a subprocess; yields the URL it prints
    once listening, and stops it at the end."""
    with errlog.open("w") as err:
        proc = subprocess.Popen(argv, env=cli_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err)
    try:
        deadline = time.monotonic() + wait_s
        url = None
        while url is None:
            found = re.search(r"at (http://\S+/mcp)", errlog.read_text())
            if found:
                url = found.group(1)
            elif proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start (exit {proc.poll()}):\n{errlog.read_text()[-3000:]}")
            else:
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
