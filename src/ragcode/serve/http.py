"""Streamable HTTP for ``ragcode serve --http``: where it listens, who may call, and how.

- **Address.** ``serve.http`` is ``HOST:PORT`` (``:PORT``: 127.0.0.1). An address that is not
  loopback is refused unless ``serve.allow_remote`` is set, and then warned about.
- **Origin and Host** (DNS rebinding, as the MCP transport specification asks): the SDK's
  ``TransportSecuritySettings`` list the loopback names, the bound address and
  ``serve.allowed_hosts`` / ``serve.allowed_origins``; ``CheckOriginFirst`` applies them
  before authentication, so an unknown ``Origin`` is 403 and an unknown ``Host`` 421 whether or
  not the request carries the token.
- **Token.** With ``serve.auth`` (the default) the SDK's bearer middleware asks every request
  for the token (``ragcode.serve.auth``); 401 without it.
- **Size.** A request body over ``serve.max_request_bytes`` is 413 (the SDK's body limit).
- **Disconnects.** ``WatchDisconnect`` marks a POST whose client closed the connection, so the
  tool call it carries is cancelled (``ragcode.serve.calls``).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

from ragcode.errors import ConfigError

log = logging.getLogger("ragcode.serve")

CLIENT_GONE = "ragcode.client_gone"  # the ASGI scope key of a POST's disconnect event
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


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


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_address(host: str, allow_remote: bool, auth: bool) -> None:
    """Refuse an address other than loopback without ``allow_remote``, and one without the token."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise ConfigError(f"--http {host}: not a loopback address; anyone who reaches it could use the "
                          "tools, so say so with --allow-remote (serve.allow_remote=true), or serve on 127.0.0.1")
    if not auth:
        raise ConfigError(f"--http {host} with --no-auth: an address other than loopback needs the token")


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """Host header values accepted: each name bare and with any port."""
    names = list(LOOPBACK_NAMES)
    if not is_loopback(host):
        names += _own_names() if host in ("0.0.0.0", "::") else [_shown(host)]
    names += extra
    return list(dict.fromkeys(value for name in names for value in _any_port(name)))


def _any_port(name: str) -> list[str]:
    """``name`` and ``name:*``, unless it already names a port."""
    has_port = name.endswith(":*") or (name.rpartition(":")[2].isdigit() and not name.endswith("]"))
    return [name] if has_port else [name, f"{name}:*"]


def _own_names() -> list[str]:
    """This machine's names and addresses, for a server listening on every address."""
    found = {socket.gethostname(), socket.getfqdn()}
    try:
        found |= {_shown(str(info[4][0])) for info in socket.getaddrinfo(socket.gethostname(), None)}
    except OSError:
        pass
    return sorted(n for n in found if n)


def allowed_origins(extra: list[str]) -> list[str]:
    loopback = [f"{scheme}://{name}{port}" for scheme in ("http", "https") for name in LOOPBACK_NAMES
                for port in ("", ":*")]
    return loopback + [o.rstrip("/") for o in extra if o.rstrip("/") not in loopback]


def security_settings(host: str, cfg: Any) -> Any:
    """The SDK's DNS-rebinding settings for a server on ``host`` (``cfg``: ``ServeConfig``)."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=allowed_hosts(host, list(cfg.allowed_hosts)),
                                     allowed_origins=allowed_origins(list(cfg.allowed_origins)))


class CheckOriginFirst:
    """ASGI middleware: the SDK's Host and Origin check, before authentication runs."""

    def __init__(self, app: Any, settings: Any):
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app = app
        self.check = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.requests import Request

            request = Request(scope)
            refused = await self.check.validate_request(request, is_post=False)
            if refused is not None:
                log.warning("refused a request (%s) with Host %r, Origin %r: a client on another name "
                            "belongs in serve.allowed_hosts / serve.allowed_origins", refused.status_code,
                            request.headers.get("host"), request.headers.get("origin"))
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


class WatchDisconnect:
    """ASGI middleware: ``scope[CLIENT_GONE]``, an event set when a POST's client disconnects."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        import anyio

        gone = anyio.Event()
        scope[CLIENT_GONE] = gone

        async def watched() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect":
                gone.set()
            return message

        await self.app(scope, watched, send)


def client_gone(ctx: Any) -> Any:
    """The disconnect event of the HTTP request that carried a call, or None (stdio, in memory)."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    return scope.get(CLIENT_GONE) if isinstance(scope, dict) else None


def build_app(server: Any, host: str, url: str, cfg: Any, token: str | None) -> Any:
    """The Starlette app of ``server`` at ``url`` (``token`` None: no authentication)."""
    settings = security_settings(host, cfg)
    auth: dict[str, Any] = {}
    if token is not None:
        from mcp.server.auth.settings import AuthSettings
        from pydantic import AnyHttpUrl

        from ragcode.serve.auth import StaticTokenVerifier

        # the SDK adds its bearer middleware when given settings and a verifier; with no
        # authorization server and no resource URL it serves no OAuth routes (issuer_url unused)
        auth = {"auth": AuthSettings(issuer_url=AnyHttpUrl(url), resource_server_url=None),
                "token_verifier": StaticTokenVerifier(token)}
    app = server.streamable_http_app(host=host, transport_security=settings,
                                     max_request_body_size=cfg.max_request_bytes, **auth)
    app.add_middleware(WatchDisconnect)
    app.add_middleware(CheckOriginFirst, settings=settings)  # outermost: before the bearer check
    return app


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


def url_of(host: str, sock: socket.socket) -> str:
    return f"http://{_shown(host)}:{sock.getsockname()[1]}/mcp"


def run_http(app: Any, sock: socket.socket) -> None:
    """Serve ``app`` on the listening ``sock`` (uvicorn) until the process is stopped."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
