"""A cluster launcher the user did not ask for (check.launcher) and the ``unlaunch`` fix step."""

from __future__ import annotations

import pytest
from golden_repos import REPOS

from ragcode.answer.fixes import fix_and_keep
from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.launcher import asks_cluster, wrapped_script


@pytest.fixture
def repo(tmp_path):
    return REPOS["wrapper"](tmp_path)


def test_a_launcher_wraps_the_one_sibling_with_a_command_line_it_imports(repo, tmp_path):
    assert wrapped_script(repo / "run_with_cluster.py") == repo / "main.py"
    assert wrapped_script(repo / "submit.py") is None  # no job library: a wrapper, not a cluster launcher
    (repo / "helpers.py").write_text("X = 1\n")  # a sibling with no command line is not what it runs
    (repo / "two.py").write_text("import submitit\nimport helpers\nimport main\n")
    assert wrapped_script(repo / "two.py") == repo / "main.py"
    (repo / "three.py").write_text("import submitit\nimport main\nimport submit\n")
    assert wrapped_script(repo / "three.py") is None  # two scripts it may run: which one?
    (repo / "broken.py").write_text("import submitit\nimport main\ndef (:\n")
    assert wrapped_script(repo / "broken.py") is None


def test_cluster_words_in_the_instruction_keep_the_launcher():
    assert asks_cluster("Train on 2 nodes of 8 GPUs.") and asks_cluster("Submit it to the SLURM partition dev.")
    assert not asks_cluster("Train the small model on ImageNet.")


def _fixed(repo, code: str, instruction: str):
    ctx = CheckContext(repo, ".", instruction)
    checkers = load_checkers(list(DEFAULT_CHECKS))
    found = check_answer(code, "bash", ctx, checkers)
    return found, fix_and_keep(code, "bash", found, ctx, checkers)


def test_the_call_moves_to_the_wrapped_script_and_loses_the_cluster_flags(repo):
    found, fixed = _fixed(repo, "python run_with_cluster.py --model small --lr 0.5 --nodes 2",
                          "Train the small model at a learning rate of 0.5.")
    launcher = [f for f in found if f.code == "cluster-launcher"]  # the static reading misses the parent parser
    assert len(launcher) == 1 and launcher[0].suggestion == "main.py" and launcher[0].severity == "warning"
    assert fixed is not None and fixed.code == "python main.py --model small --lr 0.5"
    assert fixed.record["unlaunched"] == [["run_with_cluster.py", "main.py"]] and fixed.findings == []
    found, fixed = _fixed(repo, "python run_with_cluster.py --model small --nodes 2",
                          "Train the small model on 2 nodes.")
    assert "cluster-launcher" not in {f.code for f in found}  # the user asked for the cluster
    assert fixed is None or "run_with_cluster.py" in fixed.code
