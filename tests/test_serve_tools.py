"""The server's tools in process (the SDK's in-memory ``Client`` on the built server): several
indexes and the ``index`` argument, a call past its time limit, a tool that raises, and the
refusals of ``open_served``."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from agent_helpers import agent_config  # noqa: E402
from index_helpers import make_repo  # noqa: E402
from serve_helpers import serve_fixture, text  # noqa: E402

from ragcode.config import ServeConfig  # noqa: E402
from ragcode.errors import RagcodeError  # noqa: E402
from ragcode.index.build import index_repo  # noqa: E402
from ragcode.serve.served import open_served  # noqa: E402
from ragcode.serve.server import build_server  # noqa: E402
from ragcode.serve.tools import Catalogue  # noqa: E402


def _two_indexes(tmp_path: Path) -> tuple[Catalogue, Path]:
    _, gan_dir = serve_fixture(tmp_path)
    cfg = agent_config(tmp_path)
    demo = index_repo(make_repo(tmp_path / "demo"), cfg, name="demo", progress=False)
    demo.close()
    return Catalogue(open_served([str(gan_dir), str(demo.dir)], cfg)), gan_dir


async def _calls(server, calls):  # noqa: ANN001
    from mcp import Client

    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools, [await client.call_tool(name, args) for name, args in calls]


def test_several_indexes_each_tool_takes_index_default_the_first(tmp_path: Path):
    cat, _ = _two_indexes(tmp_path)
    server = build_server(cat)
    tools, (first, second, unknown, listing) = anyio.run(_calls, server, [
        ("search", {"query": "discriminator leaky relu", "k": 1}),
        ("search", {"query": "discriminator leaky relu", "k": 1, "index": "demo"}),
        ("ls", {"index": "gan/../demo"}),
        ("ls", {"index": "demo"}),
    ])
    for tool in tools.values():
        assert tool.input_schema["properties"]["index"]["enum"] == ["gan", "demo"]
        assert tool.input_schema["properties"]["index"]["default"] == "gan"
    assert "notes.md" not in text(first) and not first.is_error  # the GAN repository has none
    assert second.structured_content["hits"][0]["path"] == "notes.md"
    assert unknown.is_error and text(unknown) == "unknown index 'gan/../demo'; served: gan, demo"
    assert "logo.bin" in text(listing)


def test_two_served_indexes_of_one_name_are_refused(tmp_path: Path):
    _, gan_dir = serve_fixture(tmp_path)
    with pytest.raises(RagcodeError, match="two served indexes are named 'gan'"):
        open_served([str(gan_dir), str(gan_dir)], agent_config(tmp_path))


def test_an_index_whose_repository_is_gone_is_refused(tmp_path: Path):
    import shutil

    repo, gan_dir = serve_fixture(tmp_path)
    shutil.rmtree(repo)
    with pytest.raises(RagcodeError, match="is not there"):
        open_served([str(gan_dir)], agent_config(tmp_path))


def test_a_call_past_its_time_limit_and_a_failing_tool_are_one_line_errors(tmp_path: Path, monkeypatch):
    from ragcode.agent import tools as agent_tools

    _, gan_dir = serve_fixture(tmp_path)
    cat = Catalogue(open_served([str(gan_dir)], agent_config(tmp_path)))
    server = build_server(cat, settings=ServeConfig(timeout_s=0.3))

    def slow_ls(env, path):  # noqa: ANN001
        time.sleep(2)
        raise AssertionError("abandoned")

    def broken_cli(env, script):  # noqa: ANN001
        raise KeyError("a bug\nover two lines")

    monkeypatch.setattr(agent_tools, "ls_tool", slow_ls)
    monkeypatch.setattr(agent_tools, "cli_tool", broken_cli)
    _, (slow, broken, fine) = anyio.run(_calls, server, [
        ("ls", {}), ("cli", {"script": "README.md"}), ("open", {"path": "README.md", "end": 2})])
    assert slow.is_error and text(slow) == "ls: no result within 0.3s; the call was stopped"
    assert broken.is_error and text(broken) == "cli failed: KeyError: 'a bug\\nover two lines'"
    assert not fine.is_error and "README.md (lines 1-2" in text(fine)


@pytest.mark.parametrize("value, expected", [
    ("8765", ("127.0.0.1", 8765)), (":0", ("127.0.0.1", 0)), ("127.0.0.1:8765", ("127.0.0.1", 8765)),
    ("[::1]:9000", ("::1", 9000)), ("0.0.0.0:80", ("0.0.0.0", 80)),
])
def test_http_endpoints_are_read_with_a_loopback_default(value: str, expected: tuple):
    from ragcode.serve.http import parse_http

    assert parse_http(value) == expected


@pytest.mark.parametrize("value", ["localhost:http", "127.0.0.1:-1", "127.0.0.1:70000", ""])
def test_bad_http_endpoints_are_one_line_config_errors(value: str):
    from ragcode.errors import ConfigError
    from ragcode.serve.http import parse_http

    with pytest.raises(ConfigError, match="HOST:PORT with a port from 0 to 65535"):
        parse_http(value)


def test_api_gives_a_definitions_signature_and_a_modules_listing_from_the_index(tmp_path: Path):
    cat, _ = _two_indexes(tmp_path)
    server = build_server(cat)
    tools, (method, module, missing, outside) = anyio.run(_calls, server, [
        ("api", {"name": "Discriminator.forward", "index": "demo"}),
        ("api", {"name": "model.py", "index": "demo"}),
        ("api", {"name": "no_such_function", "index": "demo"}),
        ("api", {"name": "../../etc/passwd.py", "index": "demo"}),
    ])
    assert "api" in tools
    assert not method.is_error and "model.py:6-7 method model.Discriminator.forward: def forward(self, x)" in text(method)
    assert method.structured_content["definitions"][0]["qualname"].endswith("Discriminator.forward")
    assert not module.is_error and "Generator" in text(module) and "Discriminator" in text(module)
    assert missing.is_error and "no definition named 'no_such_function'" in text(missing)
    assert outside.is_error and "\n" not in text(outside)  # read from the index only: nothing to leak


def test_hosts_and_origins_allowed_are_loopback_the_bound_address_and_the_configured_ones():
    from ragcode.serve.http import allowed_hosts, allowed_origins, is_loopback

    local = allowed_hosts("127.0.0.1", [])
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*", "localhost"} <= set(local)
    assert not any("192.0.2.1" in h for h in local)
    remote = allowed_hosts("192.0.2.1", ["mcp.lan", "box:8765"])
    assert {"192.0.2.1", "192.0.2.1:*", "mcp.lan", "mcp.lan:*", "box:8765"} <= set(remote)
    assert "box:8765:*" not in remote
    origins = allowed_origins(["https://editor.lan/"])
    assert "http://localhost:*" in origins and origins[-1] == "https://editor.lan"
    assert [is_loopback(h) for h in ("127.0.0.2", "::1", "localhost", "0.0.0.0", "192.0.2.1", "evil")] == [
        True, True, True, False, False, False]


def test_a_listener_on_an_address_other_than_loopback_warns_before_serving(monkeypatch, caplog):
    """The warning of ``--allow-remote``, without listening anywhere but loopback: the listener is
    given a loopback socket under a documentation address (192.0.2.1) and serves nothing."""
    import logging

    from ragcode.config import load_config
    from ragcode.serve import http
    from ragcode.serve.auth import Token
    from ragcode.serve.run import Listener

    sock = http.bind("127.0.0.1", 0)
    served: list = []
    monkeypatch.setattr(http, "build_app", lambda *a, **k: "app")
    monkeypatch.setattr(http, "run_http", lambda app, s: served.append(app))
    config = load_config(overrides=["serve.allow_remote=true", "serve.allow_run=true"])
    try:
        with caplog.at_level(logging.WARNING, logger="ragcode.serve"):
            Listener("192.0.2.1", sock, Token("t" * 32, "$RAGCODE_SERVE_TOKEN"), config).run(None, lambda url: None)
    finally:
        sock.close()
    assert served == ["app"]
    assert "listening on 192.0.2.1, which is not loopback" in caplog.text and "run code in the sandbox" in caplog.text
