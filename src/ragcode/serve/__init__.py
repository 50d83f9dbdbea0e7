"""``ragcode serve``: built indexes, the scripts' flag tables and the checks as an MCP tool
server for coding agents and editor assistants (the ``mcp`` extra: ``pip install 'ragcode[mcp]'``).

Modules: ``served`` (the served indexes, each swapped whole after an update), ``tools`` (the
tools, the agent's own tool functions with the arguments a caller outside an episode needs),
``server`` (the MCP handlers: tools, resources, the call log), ``calls`` (each call in a thread
of its own under a cap, a time limit and cancellation), ``watch`` (``--watch``: re-index changed
files while serving), ``http`` and ``auth`` (streamable HTTP: address, Origin/Host checks, the
bearer token), ``run`` (stdio or streamable HTTP). Settings: the ``serve`` config section. See
docs/mcp.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragcode.config import Config


def serve(indexes: list[str], config: Config) -> None:
    """Serve ``indexes`` (names under ``index.root`` or folders) over MCP until stopped, as
    ``config.serve`` says (stdio, or streamable HTTP with ``serve.http``)."""
    from ragcode.errors import ConfigError

    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ConfigError("ragcode serve needs the MCP SDK: pip install 'ragcode[mcp]'") from None
    from ragcode.serve.run import serve as run

    run(indexes, config)


__all__ = ["serve"]
