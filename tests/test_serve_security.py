"""``ragcode serve --http`` against callers it must refuse: no or a wrong bearer token (401), an
unknown Origin (403, token or not) or Host (421), an oversize body (413) or argument, malformed
JSON-RPC, and paths that try to leave the repository (``..``, absolute, a link, percent-encoded,
NUL, backslashes); each is answered in one line and the server goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from serve_helpers import (INITIALIZE, JSON_HEADERS, bearer, http_server, http_session, raw_session,  # noqa: E402
                           serve_argv, serve_fixture, text)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("serve-security")
    repo, index_dir = serve_fixture(tmp)
    (repo / "link_out").symlink_to("/etc")
    argv = serve_argv(index_dir, "--http", "127.0.0.1:0", "--set", "serve.max_request_bytes=20000",
                      "--set", "serve.max_argument_chars=1000")
    with http_server(argv, tmp / "server.log") as running:
        yield running


def _post(server: Any, headers: dict[str, str], body: Any = INITIALIZE) -> httpx.Response:
    content = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return httpx.post(server.url, headers={**JSON_HEADERS, **headers}, content=content, timeout=30)


def test_the_token_is_printed_once_and_a_request_without_it_gets_401(server: Any):
    assert server.token and len(server.token) >= 32
    assert server.text().count(server.token) == 1
    for headers in ({}, bearer("x" + server.token), bearer(server.token.upper()), bearer(""),
                    {"Authorization": f"Basic {server.token}"}, {"Authorization": server.token}):
        reply = _post(server, headers)
        assert reply.status_code == 401, headers
        assert reply.headers["www-authenticate"].startswith("Bearer ")
        assert server.token not in reply.text
    reply = _post(server, bearer(server.token))
    assert reply.status_code == 200 and '"serverInfo"' in reply.text


def test_an_unknown_origin_is_403_with_or_without_the_token_and_a_local_one_is_served(server: Any):
    for headers in ({}, bearer(server.token)):
        for origin in ("http://evil.example", "http://127.0.0.1.evil.example:80", "null"):
            assert _post(server, {**headers, "Origin": origin}).status_code == 403, (origin, headers)
    port = server.url.split(":")[2].split("/")[0]
    local = _post(server, {**bearer(server.token), "Origin": f"http://localhost:{port}"})
    assert local.status_code == 200


def test_an_unknown_host_is_421(server: Any):
    for host in ("evil.example", "evil.example:80", "127.0.0.1.evil.example"):
        assert _post(server, {**bearer(server.token), "Host": host}).status_code == 421, host


def test_an_oversize_body_is_413_and_an_oversize_argument_a_one_line_tool_error(server: Any):
    huge = dict(INITIALIZE, params=dict(INITIALIZE["params"], pad="x" * 30_000))
    assert _post(server, bearer(server.token), huge).status_code == 413

    async def main() -> Any:
        async with http_session(server.url, server.token) as s:
            return (await s.call_tool("check", {"answer": "python " + "a" * 5000}),
                    await s.call_tool("search", {"query": ["x" * 2000]}),
                    await s.call_tool("ls", {}))

    long_answer, nested, after = anyio.run(main)
    assert long_answer.is_error and text(long_answer) == (
        "check: argument 'answer' has 5007 characters; this server takes at most 1000 (serve.max_argument_chars)")
    assert nested.is_error and "serve.max_argument_chars" in text(nested)
    assert not after.is_error


def test_malformed_json_rpc_gets_a_json_rpc_error_and_the_session_goes_on(server: Any):
    with httpx.Client(timeout=30) as client:
        headers = raw_session(client, server.url, server.token)
        # the SDK's HTTP transport answers a message of the wrong shape with -32602 and the
        # validation errors (stdio, where ragcode answers itself, says -32600)
        cases = {"{not json": {-32700}, json.dumps({"jsonrpc": "2.0", "id": 5}): {-32600, -32602},
                 json.dumps({"jsonrpc": "1.0", "id": 6, "method": "tools/list"}): {-32600, -32602}}
        for body, codes in cases.items():
            reply = client.post(server.url, headers=headers, content=body)
            assert reply.status_code == 400, body
            assert reply.json()["error"]["code"] in codes and "Traceback" not in reply.text, reply.text
        bad_params = client.post(server.url, headers=headers, json={
            "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ls", "arguments": ["."]}})
        listed = client.post(server.url, headers=headers, json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    assert '"code":-32602' in bad_params.text.replace(" ", "")
    assert "Traceback" not in bad_params.text
    assert listed.status_code == 200 and '"name":"search"' in listed.text.replace(" ", "")


ESCAPES = [
    "../../../../etc/passwd", "/etc/passwd", "link_out/passwd", "implementations/../../../../etc/passwd",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "..%2f..%2f..%2fetc%2fpasswd", "..\\..\\..\\etc\\passwd",
    "README.md\0/../../../etc/passwd", "file:///etc/passwd", "~/../../etc/passwd", "\u2024\u2024/\u2024\u2024/etc/passwd",
    "implementations/./../../../etc/passwd", "//etc/passwd",
]


def test_paths_that_try_to_leave_the_repository_never_show_a_file_outside_it(server: Any):
    async def main() -> list:
        async with http_session(server.url, server.token) as s:
            out = []
            for path in ESCAPES:
                out.append((path, "open", await s.call_tool("open", {"path": path})))
                out.append((path, "ls", await s.call_tool("ls", {"path": path.rsplit("/", 1)[0] or path})))
                out.append((path, "cli", await s.call_tool("cli", {"script": path})))
            return out

    for path, tool, result in anyio.run(main):
        message = text(result)
        assert result.is_error, (tool, path, message)
        assert "\n" not in message and "Traceback" not in message, (tool, path, message)
        assert "root:" not in message and "/bin/" not in message, (tool, path, message)
    assert "Traceback" not in server.text()


def test_no_auth_on_loopback_serves_without_a_token_and_warns(tmp_path: Path):
    _, index_dir = serve_fixture(tmp_path)
    with http_server(serve_argv(index_dir, "--http", "127.0.0.1:0", "--no-auth"), tmp_path / "server.log") as srv:
        reply = _post(srv, {})
        assert srv.token is None and "bearer token" not in srv.text()
    assert reply.status_code == 200
    assert "serving without authentication" in srv.text()


def test_a_token_file_is_made_private_and_then_read_and_an_environment_token_is_used(tmp_path: Path):
    _, index_dir = serve_fixture(tmp_path)
    token_file = tmp_path / "secret" / "token"
    token_file.parent.mkdir()
    argv = serve_argv(index_dir, "--http", "127.0.0.1:0", "--token-file", str(token_file))
    with http_server(argv, tmp_path / "first.log") as srv:
        made = token_file.read_text().strip()
        first = _post(srv, bearer(made)).status_code
    assert first == 200 and token_file.stat().st_mode & 0o777 == 0o600
    assert made not in srv.text() and f"bearer token from file {token_file}" in srv.text()
    with http_server(argv, tmp_path / "second.log") as srv:
        again = _post(srv, bearer(made)).status_code
    assert again == 200  # the same token across restarts
    chosen = "an-environment-token-of-enough-length"
    with http_server(serve_argv(index_dir, "--http", "127.0.0.1:0"), tmp_path / "env.log",
                     RAGCODE_SERVE_TOKEN=chosen) as srv:
        codes = (_post(srv, bearer(chosen)).status_code, _post(srv, {}).status_code)
    assert codes == (200, 401) and chosen not in srv.text()
