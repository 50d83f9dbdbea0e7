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
