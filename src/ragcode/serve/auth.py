"""The bearer token of ``ragcode serve --http``: where it comes from, and its check.

The token is, in this order: the contents of ``serve.token_file`` (which must be a file of this
user that nobody else can read, mode 0600; a missing one is created with a new token), the
variable ``serve.token_env`` names (``RAGCODE_SERVE_TOKEN``) when it is set, or a new random
token printed once at start. A request must carry ``Authorization: Bearer <token>``; the SDK's
bearer middleware (``mcp.server.auth``) answers 401 without it, and ``StaticTokenVerifier``
compares in constant time.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcode.errors import ConfigError

MIN_CHARS = 16
CLIENT_ID = "ragcode-serve-client"


@dataclass(frozen=True)
class Token:
    """The token and where it came from (``generated``, ``file PATH``, ``$NAME``)."""

    value: str
    source: str

    @property
    def generated(self) -> bool:
        return self.source == "generated"


def load_token(token_file: str, token_env: str) -> Token:
    """The server's token from ``token_file``, else ``$token_env``, else a new one."""
    if token_file:
        return Token(_from_file(Path(token_file).expanduser()), f"file {token_file}")
    from_env = os.environ.get(token_env, "") if token_env else ""
    if from_env:
        return Token(_valid(from_env.strip(), f"${token_env}"), f"${token_env}")
    return Token(new_token(), "generated")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _valid(value: str, where: str) -> str:
    if len(value) < MIN_CHARS or any(c.isspace() or not c.isprintable() for c in value):
        raise ConfigError(f"the serve token in {where} must be at least {MIN_CHARS} printable characters "
                          "without spaces; make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'")
    return value


def _from_file(path: Path) -> str:
    """The token in ``path``; a missing file is created (0600) with a new token."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read_private(path)
    except OSError as exc:
        raise ConfigError(f"serve.token_file {path}: cannot create it ({exc.strerror or exc})") from None
    token = new_token()
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token


def _read_private(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ConfigError(f"serve.token_file {path}: cannot read it ({exc.strerror or exc}); "
                          "it must be a plain file, not a link") from None
    with os.fdopen(fd, encoding="utf-8", errors="replace") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"serve.token_file {path} is not a plain file")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise ConfigError(f"serve.token_file {path} can be read by others (mode "
                              f"{stat.S_IMODE(st.st_mode):04o}); make it yours alone: chmod 600 {path}")
        return _valid(fh.read(4096).strip(), f"serve.token_file {path}")


class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` for one shared token, compared in constant time."""

    def __init__(self, token: str):
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        if not hmac.compare_digest(token.encode("utf-8", "replace"), self._token):
            return None
        return AccessToken(token=token, client_id=CLIENT_ID, scopes=[])
