"""``ragcode serve --http 127.0.0.1:0 --watch`` as a real server process, driven by the MCP SDK's
streamable HTTP client: several clients at once, hostile arguments answered in one line, a file
edited while serving found by a later search, and requests naming another host refused."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from serve_helpers import bearer, http_server, http_session, serve_argv, serve_fixture, text  # noqa: E402

NEW_WORD = "quokkafeature"


def test_http_serves_several_clients_and_finds_a_file_edited_while_serving(tmp_path: Path):
    repo, index_dir = serve_fixture(tmp_path)
    argv = serve_argv(index_dir, "--http", "127.0.0.1:0", "--watch", "--watch-interval", "0.2")

    async def client(url: str, query: str, out: list) -> None:
        async with http_session(url, token) as s:
            tools = [t.name for t in (await s.list_tools()).tools]
            hit = await s.call_tool("search", {"query": query, "k": 2})
            bad = await s.call_tool("open", {"path": "../../etc/passwd"})
            out.append((tools, hit, bad))

    async def wait_for_new_word(url: str) -> list[str]:
        async with http_session(url, token) as s:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                res = await s.call_tool("search", {"query": NEW_WORD, "k": 3})
                paths = [h["path"] for h in (res.structured_content or {}).get("hits", [])]
                if "implementations/wgan/wgan.py" in paths[:1]:
                    return paths
                await anyio.sleep(0.2)
            return paths

    with http_server(argv, tmp_path / "server.log") as server:
        url, token = server.url, server.token
        assert url.startswith("http://127.0.0.1:") and not url.startswith("http://127.0.0.1:0/")
        seen: list = []

        async def together() -> None:
            async with anyio.create_task_group() as tg:
                for query in ("DCGAN learning rate", "Wasserstein weight clipping", "install requirements"):
                    tg.start_soon(client, url, query, seen)

        anyio.run(together)
        wgan = repo / "implementations" / "wgan" / "wgan.py"
        wgan.write_text(wgan.read_text() + f"\n\ndef {NEW_WORD}():\n    return 'a {NEW_WORD} helper'\n")
        found = anyio.run(wait_for_new_word, url)
        rebinding = httpx.post(url, headers={"Host": "evil.example", "Content-Type": "application/json",
                                             "Accept": "application/json, text/event-stream", **bearer(token)},
                               json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
    assert len(seen) == 3
    for tools, hit, bad in seen:
        assert tools == ["search", "open", "ls", "cli", "api", "check"]
        assert not hit.is_error and hit.structured_content["hits"]
        assert bad.is_error and "outside the repository" in text(bad) and "\n" not in text(bad)
    assert found[:1] == ["implementations/wgan/wgan.py"]
    assert rebinding.status_code == 421  # DNS rebinding protection: an unknown Host
    assert "updated index gan" in (tmp_path / "server.log").read_text()
