"""What a new user meets first, through the real command line: a missing extra, empty input,
files that do not exist, a misspelt index name. Each stops with one line and exit 2 that says
what to do (never a traceback, never a model call or a transport started for nothing)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from bench_helpers import cli_argv, cli_env, one_line_error

def ragcode(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(cli_argv(*args), env=cli_env(), input=stdin, capture_output=True, text=True,
                          timeout=120)


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


@pytest.mark.parametrize("args, said", [
    (["search", "any-index", "  "], "the query is empty"),
    # a model that cannot load: the empty instruction is said before any model is touched
    (["generate", "", "--model", "/nowhere/model.gguf"], "the instruction is empty"),
    (["agent", "--index", "any-index", "\n"], "the instruction is empty"),
    (["check", "", "--repo", "."], "the answer is empty"),
    (["check", "-", "--repo", "."], "the answer is empty"),  # stdin that holds nothing
    (["check", "python train.py", "--repo", ".", "--instruction", " "], "the --instruction is empty"),
])
def test_empty_input_is_one_line_and_exit_2(args, said):
    assert said in one_line_error(ragcode(*args))


def test_a_tasks_file_of_only_malformed_lines_stops_and_says_why(tmp_path):
    from ragcode.bench.dataset import load_tasks

    bad = tmp_path / "tasks.jsonl"
    bad.write_text('{"id": 1, oops\n[1, 2]\n')
    line = one_line_error(ragcode("mlbench", "run", "--tasks", str(bad), "--repos", str(tmp_path),
                                  "--out", str(tmp_path / "run"), "--setting", "none", "--llm", "scripted"))
    assert "none of its 2 record(s) is a task" in line and "line 1: invalid JSON" in line
    assert not (tmp_path / "run").exists()
    # beside a good record, a line that is not JSON is skipped as invalid JSON, not "not a JSON object"
    bad.write_text('{"id": 1, oops\n' + json.dumps({"github_id": 1, "id": 5, "instruction": "go"}) + "\n")
    loaded = load_tasks(bad)
    assert [t.id for t in loaded.tasks] == [5] and loaded.skipped[0][1].startswith("invalid JSON")
    (tmp_path / "empty.jsonl").write_text("\n")
    assert "holds no task records" in one_line_error(ragcode("mlbench", "retrieve", "--tasks",
                                                             str(tmp_path / "empty.jsonl"), "--repos", str(tmp_path),
                                                             "--out", str(tmp_path / "ctx.jsonl")))


@pytest.mark.parametrize("backend", ["transformers", "llamacpp", "auto"])
def test_a_model_file_that_does_not_exist_is_file_not_found_not_a_hub_error(tmp_path, backend):
    missing = str(tmp_path / "models" / "qwen.gguf")
    line = one_line_error(ragcode("generate", "train it", "--llm", backend, "--model", missing))
    assert f"model file not found: {missing}" in line and "Repo id" not in line


def test_only_what_can_be_a_hub_id_is_passed_on_as_one(tmp_path):
    from ragcode.errors import ModelUnavailableError
    from ragcode.generation.models import resolve_model

    assert resolve_model("Qwen/Qwen2.5-Coder-0.5B-Instruct", tmp_path) == "Qwen/Qwen2.5-Coder-0.5B-Instruct"
    (tmp_path / "mine.gguf").write_bytes(b"GGUF")
    assert resolve_model(str(tmp_path / "mine.gguf"), tmp_path) == str((tmp_path / "mine.gguf").resolve())
    for path in ("mine2.gguf", "./models/m", "~/nowhere/m", "a/b/c"):
        with pytest.raises(ModelUnavailableError, match="model file not found"):
            resolve_model(path, tmp_path)


def test_a_first_index_shows_ragcodes_progress_not_the_libraries_bars(tmp_path):
    from fixture_repo import make_fixture_repo

    repo = make_fixture_repo(tmp_path / "demo")
    # a fresh cache: the embedder is exported to ONNX first, which loads it through transformers
    proc = subprocess.run(cli_argv("index", str(repo), "--out", str(tmp_path / "idx"),
                                   "--set", "embedder.backend=onnx", "--set", f"index.cache_dir={tmp_path / 'c'}"),
                          env=cli_env(RAGCODE_CACHE=str(tmp_path / "c"), RAGCODE_MODELS=str(tmp_path / "models")),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "exporting" in proc.stderr and "to ONNX" in proc.stderr  # ragcode says what it does
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr


def test_the_install_script_says_what_it_installs(tmp_path):
    import os
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "scripts").mkdir()
    shutil.copy(root / "scripts" / "install.sh", tmp_path / "scripts" / "install.sh")
    tools, venv = tmp_path / "tools", tmp_path / ".venv" / "bin"
    tools.mkdir()
    venv.mkdir(parents=True)
    (tools / "bwrap").write_text("#!/bin/sh\nexit 0\n")  # present: the script installs no system package
    # pip stands in for itself: it records what it is asked and answers `pip show`
    (venv / "python").write_text('#!/bin/sh\n[ "$1 $2" = "-m pip" ] || exit 1\necho "$@" >> "$PIP_LOG"\n'
                                 '[ "$3" = show ] && echo "Version: 9.9"\nexit 0\n')
    (venv / "activate").write_text(f'export PATH="{venv}:$PATH"\n')
    for tool in (tools / "bwrap", venv / "python"):
        tool.chmod(0o755)
    log = tmp_path / "pip.log"
    env = dict(os.environ, PIP_LOG=str(log), PATH=f"{tools}:{os.environ['PATH']}")
    proc = subprocess.run(["bash", "-c", '. scripts/install.sh "mcp,qwen05b"'], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    said = proc.stderr
    assert "install: installing torch 2.13.0, the CPU build" in said
    assert "with the extras mcp,qwen05b; qwen05b: the 0.5B model's weights, about 490 MB" in said
    assert "install: done: ragcode 9.9 in .venv/ with [mcp,qwen05b]" in said
    assert "install -q -e .[mcp,qwen05b]" in log.read_text()


def test_a_misspelt_index_name_suggests_the_indexes_there(tmp_path):
    for name in ("tinygan", "accelerate"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.json").write_text("{}")  # only its presence is read here
    (tmp_path / "not-an-index").mkdir()
    line = one_line_error(ragcode("search", "tinyga", "train", "--set", f"index.root={tmp_path}"))
    assert "no index named 'tinyga'" in line and "did you mean tinygan?" in line
    assert "(indexes there: accelerate, tinygan)" in line and "ragcode index REPO --name tinyga" in line
    none = one_line_error(ragcode("search", "x", "train", "--set", f"index.root={tmp_path / 'empty'}"))
    assert "holds no index yet" in none and "did you mean" not in none
