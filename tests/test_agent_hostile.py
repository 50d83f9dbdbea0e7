"""Hostile tool calls of the agent: every path a tool reads goes through one guard
(``ragcode.fileio.inside_repo``), and a huge file says how far it was read."""

from __future__ import annotations

import pytest
from agent_helpers import agent_config
from retrieval_helpers import make_gan_repo

from ragcode.agent.schema import ToolCallError
from ragcode.agent.tools import AgentEnv, check_tool, cli_tool, ls_tool, open_tool
from ragcode.errors import RagcodeError, RepoPathError
from ragcode.fileio import inside_repo

SECRET_SCRIPT = ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--secret-flag-xyz')\n"
                 "p.parse_args()\n")


@pytest.fixture
def env(tmp_path):
    repo = make_gan_repo(tmp_path / "gan")
    return AgentEnv(repo, None, agent_config(tmp_path), workdir="implementations/dcgan")


def _obs(env, answer):
    return check_tool(env, answer).text


def test_check_tool_never_reads_a_root_only_file_outside_the_repository(env, tmp_path):
    secret = tmp_path / "root-only"
    secret.mkdir()
    (secret / "x.py").write_text(SECRET_SCRIPT)
    (secret / "x.py").chmod(0o600)
    (env.repo_dir / "implementations" / "dcgan" / "link.py").symlink_to(secret / "x.py")
    up = "../../../root-only"
    seen = {}
    for target in (f"{secret}/x.py", f"{up}/x.py", "link.py"):
        for flag in ("--secret-flag-xyz 1", "--wrong 1"):
            seen[target, flag] = _obs(env, f"python {target} {flag}")
            assert "outside the repository" in seen[target, flag], seen[target, flag]
            assert "secret" not in seen[target, flag].replace(target, "")
    # a file that is there and one that is not read the same: no oracle
    for flag in ("--secret-flag-xyz 1", "--wrong 1"):
        missing = _obs(env, f"python {secret}/nothing.py {flag}").replace("nothing.py", "x.py")
        assert missing == seen[f"{secret}/x.py", flag]
    assert seen[f"{secret}/x.py", "--secret-flag-xyz 1"] == seen[f"{secret}/x.py", "--wrong 1"].replace(
        "--wrong", "--secret-flag-xyz")


@pytest.mark.parametrize("tool, arg", [(open_tool, ("/etc/passwd", 1, 0)), (ls_tool, ("..",)),
                                       (cli_tool, ("../../etc/passwd",))])
def test_agent_tools_share_one_path_guard(env, tool, arg):
    with pytest.raises(ToolCallError, match="outside the repository"):
        tool(env, *arg)


def test_inside_repo_is_the_one_guard_and_speaks_one_line(tmp_path):
    repo = make_gan_repo(tmp_path / "gan")
    assert inside_repo(repo, "implementations/../README.md") == (repo / "README.md").resolve()
    assert inside_repo(repo, "dcgan.py", repo / "implementations" / "dcgan").name == "dcgan.py"
    for bad in ("..", "/etc/passwd", "a/../../x", "bad\0path"):
        with pytest.raises(RepoPathError) as err:
            inside_repo(repo, bad)
        assert isinstance(err.value, RagcodeError) and "\n" not in str(err.value)


def test_open_on_a_huge_file_says_where_it_stopped_and_reaches_later_lines(env, monkeypatch):
    from ragcode.agent import tools

    monkeypatch.setattr(tools, "_MAX_READ", 1_000_000)
    big = env.repo_dir / "big.txt"
    with big.open("w") as fh:
        for i in range(1, 100_001):
            fh.write(f"line {i}".ljust(99) + "\n")
    size = big.stat().st_size
    first = open_tool(env, "big.txt", 1, 0).text
    assert "of at least" in first and "stopped reading at byte" in first and f"of {size}" in first
    assert "[more: open(path='big.txt', start=" in first
    late = open_tool(env, "big.txt", 99_990, 0).text
    assert late.startswith("big.txt (lines 99990-100000 of 100000)") and "line 100000" in late
    window = open_tool(env, "big.txt", 50_000, 50_001).text
    assert "line 50000" in window and "line 50001" in window and "line 50002" not in window
    monkeypatch.setattr(tools, "_MAX_SKIP", 2_000_000)
    with pytest.raises(ToolCallError, match="stopped reading big.txt at line"):
        open_tool(env, "big.txt", 90_000, 0)


def test_open_on_one_line_of_megabytes_keeps_memory_and_shows_the_next_line(env):
    (env.repo_dir / "wide.txt").write_text("x" * 5_000_000 + "\nafter\n")
    text = open_tool(env, "wide.txt", 1, 0).text
    assert text.startswith("wide.txt (lines 1-2 of 2)") and "[line cut]" in text and "after" in text
    assert len(text) < 3000


@pytest.mark.parametrize("where", ["folder", "/proc/version", "missing-parent", "/dev/null"])
def test_trajectory_that_is_no_writable_file_is_one_line_and_exit_2(tmp_path, where):
    import subprocess

    from bench_helpers import cli_argv, cli_env, one_line_error

    target = {"folder": str(tmp_path), "/proc/version": "/proc/version", "/dev/null": "/dev/null",
              "missing-parent": str(tmp_path / "no" / "such" / "t.jsonl")}[where]
    res = subprocess.run(cli_argv("agent", "train it", "--index", str(tmp_path / "noindex"), "--llm", "scripted",
                                  "--trajectory", target), env=cli_env(), capture_output=True, text=True, timeout=120)
    line = one_line_error(res)
    assert line.startswith(f"error: trajectory {target}")
    assert not (tmp_path / "no").exists()


def test_path_too_long_for_the_os_is_refused_in_one_line(env):
    for tool, args in ((open_tool, ("a/" * 2500, 1, 0)), (ls_tool, ("b" * 300,)), (cli_tool, ("c/" * 3000,))):
        with pytest.raises(ToolCallError, match="bad path") as err:
            tool(env, *args)
        assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_python_answer_nested_past_the_parser_is_a_finding_not_a_crash(env, tmp_path):
    from ragcode.bench.static_checks import check_python

    deep = "x = " + "-" * 200_000 + "1\n"
    text = check_tool(env, f"```python\n{deep}```").text
    assert "does not parse" in text
    res = check_python(deep, env.repo_dir, env.repo_dir)
    assert res.checks["python_parses"] is False


def test_cli_and_check_on_a_huge_script_answer_at_once_without_reading_it(env):
    """A 48 MB script took 198 s and 12 GB to read its flags; over the checks' size cap
    (``facts.MAX_SOURCE_BYTES``) it is not read: nothing is claimed about it."""
    from ragcode.check import facts

    big = env.repo_dir / "implementations" / "dcgan" / "huge.py"
    big.write_text("import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\n"
                   + "x = 1\n" * (facts.MAX_SOURCE_BYTES // 6 + 10) + "p.parse_args()\n")
    assert "no command-line parser found" in cli_tool(env, "implementations/dcgan/huge.py").text
    text = check_tool(env, "python huge.py --anything 1").text
    assert "is not a flag" not in text  # the static checks cannot tell, so say nothing about the flag
    # the parse check (where bubblewrap runs) starts the script itself: its parser's own word only
    assert "--anything" not in text or "unrecognized arguments: --anything 1" in text


def test_a_fifo_named_like_a_module_never_blocks_the_checks(env, tmp_path):
    import os

    os.mkfifo(env.repo_dir / "implementations" / "dcgan" / "blocker.py")
    os.mkfifo(env.repo_dir / "requirements.txt")
    text = check_tool(env, "```python\nimport blocker, numpy\nblocker.run()\n```").text
    assert "python answer" in text
