"""The config sections that say how a command runs rather than what it computes: ``scale``
(how work is spread) and ``serve`` (the MCP server). Neither is part of ``Config.hash``, so
results and caches do not change with them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from ragcode.config_fields import NonNegative, Positive, PositiveFloat, Section


class ScaleConfig(Section):  # how work is spread (ragcode.scale)
    workers: Positive = 1  # --workers: tasks (samples, cells) in flight at once
    max_local_models: Positive = 1  # local model copies in memory at once (one per worker process)
    ray_address: str = ""  # --ray: local, auto or ray://host:port; "" = no Ray


class ServeConfig(Section):  # ragcode serve (docs/mcp.md)
    http: str = ""  # --http HOST:PORT: streamable HTTP (":PORT" = 127.0.0.1, port 0 = any free one); "" = stdio
    allow_remote: bool = False  # --allow-remote: listen on an address that is not loopback (warns)
    auth: bool = True  # HTTP asks for the bearer token; --no-auth only on a loopback address
    token_file: str = ""  # --token-file: the token from this file (0600; made with a new token if missing)
    token_env: str = "RAGCODE_SERVE_TOKEN"  # else from this variable when set; else a new one, printed once
    allowed_hosts: list[str] = Field(default_factory=list)  # Host headers besides loopback and the bound address
    allowed_origins: list[str] = Field(default_factory=list)  # Origin headers besides loopback ones
    timeout_s: PositiveFloat = 120.0  # --timeout: one call, from its arrival (run: plus the sandbox timeout)
    max_concurrent: Positive = 4  # calls running at once, each in a thread of its own
    max_queued: NonNegative = 64  # calls waiting for a free one; beyond, a call is refused as busy
    max_argument_chars: Positive = 100_000  # the longest string argument a call may carry
    max_request_bytes: Positive = 1_000_000  # the largest HTTP request body (413 beyond)
    watch: bool = False  # --watch: re-index changed files while serving
    watch_interval_s: Annotated[float, Field(ge=0.1)] = 2.0  # --watch-interval
    allow_run: bool = False  # --allow-run: offer run (the sandbox)
    generate: bool = False  # offer generate with generation.llm (--llm sets it)
    log_file: str = ""  # --log: one JSON line per call

    @field_validator("http", mode="before")
    @classmethod
    def _port_alone(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value  # serve.http=8765
