"""What a new user meets first, through the real command line: a missing extra, empty input,
files that do not exist, a misspelt index name. Each stops with one line and exit 2 that says
what to do (never a traceback, never a model call or a transport started for nothing)."""

from __future__ import annotations

import json
import subprocess
import sys

from bench_helpers import cli_env, one_line_error

NO_MCP = "import sys; sys.modules['mcp'] = None; from ragcode.cli import main; main(sys.argv[1:])"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}}) + "\n"


def test_serve_without_the_mcp_extra_tells_the_client_why_instead_of_closing(tmp_path):
    # the SDK's import fails as it does without the extra; the index does not even exist:
    # the missing extra is said first, before any index is opened or a transport started
    proc = subprocess.run([sys.executable, "-c", NO_MCP, "serve", "no-such-index"], input=INITIALIZE,
                          env=cli_env(), capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert "pip install 'ragcode[mcp]'" in one_line_error(proc)
    reply = json.loads(proc.stdout)  # the client's initialize gets an error it can show
    assert reply["id"] == 7 and "pip install 'ragcode[mcp]'" in reply["error"]["message"]
    http = subprocess.run([sys.executable, "-c", NO_MCP, "serve", "x", "--http", ":0"], input="",
                          env=cli_env(), capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert "ragcode[mcp]" in one_line_error(http) and http.stdout == ""


def test_the_demo_installs_the_extras_its_commands_and_ragcode_serve_need():
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    line = re.search(r'^\. scripts/install\.sh "([^"]+)"', (root / "scripts" / "demo.sh").read_text(), re.M)
    extras = set(line.group(1).split(","))
    declared = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"mcp", "qwen05b", "transformers"} <= extras <= set(declared)
