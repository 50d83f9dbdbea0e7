"""`ragcode agent` through the real CLI app: each step printed, then the answer; bad input as
one line."""

from __future__ import annotations

import json

from agent_helpers import EXPECTED, INSTRUCTION, call, gan_index
from typer.testing import CliRunner

from ragcode.cli import app


def _args(tmp_path, index, replies, *extra):  # noqa: ANN001
    return ["agent", INSTRUCTION, "--index", str(index.dir), "--llm", "agent_helpers:StepScriptedLLM",
            "--set", f"index.root={tmp_path / 'indexes'}", "--set", f"index.cache_dir={tmp_path / 'cache'}",
            "--set", "embedder.enabled=false", "--set", "retrieval.mode=bm25",
            "--set", f"generation.llm.scripted_answers={json.dumps(replies)}", *extra]


def test_agent_prints_each_step_and_the_answer_and_resumes_a_trajectory(tmp_path):
    repo, cfg, index = gan_index(tmp_path)
    replies = [call("ls", path="implementations/dcgan"), call("cli", script="implementations/dcgan/dcgan.py"),
               call("submit", answer=EXPECTED)]
    traj = tmp_path / "t.jsonl"
    res = CliRunner().invoke(app, _args(tmp_path, index, replies, "--max-steps", "4", "--trajectory", str(traj)))
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert 'step 1: ls(path="implementations/dcgan")' in out and "dcgan.py  (" in out
    assert 'step 2: cli(script="implementations/dcgan/dcgan.py")' in out and "--n_epochs" in out
    assert "final: submitted -> answer from submit (3 steps" in out
    assert out.rstrip().endswith(EXPECTED)
    again = CliRunner().invoke(app, _args(tmp_path, index, replies, "--max-steps", "4", "--trajectory", str(traj)))
    assert again.exit_code == 0 and "recorded]" in again.stdout and again.stdout.rstrip().endswith(EXPECTED)


def test_agent_json_carries_the_trajectory(tmp_path):
    repo, cfg, index = gan_index(tmp_path)
    res = CliRunner().invoke(app, _args(tmp_path, index, [call("submit", answer=EXPECTED)], "--json"))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["code"] == EXPECTED and data["metadata"]["trajectory"][0]["call"]["name"] == "submit"


def test_agent_bad_input_is_one_line(tmp_path):
    repo, cfg, index = gan_index(tmp_path)
    cases = [
        (["--protocol", "native"], "agent.protocol=native needs a backend with native tool calls"),
        (["--max-steps", "0"], "agent.max_steps"),
        (["--set", "agent.tools=[search,grpe]"], "unknown agent tool 'grpe'"),
    ]
    for extra, message in cases:
        res = CliRunner().invoke(app, _args(tmp_path, index, [call("ls")], *extra))
        assert res.exit_code == 2, (extra, res.output)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], (extra, res.stderr)
    res = CliRunner().invoke(app, ["agent", "x", "--index", "no-such-index", "--llm", "scripted",
                                   "--set", f"index.root={tmp_path / 'indexes'}"])
    assert res.exit_code == 2 and "no-such-index" in res.stderr and len(res.stderr.strip().splitlines()) == 1
