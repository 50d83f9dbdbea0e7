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
    assert launcher_for([torch_launch], "evaluate it") == torch_launch  # never run plain
    assert launcher_for(["", "torchrun --nproc_per_node 8"], "train it") == ""
    assert launcher_for(["", "torchrun --nproc_per_node 8"], "train it on 8 GPUs") == "torchrun --nproc_per_node 8"
    assert launcher_for([""], "train on 8 GPUs") == "" and launcher_for([], "train on 8 GPUs") == ""


def test_for_several_gpus_a_launcher_setting_a_process_count_and_sharing_words_wins() -> None:
    forms = ["", "accelerate launch --cpu", "accelerate launch --mixed_precision fp16",
             "accelerate launch --multi_gpu --num_processes 2", "torchrun --nproc_per_node 2"]
    assert launcher_for(forms, "train on 2 GPUs with fp16") == "accelerate launch --multi_gpu --num_processes 2"
    assert launcher_for(forms, "train on 2 GPUs with torchrun") == "torchrun --nproc_per_node 2"
    mpi = ["mpirun -f hostfile -n 16 -ppn 4 python", "mpirun -np 2 python"]
    assert launcher_for(mpi, "train on 2 GPUs") == "mpirun -np 2 python"  # the task's own count
    only = ["accelerate launch --cpu", "accelerate launch --mixed_precision fp16"]
    assert launcher_for(only, "train it with mixed precision fp16") == "accelerate launch --mixed_precision fp16"
    assert launcher_for(only, "train it") == "accelerate launch --cpu"  # the first one on a tie


def test_repository_launches_reads_its_markdown_from_the_files_folder_and_sees_an_edit(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {
        "eval_knn.py": SCRIPT, "main.py": SCRIPT, "examples/nlp.py": SCRIPT,
        "README.md": "```\npython eval_knn.py --data /d\npython gone.py\n```\n",
        "docs/TRAINING.md": "Single machine:\n```\npython -m torch.distributed.launch --nproc_per_node=8 main.py \\\n"
                            "  --model tiny\n```\n",
        "examples/README.md": "```\naccelerate launch ./nlp.py\npython -m pkg.cli\n```\n",
        ".github/NOTES.md": "torchrun --nproc_per_node 4 main.py\n"})
    outside = tmp_path / "escape.py"
    outside.write_text(SCRIPT)
    (repo / "docs" / "OUT.md").write_text(f"```\npython {outside}\npython ../../escape.py\n```\n")
    found = repository_launches(repo)
    assert found == {("script", "eval_knn.py"): [""],  # gone.py and files outside it are not in the repository
                     ("script", "main.py"): ["python -m torch.distributed.launch --nproc_per_node=8"],
                     ("script", "examples/nlp.py"): ["accelerate launch"], ("module", "pkg.cli"): [""]}
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


def test_a_task_folders_script_finds_the_launch_its_folders_readme_documents(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {
        "examples/nlp_example.py": SCRIPT,
        "examples/README.md": "```\npython ./nlp_example.py\naccelerate launch --cpu ./nlp_example.py\n"
                              "accelerate launch --multi_gpu --num_processes 2 ./nlp_example.py\n```\n"})
    ctx = CheckContext(repo, "examples")
    (found,) = targets("Train nlp_example.py on 2 GPUs with fp16", "", ctx, limit=2)
    assert (found.target, found.workdir) == ("nlp_example.py", "examples")
    assert found.launcher == "accelerate launch --multi_gpu --num_processes 2"
    (plain,) = targets("Train nlp_example.py with fp16", "", ctx, limit=2)
    assert plain.launcher == ""
