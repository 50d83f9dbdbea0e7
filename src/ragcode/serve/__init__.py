"""``ragcode serve``: built indexes, the scripts' flag tables and the checks as an MCP tool
server for coding agents and editor assistants (the ``mcp`` extra: ``pip install 'ragcode[mcp]'``).

Modules: ``served`` (the served indexes, each swapped whole after an update), ``tools`` (the
tools, the agent's own tool functions with the arguments a caller outside an episode needs),
``server`` (the MCP handlers: tools, resources, the call log), ``watch`` (``--watch``: re-index
changed files while serving), ``run`` (stdio or streamable HTTP). See docs/mcp.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragcode.config import Config
    from ragcode.serve.run import ServeOptions


def serve(indexes: list[str], config: Config, options: ServeOptions | None = None) -> None:
    """Serve ``indexes`` (names under ``index.root`` or folders) over MCP until stopped."""
    from ragcode.errors import ConfigError

    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ConfigError("ragcode serve needs the MCP SDK: pip install 'ragcode[mcp]'") from None
    from ragcode.serve.run import ServeOptions, serve as run

    run(indexes, config, options or ServeOptions())


__all__ = ["serve"]
