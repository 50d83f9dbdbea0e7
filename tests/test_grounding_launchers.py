"""How the repository launches a script, as grounding reads it: every way the context's command
lines and the repository's own Markdown docs run it, which launcher the table's heading names,
and which scripts come first when the task asks for several GPUs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dryrun_helpers import write
from ragcode.answer.grounding import launch_forms, launcher_for, repository_launches, targets, wants_several
from ragcode.check import CheckContext

SCRIPT = "import argparse\nargparse.ArgumentParser().parse_args()\n"


def test_launch_forms_keep_every_way_a_script_is_run_once_in_order() -> None:
    text = ("python main.py --eval\npython -m torch.distributed.launch --nproc_per_node=8 main.py\n"
            "python3 main.py --lr 1\ntorchrun --nproc_per_node 2 other.py")
    assert launch_forms(text) == {
        ("script", "main.py"): ["", "python -m torch.distributed.launch --nproc_per_node=8"],
        ("script", "other.py"): ["torchrun --nproc_per_node 2"]}


@pytest.mark.parametrize("instruction,several", [
    ("Train convnext_tiny on 8 GPUs with batch size 128", True),
    ("fine-tune on two nodes", True), ("train with 4 V100 GPUs", True),
    ("run it multi-gpu with fp16", True), ("use distributed data parallel", True),
    ("evaluate with one GPU", False), ("train for 8 epochs on the GPU", False),
    ("train on 1 GPU", False), ("sample 4 images", False)])
def test_wants_several_reads_gpus_nodes_and_processes(instruction: str, several: bool) -> None:
    assert wants_several(instruction) is several


def test_launcher_is_named_when_the_docs_only_launch_or_the_task_wants_several_gpus() -> None:
    torch_launch = "python -m torch.distributed.launch --nproc_per_node=1"
    assert launcher_for([torch_launch], several=False) == torch_launch  # never run plain
    assert launcher_for(["", "torchrun --nproc_per_node 8"], several=False) == ""
    assert launcher_for(["", "torchrun --nproc_per_node 8"], several=True) == "torchrun --nproc_per_node 8"
    assert launcher_for([""], several=True) == "" and launcher_for([], several=True) == ""


def test_repository_launches_reads_its_markdown_and_sees_an_edit(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {
        "README.md": "```\npython eval_knn.py --data /d\n```\n",
        "docs/TRAINING.md": "Single machine:\n```\npython -m torch.distributed.launch --nproc_per_node=8 main.py \\\n"
                            "  --model tiny\n```\n",
        ".github/NOTES.md": "torchrun --nproc_per_node 4 hidden.py\n"})
    found = repository_launches(repo)
    assert found == {("script", "eval_knn.py"): [""],
                     ("script", "main.py"): ["python -m torch.distributed.launch --nproc_per_node=8"]}
    readme = repo / "README.md"
    readme.write_text("```\ntorchrun --nproc_per_node 2 eval_knn.py\n```\n")
    os.utime(readme, ns=(1, 1))  # a different mtime, whatever the clock's resolution
    assert repository_launches(repo)[("script", "eval_knn.py")] == ["torchrun --nproc_per_node 2"]


def test_targets_name_the_documented_launcher_and_put_launched_scripts_first_for_several_gpus(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {
        "submit.py": SCRIPT, "main.py": SCRIPT, "eval.py": SCRIPT,
        "TRAINING.md": "On one machine:\n```\npython -m torch.distributed.launch --nproc_per_node=8 main.py\n```\n"
                       "```\npython -m torch.distributed.launch --nproc_per_node=1 eval.py\n```\n"})
    ctx = CheckContext(repo, ".")
    context = "```\npython submit.py --nodes 4\n```\n```\npython main.py --eval\n```\n"
    one_gpu = targets("train tiny with batch size 128", context, ctx, limit=3)
    assert [(t.target, t.launcher) for t in one_gpu] == [("submit.py", ""), ("main.py", "")]
    evaluate = targets("evaluate with eval.py on one GPU", context, ctx, limit=1)
    assert [(t.target, t.launcher) for t in evaluate] == [  # its docs never run it plain
        ("eval.py", "python -m torch.distributed.launch --nproc_per_node=1")]
    eight = targets("train tiny on 8 GPUs with batch size 128", context, ctx, limit=1)
    assert [(t.target, t.launcher) for t in eight] == [
        ("main.py", "python -m torch.distributed.launch --nproc_per_node=8")]
    named = targets("run submit.py on 8 GPUs", context, ctx, limit=1)
    assert [t.target for t in named] == ["submit.py"]  # the instruction's own script stays first
