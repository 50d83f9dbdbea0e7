"""A launcher's own flags, read by the launcher's real parser in the dry run's sandbox (issue 36,
1): ``accelerate launch``, ``torchrun``, ``python -m torch.distributed.run`` and ``launch`` refuse
what they would refuse at run time, a right command says nothing and is never rewritten, a
launcher that is not installed says nothing, and the script's own flags are checked as before."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dryrun_helpers import needs_bwrap, needs_library, runner, write
from ragcode.check import DEFAULT_CHECKS, CheckContext, Finding, check_answer, load_checkers
from ragcode.config import Config, ExecutionConfig
from ragcode.dryrun.checker import ParseChecker
from ragcode.dryrun.launchers import launcher_entries, launcher_runs
from ragcode.dryrun.sandbox import DryRunner

pytestmark = needs_bwrap
needs_accelerate = needs_library("accelerate")
needs_torch = needs_library("torch")

NLP_EXAMPLE = """
import argparse

def main():
    parser = argparse.ArgumentParser(description="Simple example of training script.")
    parser.add_argument("--mixed_precision", type=str, default=None, choices=["no", "fp16", "bf16", "fp8"])
    parser.add_argument("--cpu", action="store_true", help="If passed, will train on the CPU.")
    args = parser.parse_args()
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    main()
"""
ACCELERATE = "accelerate launch --multi_gpu --num_processes 2 --mixed_precision fp16 examples/nlp_example.py"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write(tmp_path / "repo", {"examples/nlp_example.py": NLP_EXAMPLE})


def _parse(tmp_path: Path, run: DryRunner | None = None) -> ParseChecker:
    checker = ParseChecker(Config())
    checker.runner = run or runner(tmp_path, "accelerate", "torch")
    return checker


def _found(code: str, repo: Path, tmp_path: Path, run: DryRunner | None = None) -> list[Finding]:
    return check_answer(code, "bash", CheckContext(repo), [_parse(tmp_path, run)])


def test_the_launchers_part_is_what_its_parser_gets() -> None:
    ctx = CheckContext(Path("."))
    (acc,) = launcher_entries(ACCELERATE + " --cpu --mixed_precision fp16", "bash", ctx)
    assert (acc.kind, acc.target) == ("launcher", "accelerate launch")
    assert acc.argv == ("--multi_gpu", "--num_processes", "2", "--mixed_precision", "fp16", "examples/nlp_example.py")
    (run,) = launcher_entries("CUDA_VISIBLE_DEVICES=0,1 python3 -u -m torch.distributed.run --nproc_per_node 2 "
                              "-m pkg.train --lr 1", "bash", ctx)
    assert (run.target, run.argv) == ("python -m torch.distributed.run", ("--nproc_per_node", "2", "-m", "pkg.train"))
    assert run.env == (("CUDA_VISIBLE_DEVICES", "0,1"),)
    (ds,) = launcher_entries("/opt/bin/deepspeed --num_gpus 2 train.py --deepspeed ds.json", "bash", ctx)
    assert (ds.target, ds.argv) == ("deepspeed", ("--num_gpus", "2", "train.py"))
    assert launcher_entries("python train.py --lr 1", "bash", ctx) == []
    assert launcher_entries("mpirun -np 2 python train.py", "bash", ctx) == []  # no parser of its own known
    assert launcher_entries("torchrun --nproc_per_node $NGPU train.py", "bash", ctx) == []  # a value unknown


@needs_accelerate
def test_accelerate_launch_refuses_a_misspelled_flag_of_its_own(repo: Path, tmp_path: Path) -> None:
    bad = "accelerate launch --multi_gpu --num_processes 2 --mixed_precison fp16 examples/nlp_example.py"
    (f,) = _found(bad, repo, tmp_path)
    assert (f.code, f.severity, f.line, f.target) == ("parse-rejected", "error", 1, "accelerate launch")
    assert f.message.startswith("accelerate launch's own parser refuses the command: ")
    assert f.message.endswith("unrecognized arguments: --mixed_precison")


@needs_accelerate
def test_a_right_accelerate_command_says_nothing_and_is_never_rewritten(repo: Path, tmp_path: Path) -> None:
    from ragcode.answer.fixes import fix_and_keep

    right = ACCELERATE + " --mixed_precision fp16 --cpu"
    ctx = CheckContext(repo, ".", "Train the NLP example on 2 processes with fp16 mixed precision on the CPU.")
    checkers = [*load_checkers([c for c in DEFAULT_CHECKS if c != "parse"], Config()), _parse(tmp_path)]
    found = check_answer(right, "bash", ctx, checkers)
    assert found == []
    assert fix_and_keep(right, "bash", found, ctx, checkers, Config().generation.fixes) is None
    (verdict,) = launcher_runs(right, "bash", ctx, checkers[-1].runner)
    assert verdict.status == "accepted" and verdict.params == {}  # the launcher's settings place no value


@needs_accelerate
def test_the_cli_reports_the_accelerate_reproduction(repo: Path, tmp_path: Path) -> None:
    from ragcode.cli import app

    bad = "accelerate launch --multi_gpu --num_processes 2 --mixed_precison fp16 examples/nlp_example.py"
    res = CliRunner().invoke(app, ["check", bad, "--repo", str(repo), "--set", f"index.cache_dir={tmp_path / 'c'}"])
    assert res.exit_code == 1, res.output
    assert "accelerate launch's own parser refuses the command" in res.stdout
    assert "unrecognized arguments: --mixed_precison" in res.stdout


@needs_torch
@pytest.mark.parametrize("launcher", ["torchrun", "python -m torch.distributed.run"])
def test_torchs_launchers_refuse_a_flag_they_do_not_have(launcher: str, repo: Path, tmp_path: Path) -> None:
    run = runner(tmp_path, "torch")
    (f,) = _found(f"{launcher} --nproc_per_nodes 2 examples/nlp_example.py --cpu", repo, tmp_path, run)
    assert (f.code, f.target) == ("parse-rejected", launcher)
    assert f.message.endswith("unrecognized arguments: --nproc_per_nodes")
    assert _found(f"{launcher} --nproc_per_node 2 examples/nlp_example.py --cpu", repo, tmp_path, run) == []
    # torch's parser takes an unambiguous prefix, as torchrun itself does at run time: no finding
    assert _found(f"{launcher} --nproc_per_nod 2 examples/nlp_example.py --cpu", repo, tmp_path, run) == []


@needs_torch
def test_the_deprecated_torch_distributed_launch_has_its_own_parser(repo: Path, tmp_path: Path) -> None:
    run = runner(tmp_path, "torch")
    right = "python -m torch.distributed.launch --nproc_per_node=2 --use_env examples/nlp_example.py --cpu"
    assert _found(right, repo, tmp_path, run) == []  # --use_env: launch's own flag, not torchrun's
    (f,) = _found(right.replace("--use_env", "--use_envs"), repo, tmp_path, run)
    assert f.target == "python -m torch.distributed.launch" and "--use_envs" in f.message


@needs_torch
def test_the_scripts_own_flag_error_behind_a_launcher_is_reported_as_before(repo: Path, tmp_path: Path) -> None:
    (f,) = _found("torchrun --nproc_per_node 2 examples/nlp_example.py --mixed_precision fp17", repo, tmp_path,
                  runner(tmp_path, "torch"))
    assert (f.code, f.target) == ("parse-rejected", "examples/nlp_example.py")
    assert "invalid choice: 'fp17'" in f.message


def test_deepspeed_not_installed_says_nothing(repo: Path, tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("deepspeed") is not None:
        pytest.skip("deepspeed is installed here: the case of its absence cannot be seen")
    run = runner(tmp_path)
    code = "deepspeed --num_gpu 2 --no_such_flag examples/nlp_example.py --cpu"
    assert _found(code, repo, tmp_path, run) == []
    assert launcher_runs(code, "bash", CheckContext(repo), run) == []


FAKE_RUNNER = """
import argparse

def parse_args(args=None):
    parser = argparse.ArgumentParser()
    parser.add_argument({flag!r}, type=int, default=-1)
    parser.add_argument("user_script")
    parser.add_argument("user_args", nargs=argparse.REMAINDER)
    return parser.parse_args(args=args)
"""


def _install_deepspeed(site: Path, version: str, flag: str) -> None:
    for old in site.glob("deepspeed-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    package = site / "deepspeed" / "launcher"
    package.mkdir(parents=True, exist_ok=True)
    (site / "deepspeed" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "runner.py").write_text(textwrap.dedent(FAKE_RUNNER.format(flag=flag)))
    meta = site / f"deepspeed-{version}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: deepspeed\nVersion: {version}\n")
    (meta / "top_level.txt").write_text("deepspeed\n")


def test_a_launchers_cached_verdict_follows_its_installed_version(repo: Path, tmp_path: Path) -> None:
    """Not installed: silent, and cached with the launcher's absence recorded; installed, then
    upgraded to a version with the flag: each a new verdict, without clearing the cache."""
    site = tmp_path / "site"
    site.mkdir()
    run = DryRunner(ExecutionConfig(ro_paths=[str(site)], env={"PYTHONPATH": str(site)}), tmp_path / "cache")
    ctx, code = CheckContext(repo), "deepspeed --num_gpus 2 examples/nlp_example.py --cpu"
    assert launcher_runs(code, "bash", ctx, run) == []
    (absent,) = [json.loads(p.read_text()) for p in run.cache_dir.rglob("*.json")]
    assert absent["status"] == "unreached" and absent["deps"]["modules"]["deepspeed"] is None
    _install_deepspeed(site, "0.1", "--num_nodes")
    (old,) = launcher_runs(code, "bash", ctx, run)
    assert old.status == "rejected" and "--num_gpus" in old.message
    _install_deepspeed(site, "0.2", "--num_gpus")
    (new,) = launcher_runs(code, "bash", ctx, run)
    assert new.status == "accepted"
    records = [json.loads(p.read_text()) for p in run.cache_dir.rglob("*.json")]
    assert [r["deps"]["modules"]["deepspeed"] for r in records] == ["deepspeed==0.2"]
