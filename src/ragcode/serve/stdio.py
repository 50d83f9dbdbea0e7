"""MCP over stdin/stdout (``ragcode serve`` without ``--http``).

While serving, the SDK points fd 1 at stderr and speaks on a private copy of it; Python-level
prints go to stderr as well, so nothing a library or a tool prints can land in the protocol
stream. A line that is not a JSON-RPC message, which the SDK's stdio transport drops without a
word, is answered (an empty line is skipped) with the JSON-RPC error it deserves (``-32700`` parse error, ``-32600``
invalid request; id null, since a line that does not parse has no id to echo) and logged.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any

log = logging.getLogger("ragcode.serve")


def error_for(exc: Exception) -> Any:
    """The JSON-RPC error answering a line the SDK could not read as a message."""
    import mcp_types as types

    errors: list[Any] = getattr(exc, "errors", list)()
    if any(e.get("type") == "json_invalid" for e in errors):
        code, message = types.PARSE_ERROR, "Parse error: the line is not JSON"
    else:
        code, message = types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request, notification or response"
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message))


def _blank(exc: Exception) -> bool:
    errors: list[Any] = getattr(exc, "errors", list)()
    return bool(errors) and all(isinstance(e.get("input"), str) and not e["input"].strip() for e in errors)


class AnswerMalformed:
    """The SDK's stdio read stream, answering each unreadable line instead of dropping it."""

    def __init__(self, read: Any, write: Any):
        self._read, self._write = read, write

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK's dispatcher restores
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        from mcp.shared.message import SessionMessage

        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            if _blank(item):
                continue  # an empty line is no message, and no error either
            error = error_for(item)
            log.warning("answered an unreadable line on stdin with %s", error.error.message)
            await self._write.send(SessionMessage(error))

    def __aiter__(self) -> AnswerMalformed:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> AnswerMalformed:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


def run_stdio(server: Any) -> None:
    """MCP over stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            with contextlib.redirect_stdout(sys.stderr):
                await server.run(AnswerMalformed(read, write), write, server.create_initialization_options())

    anyio.run(main)
