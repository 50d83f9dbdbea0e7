"""``missing-file`` and the ``refile`` fix step (``ragcode.check.repo_files``): a config-like path
that is not in the repository, and the one file the task's words name."""

from __future__ import annotations

from pathlib import Path

import pytest
from check_helpers import make_check_repo

from ragcode.answer.fixes import DEFAULT_FIXES, fix_answer
from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.bash import resolved_calls
from ragcode.check.repo_files import best_file, missing_files

TASK = "Train Mask R-CNN R50-FPN 1x on COCO."


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = make_check_repo(tmp_path)
    for name in ("COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_1x.yaml", "COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml",
                 "COCO-Detection/faster_rcnn_R_50_FPN_1x.yaml", "LVIS/mask_rcnn_R_50_FPN_1x.yaml"):
        (repo / "configs" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "configs" / name).write_text("MODEL: {}\n")
    return repo


def test_the_file_the_task_names_is_suggested(repo: Path):
    assert best_file("configs/tensormask_R_50_FPN_1x.yaml", repo, TASK) == \
        "configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_1x.yaml"
    assert best_file("configs/tensormask_R_50_FPN_1x.yaml", repo, "Train R50-FPN 1x.") == ""  # three tie


def test_only_a_missing_config_path_under_a_repository_folder_is_said(repo: Path):
    ctx = CheckContext(repo, ".", TASK)
    def said(code: str, at: CheckContext = ctx) -> list:
        return missing_files(resolved_calls(code, at), at)

    (f,) = said("python train.py --data configs/tensormask_R_50_FPN_1x.yaml")
    assert f.code == "missing-file" and f.target == "configs/tensormask_R_50_FPN_1x.yaml"
    assert said("python train.py --data configs/COCO-Detection/faster_rcnn_R_50_FPN_1x.yaml") == []
    assert said("python train.py --data data/x.yaml --lr 1") == []  # no folder data/
    assert said("python train.py --data configs/x.csv") == []  # not a config file
    mine = CheckContext(repo, ".", "Train with my configs/mine.yaml.")
    assert said("python train.py --data configs/mine.yaml", mine) == []  # the user's own file


def test_refile_writes_the_named_file_in(repo: Path):
    ctx = CheckContext(repo, ".", TASK)
    checkers = load_checkers(DEFAULT_CHECKS)
    code = "python train.py --data configs/tensormask_R_50_FPN_1x.yaml"
    out, fs, record = fix_answer(code, "bash", check_answer(code, "bash", ctx, checkers), ctx, checkers)
    assert out == "python train.py --data configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_1x.yaml"
    assert "refile" in DEFAULT_FIXES and record["refiled"]
    assert not [f for f in fs if f.code == "missing-file"]
