"""A tool call that its client abandons stops: ``ragcode serve`` as a real process, a call that
runs a sandboxed process, and each way a call can end early (the client cancels it, the
client's connection drops, the time limit passes, the server is full). Each test counts the
server's threads and processes before, during and after: what the call started must be gone."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

from exec_helpers import processes_with  # noqa: E402
from serve_helpers import (bash, http_server, http_session, load_of, raw_session, serve_argv,  # noqa: E402
                           serve_fixture, stdio_session, text, until)

from ragcode.execution.bwrap import bwrap_works  # noqa: E402

SLOW_PARSER = "import time\ntime.sleep(600)\nimport argparse\nargparse.ArgumentParser().parse_args()\n"


@pytest.fixture(scope="module")
def runner_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One server for the tests below: run offered, two calls at once, none waiting."""
    tmp = tmp_path_factory.mktemp("serve-cancel")
    _, index_dir = serve_fixture(tmp)
    argv = serve_argv(index_dir, "--http", "127.0.0.1:0", "--allow-run", "--set", "execution.timeout_s=600",
                      "--set", "serve.max_concurrent=2", "--set", "serve.max_queued=0")
    with http_server(argv, tmp / "server.log", RAGCODE_CACHE=str(tmp / "cache")) as server:
        yield server


def _sleeper() -> tuple[str, str]:
    """(marker, answer): a sandboxed ``sleep`` whose command line holds the marker."""
    marker = f"sleep {600 + secrets.randbelow(300)}.{secrets.randbelow(10 ** 6)}"
    return marker, bash(marker)


async def _baseline(session: Any, pid: int) -> tuple[int, int]:
    """The server's load once a call of the same kind has run to its end."""
    done = await session.call_tool("run", {"answer": bash("true")})
    assert not done.is_error and done.structured_content["exit_code"] == 0
    return load_of(pid)


def test_a_call_the_client_cancels_is_stopped_with_its_sandbox(runner_server: Any):
    pid = runner_server.proc.pid
    marker, answer = _sleeper()

    async def main() -> dict:
        seen: dict = {}
        async with http_session(runner_server.url, runner_server.token) as s:
            seen["before"] = await _baseline(s, pid)
            async with anyio.create_task_group() as tg:
                tg.start_soon(s.call_tool, "run", {"answer": answer})
                seen["started"] = await until(lambda: processes_with(marker))
                seen["during"] = load_of(pid)
                tg.cancel_scope.cancel()  # the SDK client sends notifications/cancelled
            seen["gone"] = await until(lambda: not processes_with(marker))
            seen["settled"] = await until(lambda: load_of(pid) == seen["before"])
            seen["after"] = load_of(pid)
            seen["next"] = await s.call_tool("ls", {})
            seen["figures"] = json.loads((await s.read_resource("ragcode://server")).contents[0].text)
        return seen

    seen = anyio.run(main)
    assert seen["started"] and seen["during"][0] > seen["before"][0] and seen["during"][1] > 0
    assert seen["gone"] and seen["settled"], (seen["before"], seen["after"])
    assert seen["after"][1] == 0
    assert not seen["next"].is_error
    calls = seen["figures"]["calls"]
    assert calls["running"] == 0 and calls["waiting"] == 0 and calls["stopped"] >= 1
    assert seen["figures"]["processes"] == 0 and seen["figures"]["threads"] >= 1
    assert "run" in runner_server.text() and "cancelled by the client; the call was stopped" in runner_server.text()


def test_a_call_whose_client_disconnects_is_stopped_with_its_sandbox(runner_server: Any):
    pid = runner_server.proc.pid
    marker, answer = _sleeper()

    async def baseline() -> tuple[int, int]:
        async with http_session(runner_server.url, runner_server.token) as s:
            return await _baseline(s, pid)

    before = anyio.run(baseline)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "run", "arguments": {"answer": answer}}}
    with httpx.Client(timeout=60) as client:
        headers = raw_session(client, runner_server.url, runner_server.token)
        with client.stream("POST", runner_server.url, headers=headers, json=call) as reply:
            assert reply.status_code == 200
            started = anyio.run(until, lambda: processes_with(marker))
            during = load_of(pid)
        # leaving the block closes the connection before any answer came
    gone = anyio.run(until, lambda: not processes_with(marker))
    settled = anyio.run(until, lambda: load_of(pid) == before)
    assert started and during[1] > 0
    assert gone and settled, (before, load_of(pid))
    assert "run: cancelled, the client went away; the call was stopped" in runner_server.text()


def test_a_full_server_refuses_a_call_as_busy_and_takes_calls_again_once_free(runner_server: Any):
    pid = runner_server.proc.pid
    sleepers = [_sleeper(), _sleeper()]

    async def main() -> dict:
        seen: dict = {}
        async with http_session(runner_server.url, runner_server.token) as s:
            seen["before"] = await _baseline(s, pid)
            async with anyio.create_task_group() as tg:
                for _, answer in sleepers:  # serve.max_concurrent=2
                    tg.start_soon(s.call_tool, "run", {"answer": answer})
                seen["started"] = await until(lambda: all(processes_with(m) for m, _ in sleepers))
                seen["busy"] = await s.call_tool("ls", {})  # serve.max_queued=0
                tg.cancel_scope.cancel()
            seen["settled"] = await until(lambda: load_of(pid) == seen["before"])
            seen["again"] = await s.call_tool("ls", {})
        return seen

    seen = anyio.run(main)
    assert seen["started"]
    assert seen["busy"].is_error and "the server is busy (2 calls running, 0 waiting)" in text(seen["busy"])
    assert seen["settled"] and not any(processes_with(m) for m, _ in sleepers)
    assert not seen["again"].is_error and "README.md" in text(seen["again"])


@pytest.mark.skipif(not bwrap_works(), reason="the parse dry run needs bubblewrap")
def test_a_check_past_the_time_limit_is_stopped_with_its_dry_run(tmp_path: Path):
    """The check tool's parse dry run runs the script up to its parser in the sandbox; one that
    never gets there is killed when the call's time limit (serve.timeout_s) passes."""
    repo, index_dir = serve_fixture(tmp_path)
    (repo / "slow_parser.py").write_text(SLOW_PARSER)
    argv = serve_argv(index_dir, "--http", "127.0.0.1:0", "--timeout", "5")

    async def main(server: Any) -> dict:
        seen: dict = {}
        pid = server.proc.pid
        async with http_session(server.url, server.token) as s:
            warm = await s.call_tool("check", {"answer": "python implementations/dcgan/dcgan.py --lr 0.1"})
            seen["warm"], seen["before"] = warm, load_of(pid)
            async with anyio.create_task_group() as tg:
                async def slow() -> None:
                    seen["slow"] = await s.call_tool("check", {"answer": "python slow_parser.py --lr 0.1"})

                tg.start_soon(slow)
                seen["started"] = await until(lambda: load_of(pid)[1] > 0)
            seen["settled"] = await until(lambda: load_of(pid) == seen["before"])
        return seen

    with http_server(argv, tmp_path / "server.log", RAGCODE_CACHE=str(tmp_path / "cache")) as server:
        seen = anyio.run(main, server)
    assert not seen["warm"].is_error and seen["before"][1] == 0
    assert seen["started"] and seen["settled"]
    assert seen["slow"].is_error and text(seen["slow"]) == "check: no result within 5s; the call was stopped"


def test_over_stdio_a_cancelled_call_is_stopped_with_its_sandbox(tmp_path: Path):
    import psutil

    _, index_dir = serve_fixture(tmp_path)
    marker, answer = _sleeper()
    argv = serve_argv(index_dir, "--allow-run", "--set", "execution.timeout_s=600")

    async def main() -> dict:
        seen: dict = {}
        async with stdio_session(argv, tmp_path / "server.log") as s:
            await s.call_tool("run", {"answer": bash("true")})
            server = max(psutil.Process().children(), key=lambda p: p.create_time())
            async with anyio.create_task_group() as tg:
                tg.start_soon(s.call_tool, "run", {"answer": answer})
                seen["started"] = await until(lambda: processes_with(marker))
                tg.cancel_scope.cancel()
            seen["gone"] = await until(lambda: not processes_with(marker) and not server.children(recursive=True))
            seen["next"] = await s.call_tool("ls", {})
        return seen

    seen = anyio.run(main)
    assert seen["started"] and seen["gone"]
    assert not seen["next"].is_error


def test_a_call_of_a_session_the_client_ends_is_stopped_with_its_sandbox(runner_server: Any):
    """A client that ends its session (DELETE) while a call of it runs, from another connection."""
    import threading

    marker, answer = _sleeper()
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "run", "arguments": {"answer": answer}}}
    lines: list[str] = []
    with httpx.Client(timeout=60) as caller, httpx.Client(timeout=60) as other:
        headers = raw_session(caller, runner_server.url, runner_server.token)

        def waiting_call() -> None:
            with caller.stream("POST", runner_server.url, headers=headers, json=call) as reply:
                lines.extend(reply.iter_lines())

        thread = threading.Thread(target=waiting_call, daemon=True)
        thread.start()
        started = anyio.run(until, lambda: processes_with(marker))
        ended = other.delete(runner_server.url, headers=headers).status_code
        gone = anyio.run(until, lambda: not processes_with(marker))
        thread.join(30)
    assert started and ended == 200 and gone
    assert not any('"exit_code"' in line for line in lines)  # no result of the stopped call came
