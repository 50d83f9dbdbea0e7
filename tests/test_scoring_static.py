"""The static policy and the exec-strict policy on a small fixture repository."""

from __future__ import annotations

import pytest
from exec_helpers import make_repo

from ragcode.bench.scoring import ScoreContext, environment_failure, load_scorer
from ragcode.bench.static_checks import flag_accepted
from ragcode.config import load_config
from ragcode.shell import script_calls, split_commands
from ragcode.types import Task


@pytest.fixture
def ctx(tmp_path):
    repo = make_repo(tmp_path / "repos_src")
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "dgl").symlink_to(repo, target_is_directory=True)  # github_id 1's folder
    (repos / "vid2vid").symlink_to(repo, target_is_directory=True)  # github_id 5: 4 s legacy timeout
    return ScoreContext(repos_dir=repos, config=load_config(overrides=["execution.timeout_s=3"]))


def bash_task(**kw):
    return Task(id=1, github_id=1, instruction="train", path="./examples/gcn", type="Bash Script",
                arguments=kw.pop("arguments", {"dataset": "citeseer"}), **kw)


def test_split_and_script_calls_follow_launchers():
    assert split_commands("cd a && python x.py --y 1; echo hi | cat") == [
        ["cd", "a"], ["python", "x.py", "--y", "1"], ["echo", "hi"], ["cat"]]
    def calls(text):
        return [(c.target, c.args) for c in script_calls(text)]

    assert calls("python -m torch.distributed.run --nproc_per_node=8 evaluate.py --cfg a.yaml") == [
        ("evaluate.py", ["--cfg", "a.yaml"])]
    assert calls("CUDA_VISIBLE_DEVICES=0 python train.py --a 1 > log.txt") == [("train.py", ["--a", "1"])]
    assert calls("pip install x") == []


def test_flag_acceptance_rules():
    accepted = frozenset({"--dataset", "--epochs", "-b", "--batch-size", "-h", "--help"})
    assert flag_accepted("--dataset=cora", accepted)
    assert flag_accepted("--data", accepted)  # unique prefix, as argparse allows
    assert flag_accepted("-b16", accepted)
    assert not flag_accepted("--lr", accepted)
    assert not flag_accepted("--batch_size", accepted)  # argparse does not equate _ and -


@pytest.mark.parametrize("answer,ok,failing", [
    ("python train.py --dataset citeseer --epochs 3", True, None),
    ("bash run.sh --dataset citeseer ", True, None),
    ("python train.py --dataset citeseer --lr 0.1", False, "flags_known"),
    ("python missing.py --dataset citeseer", False, "script_exists"),
    # wrappers and redirections are read as bash reads them
    ("nohup python train.py --dataset citeseer > log.txt 2>&1 &", True, None),
    ("python train.py > log.txt --dataset citeseer --lr 0.1", False, "flags_known"),
    ("python train.py -b 4 --batch-size 4 --data citeseer", True, None),  # alias, unique prefix
    # a bare script name is not a command bash can run (no ./): no script is run
    ("train.py --dataset citeseer", False, "script_exists"),
])
def test_static_policy_on_shell_answers(ctx, answer, ok, failing):
    v = load_scorer("static").score_sample(bash_task(), answer, 0, ctx)
    assert v.passed is ok
    if failing:
        assert v.checks[failing] is False and v.detail


@pytest.mark.parametrize("answer,ok,failing", [
    ("import mylib\nimport json\nprint(mylib.VALUE, 'citeseer')", True, None),
    ("import not_a_module_anywhere_xyz\nprint('citeseer')", False, "imports_resolve"),
    ("def f(:\n  'citeseer'", False, "python_parses"),
])
def test_static_policy_on_python_answers(ctx, answer, ok, failing):
    task = Task(id=2, github_id=1, instruction="x", path="./", type="Python Code", arguments={"d": "citeseer"})
    v = load_scorer("static").score_sample(task, answer, 0, ctx)
    assert v.passed is ok
    if failing:
        assert v.checks[failing] is False


def test_static_policy_reports_a_missing_repository_as_infrastructure(tmp_path):
    ctx = ScoreContext(repos_dir=tmp_path, config=load_config())
    v = load_scorer("static").score_sample(bash_task(), "python train.py --dataset citeseer", 0, ctx)
    assert not v.passed and "not found" in v.infra_error


def test_exec_strict_fails_a_timeout_that_legacy_passes(ctx):
    from ragcode.execution import load_executor

    ctx.executor = load_executor(ctx.config.execution)
    slow = "python train.py --dataset citeseer && sleep 30"
    task = Task(id=1, github_id=5, instruction="x", path="./examples/gcn", type="Bash Script",
                arguments={"dataset": "citeseer"})
    legacy = load_scorer("mlbench-legacy").score_sample(task, slow, 0, ctx)
    strict = load_scorer("exec-strict").score_sample(task, slow, 0, ctx)
    assert legacy.timed_out and legacy.passed  # official rule: still running at the timeout passes
    assert strict.timed_out and not strict.passed
    good = load_scorer("exec-strict").score_sample(bash_task(), "python train.py --dataset citeseer ", 0, ctx)
    assert good.passed and good.exit_code == 0


def test_failures_that_point_at_the_machine_are_infrastructure(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "uses_dep.py").write_text("import some_heavy_dep\n")
    err = "Traceback...\nModuleNotFoundError: No module named 'some_heavy_dep'\n"
    assert "some_heavy_dep" in environment_failure(err, repo)
    assert environment_failure("ModuleNotFoundError: No module named 'made_up_thing'", repo) == ""
    assert "GPU" in environment_failure("RuntimeError: Found no NVIDIA driver on your system.", repo)
    assert environment_failure("ValueError: bad", repo) == ""
    (repo / "README.md").write_text("Install with `pip install my-attention-lib` first, or from source.\n")
    (repo / "requirements.txt").write_text("# deps\nnumpy>=1.0\nPyYAML==6.0\n")
    from ragcode.check.facts_env import repo_declared_packages

    repo_declared_packages.cache_clear()  # read once per repository per process
    assert "pip install" in environment_failure("ModuleNotFoundError: No module named 'my_attention_lib'", repo)
    assert environment_failure("ModuleNotFoundError: No module named 'yaml'", repo) == ""  # import name differs
    assert "pip install" in environment_failure("ModuleNotFoundError: No module named 'numpy'", repo)
    assert environment_failure("ModuleNotFoundError: No module named 'first'", repo) == ""  # prose
    assert "GPU" in environment_failure("run.sh: line 3: nvidia-smi: command not found", repo)
    assert "my-attention-lib-train" in environment_failure(
        "run.sh: line 9: my-attention-lib-train: command not found", repo)
    assert environment_failure("run.sh: line 9: madeup-tool: command not found", repo) == ""
