"""Moving a bash answer to the sibling script the instruction names (check.retarget), alone and
through the checked pipeline's fix step."""

from __future__ import annotations

from check_helpers import ARGPARSE, make_check_repo

from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.answer.fixes import better, fix_answer
from ragcode.check.retarget import name_words, retarget_script, scripts_named

POINTS = ARGPARSE.replace('p.add_argument("--data", required=True)', 'p.add_argument("--num_points", type=int)')


def _repo(tmp_path):
    repo = make_check_repo(tmp_path)
    ex = repo / "models3d"
    ex.mkdir()
    for name in ("test_pointnet", "test_masknet", "train_masknet", "train_PointNetLK", "eval_pcn", "model"):
        (ex / f"{name}.py").write_text(POINTS)
    (ex / "test_dcp.py").write_text("print('reads nothing')\n")
    return repo


def test_the_sibling_whose_name_the_instruction_says_is_called(tmp_path):
    repo = _repo(tmp_path)
    ctx = CheckContext(repo, "models3d", "I am testing the masknet model with 256 points")
    assert retarget_script("python test_pointnet.py --num_points 256", ctx) == "python test_masknet.py --num_points 256"
    # the path the answer wrote is kept, only the file name moves
    ctx = CheckContext(repo, ".", "I want to test the masknet model")
    assert retarget_script("python models3d/test_pointnet.py -b 2", ctx) == "python models3d/test_masknet.py -b 2"
    # several fit: the one keeping most of the called script's words ("test")
    ctx = CheckContext(repo, "models3d", "train and test the masknet model")
    assert retarget_script("python test_pointnet.py", ctx) == "python test_masknet.py"
    ctx = CheckContext(repo, "models3d", "Train the PointNetLK model on shapenet2")
    assert retarget_script("python test_pointnet.py", ctx) == "python train_PointNetLK.py"


def test_nothing_moves_without_a_clear_sibling(tmp_path):
    repo = _repo(tmp_path)
    # the called script's name is said in full
    assert retarget_script("python test_pointnet.py", CheckContext(repo, "models3d", "test pointnet on masknet")) is None
    # two siblings fit as well (neither shares a word with eval_pcn): a guess
    assert retarget_script("python eval_pcn.py", CheckContext(repo, "models3d", "train and test masknet")) is None
    # a sibling named only by words every task says (model.py), or one that reads no command line
    assert retarget_script("python test_pointnet.py", CheckContext(repo, "models3d", "test the model")) is None
    assert retarget_script("python test_pointnet.py", CheckContext(repo, "models3d", "test the dcp model")) is None
    # two scripts run, or none resolvable
    two = "python test_pointnet.py && python eval_pcn.py"
    assert retarget_script(two, CheckContext(repo, "models3d", "test the masknet model")) is None
    assert retarget_script("python nothere.py", CheckContext(repo, "models3d", "test the masknet model")) is None


def test_name_words_and_named_scripts():
    assert name_words(__import__("pathlib").Path("train_PointNetLK.py")) == {"train", "pointnetlk"}
    assert scripts_named("python test_masknet.py -b 2", "testing masknet") == 1
    assert scripts_named("python test_pointnet.py -b 2", "testing masknet") == 0


def test_the_fix_step_moves_the_call_and_keeps_it_when_no_worse(tmp_path):
    repo = _repo(tmp_path)
    checkers = load_checkers(list(DEFAULT_CHECKS))
    ctx = CheckContext(repo, "models3d", "Test the masknet model with a batch size of 4")
    code = "python test_pointnet.py -b 4"
    fs = check_answer(code, "bash", ctx, checkers)
    new, new_fs, record = fix_answer(code, "bash", fs, ctx, checkers)
    assert new == "python test_masknet.py -b 4" and record["retargeted"] == new
    assert better(new, new_fs, code, fs, ctx.instruction)  # as clean, and names the script the task says
    # with the certain fixes alone, nothing moves
    assert fix_answer(code, "bash", fs, ctx, checkers, ["certain"])[0] == code
