"""``ragcode serve`` over stdio, driven by the MCP SDK's own client: the tools and their schemas,
each tool's result, hostile arguments answered with one-line tool errors, the resources, the
opt-in tools (run, generate) and the call log."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from bench_helpers import cli_env, one_line_error  # noqa: E402
from serve_helpers import serve_argv, serve_fixture, stdio_session, text  # noqa: E402

from ragcode.execution.bwrap import bwrap_works  # noqa: E402

SCRIPT = "implementations/dcgan/dcgan.py"


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return serve_fixture(tmp_path)[1]


def test_tools_are_listed_with_schemas_and_each_answers(tmp_path: Path, index_dir: Path):
    async def main() -> dict:
        out: dict = {}
        async with stdio_session(serve_argv(index_dir), tmp_path / "server.log") as s:
            out["tools"] = {t.name: t for t in (await s.list_tools()).tools}
            out["search"] = await s.call_tool("search", {"query": "DCGAN learning rate", "k": 3})
            out["cli_only"] = await s.call_tool("search", {"query": "learning rate epochs", "kind": "cli"})
            out["open"] = await s.call_tool("open", {"path": SCRIPT, "start": 1, "end": 3})
            out["ls"] = await s.call_tool("ls", {"path": "implementations"})
            out["cli"] = await s.call_tool("cli", {"script": SCRIPT})
            out["check"] = await s.call_tool("check", {"answer": f"python {SCRIPT} --n-epochs 5 --lr 0.001"})
            out["check_ok"] = await s.call_tool("check", {"answer": "python dcgan.py --lr 0.001",
                                                          "path": "implementations/dcgan"})
        return out

    r = anyio.run(main)
    tools = r["tools"]
    assert set(tools) == {"search", "open", "ls", "cli", "api", "check"}  # run and generate are opt-in
    for tool in tools.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["search"].input_schema["properties"]["k"]["maximum"] == 20
    assert "index" not in tools["search"].input_schema["properties"]  # one index: no index argument

    assert not r["search"].is_error
    hits = r["search"].structured_content["hits"]
    assert 1 <= len(hits) <= 3 and all(h["start_line"] <= h["end_line"] for h in hits)
    assert any(h["path"] == SCRIPT for h in hits)
    assert f"{hits[0]['path']}:{hits[0]['start_line']}-{hits[0]['end_line']}" in text(r["search"])
    assert {h["kind"] for h in r["cli_only"].structured_content["hits"]} == {"cli"}

    assert text(r["open"]).startswith(f"{SCRIPT} (lines 1-3 of ")
    assert "    1| import argparse" in text(r["open"])
    assert "dcgan/" in text(r["ls"]) and "wgan/" in text(r["ls"])
    assert "--n_epochs" in text(r["cli"]) and "--lr" in text(r["cli"])

    check = r["check"].structured_content
    # the static finding, and where bubblewrap runs the script's own parser refusing it too (parse check)
    assert check["findings"] == (2 if bwrap_works() else 1) and "did you mean --n_epochs" in text(r["check"])
    assert check["fixed"] == f"python {SCRIPT} --n_epochs 5 --lr 0.001" and check["fixed_findings"] == 0
    assert r["check_ok"].structured_content["findings"] == 0
    assert "fixed" not in r["check_ok"].structured_content
    log = (tmp_path / "server.log").read_text()
    assert "over stdio (ready in" in log
    assert [line for line in log.splitlines() if "ragcode.serve: search " in line]  # logged with seconds


HOSTILE = [
    # (tool, arguments, what the one-line error says)
    ("open", {"path": "../../../etc/passwd"}, "outside the repository"),
    ("open", {"path": "/etc/passwd"}, "outside the repository"),
    ("ls", {"path": ".."}, "outside the repository"),
    ("cli", {"script": "implementations/../../../../etc/passwd"}, "outside the repository"),
    ("check", {"answer": "ls", "path": "/tmp"}, "outside the repository"),
    ("open", {"path": "README.md", "start": 10 ** 12}, "start must be between 1 and"),
    ("open", {"path": "README.md", "start": -5}, "start must be between 1 and"),
    ("open", {"path": "README.md", "start": "1"}, "start must be an integer, got a string"),
    ("open", {"path": "README.md", "start": 1.5}, "start must be an integer, got a number"),
    ("open", {"path": "README.md", "start": True}, "start must be an integer, got a boolean"),
    ("open", {"path": ["README.md"]}, "path must be a string, got an array"),
    ("open", {}, "missing argument 'path'"),
    ("open", {"path": "implementations"}, "is a folder; use ls"),
    ("open", {"path": "no/such.py"}, "no file 'no/such.py'"),
    ("open", {"path": "README.md\0.txt"}, "bad path"),
    ("open", {"path": "link_out/passwd"}, "outside the repository"),  # a link in the repository to /etc
    ("ls", {"path": "link_out"}, "outside the repository"),
    ("search", {"query": "   "}, "the query is empty"),
    ("search", {"query": "gan", "k": "5"}, "k must be an integer"),
    ("search", {"query": "gan", "kind": "binary"}, "no chunks of kind 'binary'"),
    ("search", {"query": {"$ne": 1}}, "query must be a string, got an object"),
    ("check", {"answer": ""}, "the answer is empty"),
    ("run", {"answer": "rm -rf /"}, "unknown tool 'run'"),
    ("generate", {"instruction": "x"}, "unknown tool 'generate'"),
    ("shell", {"cmd": "id"}, "unknown tool 'shell'"),
]


def test_hostile_arguments_get_one_line_tool_errors_and_the_server_goes_on(tmp_path: Path):
    repo, index_dir = serve_fixture(tmp_path)
    (repo / "link_out").symlink_to("/etc")

    async def main() -> tuple[list, object]:
        async with stdio_session(serve_argv(index_dir), tmp_path / "server.log") as s:
            results = [await s.call_tool(tool, args) for tool, args, _ in HOSTILE]
            huge = await s.call_tool("open", {"path": "README.md", "start": 1, "end": 10 ** 12})
            after = await s.call_tool("ls", {})
        return results, (huge, after)

    results, (huge, after) = anyio.run(main)
    for (tool, args, expected), res in zip(HOSTILE, results):
        message = text(res)
        assert res.is_error, (tool, args, message)
        assert "\n" not in message and expected in message, (tool, args, message)
        assert "Traceback" not in message
    assert not huge.is_error and "(lines 1-" in text(huge)  # a huge end is the end of the file
    assert not after.is_error and "README.md" in text(after)  # still serving


def test_resources_show_the_served_indexes_and_their_manifests(tmp_path: Path, index_dir: Path):
    async def main() -> tuple:
        async with stdio_session(serve_argv(index_dir), tmp_path / "server.log") as s:
            listed = await s.list_resources()
            every = await s.read_resource("ragcode://indexes")
            one = await s.read_resource("ragcode://index/gan")
            with pytest.raises(Exception, match="unknown resource"):
                await s.read_resource("ragcode://index/../../etc")
        return listed, every, one

    listed, every, one = anyio.run(main)
    assert {str(r.uri) for r in listed.resources} == {"ragcode://indexes", "ragcode://index/gan", "ragcode://server"}
    summary = json.loads(every.contents[0].text)
    assert [x["name"] for x in summary] == ["gan"] and summary[0]["counts"]["chunks"] > 0
    detail = json.loads(one.contents[0].text)
    assert detail["repo"].endswith("gan") and detail["index_dir"] == str(index_dir)
    assert detail["manifest"]["counts"]["chunks_by_kind"]["cli"] == 2
    assert "files" not in detail["manifest"]


def test_run_and_generate_are_offered_only_when_enabled_and_log_each_call(tmp_path: Path, index_dir: Path):
    answer = f"```bash\npython {SCRIPT} --lr 0.001 --n-epochs 5\n```"
    argv = serve_argv(index_dir, "--allow-run", "--llm", "scripted", "--set",
                      f"generation.llm.scripted_answers={json.dumps([answer])}", "--log", str(tmp_path / "calls.jsonl"))

    async def main() -> tuple:
        async with stdio_session(argv, tmp_path / "server.log") as s:
            names = [t.name for t in (await s.list_tools()).tools]
            ran = await s.call_tool("run", {"answer": "```bash\nls\n```", "path": "implementations/dcgan"})
            made = await s.call_tool("generate", {"instruction": "Train the DCGAN with lr 0.001 for 5 epochs"})
            bad = await s.call_tool("run", {"answer": "```bash\nls\n```", "path": "../.."})
        return names, ran, made, bad

    names, ran, made, bad = anyio.run(main)
    assert names == ["search", "open", "ls", "cli", "api", "check", "run", "generate"]
    assert not ran.is_error and ran.structured_content["exit_code"] == 0 and "dcgan.py" in text(ran)
    assert made.structured_content["answer"] == f"python {SCRIPT} --lr 0.001 --n_epochs 5"  # checked, fixed
    assert bad.is_error and "outside the repository" in text(bad)
    records = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert [r["tool"] for r in records] == ["run", "generate", "run"]
    assert all(r["seconds"] >= 0 for r in records) and records[2]["error"] and not records[0]["error"]


def test_stray_output_of_a_tool_never_reaches_the_protocol_stream(tmp_path: Path, index_dir: Path):
    """A library or tool that prints to stdout (print, or a raw write to fd 1) must not corrupt
    the JSON-RPC stream the client reads: it lands in the server's stderr."""
    noisy = tmp_path / "noisy_server.py"
    noisy.write_text(
        "import os, sys\nimport ragcode.agent.tools as t\nplain = t.ls_tool\n"
        "def ls_tool(env, path):\n    print('STRAY PRINT')\n    os.write(1, b'STRAY WRITE\\n')\n"
        "    return plain(env, path)\n"
        "t.ls_tool = ls_tool\nfrom ragcode.cli import main\nmain(sys.argv[1:])\n")
    argv = serve_argv(index_dir)
    argv = [argv[0], str(noisy), *argv[3:]]  # the same command line, through the noisy wrapper

    async def main() -> list:
        async with stdio_session(argv, tmp_path / "server.log") as s:
            return [await s.call_tool("ls", {}) for _ in range(3)]

    results = anyio.run(main)
    assert all(not r.is_error and "README.md" in text(r) for r in results)
    log = (tmp_path / "server.log").read_text()
    assert log.count("STRAY PRINT") == 3 and log.count("STRAY WRITE") == 3


@pytest.mark.parametrize("args, says", [
    (["serve", "no-such-index"], "no-such-index"),
    (["serve", "INDEX", "--http", "127.0.0.1:99999"], "port from 0 to 65535"),
    (["serve"], "Missing argument"),
    (["serve", "INDEX", "--http", "0.0.0.0:0"], "not a loopback address; anyone who reaches it could use the tools"),
    (["serve", "INDEX", "--http", "192.0.2.1:0", "--allow-remote", "--no-auth"], "needs the token"),
    (["serve", "INDEX", "--http", ":0", "--token-file", "TOKEN_0644"], "can be read by others (mode 0644)"),
    (["serve", "INDEX", "--http", ":0", "--set", "serve.max_concurrent=0"], "serve.max_concurrent"),
    (["serve", "INDEX", "--http", ":0", "--set", "serve.token_env=SHORT_TOKEN"], "at least 16 printable characters"),
])
def test_bad_serve_command_lines_fail_in_one_line(tmp_path: Path, index_dir: Path, args: list[str], says: str):
    from bench_helpers import cli_argv

    loose = tmp_path / "token"
    loose.write_text("a-token-that-others-can-read\n")
    loose.chmod(0o644)
    spelled = {"INDEX": str(index_dir), "TOKEN_0644": str(loose)}
    argv = cli_argv(*[spelled.get(a, a) for a in args], "--set", f"index.root={tmp_path / 'indexes'}")
    proc = subprocess.run(argv, env=cli_env(SHORT_TOKEN="short"), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    if says == "Missing argument":  # typer's own usage error
        assert proc.returncode == 2 and says in proc.stderr
        return
    assert says in one_line_error(proc)


def test_unreadable_lines_on_stdin_get_json_rpc_errors_and_the_server_goes_on(index_dir: Path):
    """The SDK's stdio transport drops a line it cannot read without a word; the server answers
    it with a JSON-RPC error (id null) and keeps serving the lines after it."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    lines = ["{not json", "", json.dumps({"jsonrpc": "2.0", "id": 9}), "[1, 2]", json.dumps(init),
             json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ls", "arguments": {}}})]
    proc = subprocess.Popen(serve_argv(index_dir, "--no-auth"), env=cli_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(5)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        err = proc.stderr.read() if proc.stderr else ""
    assert [r["error"]["code"] for r in replies[:3]] == [-32700, -32600, -32600]
    assert all(r["id"] is None for r in replies[:3])
    assert replies[3]["id"] == 1 and "serverInfo" in replies[3]["result"]
    assert replies[4]["id"] == 2 and "README.md" in replies[4]["result"]["content"][0]["text"]
    assert err.count("answered an unreadable line on stdin") == 3 and "Traceback" not in err
    assert "only HTTP (--http) uses serve.auth" in err  # a setting stdio does not read is not silently taken
