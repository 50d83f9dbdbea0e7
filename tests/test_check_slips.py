"""Slips a certain fix corrects: a ``cd`` written for a shell at the repository's root, a bool
flag given as a bare switch, a value of the instruction respelled (check.bash, check.args,
check.coverage, check.autofix, and the pipeline's fix step)."""

from __future__ import annotations

from check_helpers import ARGPARSE, make_check_repo

from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.autofix import autofix
from ragcode.answer.fixes import fix_answer

BOOLS = ARGPARSE.replace('p.add_argument("--gpu", action="store_true")',
                         'p.add_argument("--noise", type=bool, default=False)\n'
                         'p.add_argument("--unseen", type=str2bool, default=False)')
BOOLS = "def str2bool(v):\n    return v.lower() == 'true'\n" + BOOLS


def _found(answer: str, repo, workdir: str = ".", instruction: str = "", answer_type: str = "bash"):
    ctx = CheckContext(repo, workdir, instruction)
    return check_answer(answer, answer_type, ctx, load_checkers(DEFAULT_CHECKS))


def _gan_repo(tmp_path):
    repo = make_check_repo(tmp_path)
    for name in ("bgan", "wgan"):
        (repo / "implementations" / name).mkdir(parents=True)
        (repo / "implementations" / name / f"{name}.py").write_text(ARGPARSE)
    return repo


def test_a_cd_from_the_root_into_the_tasks_own_folder_is_followed_and_dropped(tmp_path):
    repo = _gan_repo(tmp_path)
    answer = "cd implementations/bgan/\npython bgan.py --data x --lr 0.1\n"
    fs = _found(answer, repo, "implementations/bgan")
    # the script resolves in the folder the cd meant: only the cd itself is a (light) finding
    assert [(f.code, f.suggestion) for f in fs] == [("cd-from-root", ".")]
    assert fs[0].weight < 1.0
    assert autofix(answer, fs)[0] == "python bgan.py --data x --lr 0.1\n"
    one_line = "cd implementations/bgan && python bgan.py --data x"
    assert autofix(one_line, _found(one_line, repo, "implementations/bgan"))[0] == "python bgan.py --data x"


def test_a_cd_from_the_root_into_a_sibling_folder_is_not_followed(tmp_path):
    repo = _gan_repo(tmp_path)
    # another model's folder: measured, it mostly runs the wrong model; it stays a missing folder
    codes = [f.code for f in _found("cd implementations/wgan && python wgan.py --data x", repo,
                                    "implementations/bgan")]
    assert codes[0] == "unknown-script" and "cd-from-root" not in codes
    # a real folder from where the task starts is no finding at all
    assert _found("cd ../wgan && python wgan.py --data x", repo, "implementations/bgan") == []


def test_a_bool_flag_given_as_a_switch_gets_true(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "flags.py").write_text(BOOLS)
    answer = "python flags.py --data x --noise --unseen \\\n  --lr 0.1"
    fs = _found(answer, repo)
    assert [(f.code, f.suggestion) for f in fs] == [("missing-flag-value", "True")] * 2
    fixed, pairs = autofix(answer, fs)
    assert fixed == "python flags.py --data x --noise True --unseen True \\\n  --lr 0.1"
    assert pairs == [("--noise", "--noise True"), ("--unseen", "--unseen True")]
    assert _found(fixed, repo) == []
    # a flag of another type that lacks its value is left to the model
    (f,) = _found("python flags.py --data x --lr", repo)
    assert (f.code, f.suggestion) == ("missing-flag-value", "")
    assert autofix("python flags.py --data x --lr", [f])[0] == "python flags.py --data x --lr"


def test_respelled_values_in_strings_and_arguments(tmp_path):
    repo = make_check_repo(tmp_path)
    instruction = "Classify the images in ./usr/image with the ViT-g-14 model"
    py = "from pkg.models import build_model\nm = build_model('ViT-g/14')\nimages = '/usr/image'\n"
    fs = _found(py, repo, instruction=instruction, answer_type="python")
    assert sorted((f.code, f.target, f.suggestion) for f in fs) == [
        ("respelled-value", "/usr/image", "./usr/image"), ("respelled-value", "ViT-g/14", "ViT-g-14")]
    fixed, _ = autofix(py, fs)
    assert fixed == "from pkg.models import build_model\nm = build_model('ViT-g-14')\nimages = './usr/image'\n"
    assert _found(fixed, repo, instruction=instruction, answer_type="python") == []
    # a name that is code, not a value (a variable, a command), is no respelling
    assert _found("from pkg.models import build_model\nvit_g_14 = build_model('ViT-g-14')\nx = './usr/image'\n", repo,
                  instruction=instruction, answer_type="python") == []
    assert [f.code for f in _found("vit-g-14 --data ./usr/image", repo, instruction=instruction)] == ["no-command"]
    # in bash, an argument is a value
    fs = _found("python train.py --data vit_g_14 --model gcn ./usr/image", repo, instruction=instruction)
    assert ("respelled-value", "vit_g_14", "ViT-g-14") in [(f.code, f.target, f.suggestion) for f in fs]


def test_the_fix_step_fixes_the_slips_of_the_sibling_it_moves_to(tmp_path):
    repo = make_check_repo(tmp_path)
    ex = repo / "examples3d"
    ex.mkdir()
    (ex / "test_pointnet.py").write_text(ARGPARSE)
    (ex / "test_masknet.py").write_text(BOOLS)
    ctx = CheckContext(repo, "examples3d", "I am testing the masknet model on data x, adding noise")
    checkers = load_checkers(DEFAULT_CHECKS)
    answer = "python examples3d/test_pointnet.py --data x --noise"
    code, fs, record = fix_answer(answer, "bash", check_answer(answer, "bash", ctx, checkers), ctx, checkers)
    assert code == "python test_masknet.py --data x --noise True"
    assert fs == [] and record["retargeted"] == code


def test_a_certain_fix_is_kept_even_when_it_shows_the_scripts_other_slips(tmp_path):
    from ragcode.answer.pipeline import autofix_first
    from ragcode.answer.run import CheckedRun
    from ragcode.types import Candidate

    repo = make_check_repo(tmp_path)
    ctx = CheckContext(repo, "examples/sub", "evaluate on x")
    checkers = load_checkers(DEFAULT_CHECKS)
    answer = "python examples/sub/evaluate.py --data x --bogus 1 --nope 2 --never 3"
    fs = check_answer(answer, "bash", ctx, checkers)
    assert [f.code for f in fs] == ["unknown-script"]  # the flags cannot be read while the path is wrong
    cand = Candidate(answer, answer, "bash", 0, {"check": {}})
    out, out_fs = autofix_first(cand, fs, CheckedRun(ctx, checkers, fixes=("certain",)))
    # the script now runs and its parser's findings weigh more than the missing script did; still kept
    assert out.code == "python evaluate.py --data x --bogus 1 --nope 2 --never 3"
    assert [f.code for f in out_fs] == ["unknown-flag"] * 3
    assert out.metadata["check"]["autofix"]["pairs"] == [["examples/sub/evaluate.py", "evaluate.py"]]
    # with the default steps, ``drop`` then takes out the three flags the task never asked for
    dropped, dropped_fs = autofix_first(cand, fs, CheckedRun(ctx, checkers))
    assert dropped.code == "python evaluate.py --data x" and dropped_fs == []


def test_a_module_the_repository_has_only_as_a_script_is_run_as_that_script(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "examples" / "lm-design").mkdir(parents=True)
    (repo / "examples" / "lm-design" / "lm_design.py").write_text("import sys\nprint(sys.argv)\n")
    answer = "python -m lm_design task=fixedbb pdb_fn=x.pdb"
    (f,) = _found(answer, repo)
    assert (f.code, f.suggestion) == ("unknown-module", "examples/lm-design/lm_design.py")
    fixed, _ = autofix(answer, [f])
    assert fixed == "python examples/lm-design/lm_design.py task=fixedbb pdb_fn=x.pdb"
    assert _found(fixed, repo) == []
    # from another folder the path is written from there; a name two files share is no fix
    assert _found(answer, repo, "examples/sub")[0].suggestion == "../lm-design/lm_design.py"
    twin = make_check_repo(tmp_path / "twin")  # a fresh repository: its files are listed once
    for folder in ("a", "b"):
        (twin / folder).mkdir()
        (twin / folder / "lm_design.py").write_text("print(1)\n")
    assert _found("python -m lm_design", twin)[0].suggestion == ""


SLIPS = ARGPARSE.replace('p.add_argument("--gpu", action="store_true")',
                         'p.add_argument("--resume", "-r", action="store_true")\n'
                         'p.add_argument("--depth1", type=int)\np.add_argument("--depth2", type=int)')


def test_a_flag_one_letter_off_the_only_flag_that_near_is_a_certain_fix(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "slips.py").write_text(SLIPS)
    for wrong, right in (("--resme", "--resume"), ("--epcohs 3", "--epochs 3"), ("--batchsize 8", "--batch_size 8")):
        answer = f"python slips.py --data x {wrong}"
        (f,) = _found(answer, repo)
        assert (f.code, f.suggestion) == ("unknown-flag", right.split()[0])
        assert autofix(answer, [f])[0] == f"python slips.py --data x {right}"
    # two flags a letter away: both named, neither chosen; a short name is no slip (--lx is not --lr)
    (f,) = _found("python slips.py --data x --depth3 4", repo)
    assert "did you mean --depth1 or --depth2?" in f.message and f.suggestion == ""
    assert autofix("python slips.py --data x --depth3 4", [f])[1] == []
    (f,) = _found("python slips.py --data x --lx 0.1", repo)
    assert autofix("python slips.py --data x --lx 0.1", [f])[1] == []


def test_check_fix_prints_the_corrected_command_or_says_there_is_none(tmp_path):
    from typer.testing import CliRunner

    from ragcode.cli import app

    repo = make_check_repo(tmp_path)
    (repo / "slips.py").write_text(SLIPS)
    args = ["check", "--repo", str(repo), "--check", "bash", "--fix"]
    out = CliRunner().invoke(app, [*args, "python slips.py --data x --resme --lr 0.01"])
    assert "did you mean --resume?" in out.stdout
    assert "fixed (0 finding(s) left):\npython slips.py --data x --resume --lr 0.01" in out.stdout
    # a flag carrying the task's value is the model's to mend: no fix (without the task, ``drop`` takes it out)
    none = CliRunner().invoke(app, [*args, "--instruction", "a depth of 4", "python slips.py --data x --depth3 4"])
    assert none.exit_code == 1 and "fixed (" not in none.stdout and "no fix:" in none.stdout
    dropped = CliRunner().invoke(app, [*args, "python slips.py --data x --depth3 4"])
    assert "fixed (0 finding(s) left):\npython slips.py --data x\n" in dropped.stdout
