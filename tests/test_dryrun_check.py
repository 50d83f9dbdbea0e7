"""The ``parse`` checker: findings only where the script's own parser has spoken."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import ARGPARSE, KNOWN_ONLY, needs_bwrap, runner, write
from golden_repos import MAIN_PARSER, SUBMIT
from ragcode.check import CHECKERS, CheckContext, check_answer, load_checkers
from ragcode.config import Config
from ragcode.dryrun.checker import ParseChecker

pytestmark = needs_bwrap


def _checker(tmp_path: Path) -> ParseChecker:
    checker = ParseChecker(Config())
    checker.runner = runner(tmp_path)
    return checker


def test_parse_is_a_checker_named_in_the_registry() -> None:
    assert CHECKERS.get("parse") is ParseChecker
    assert isinstance(load_checkers(["parse"], Config())[0], ParseChecker)


def test_rejected_command_is_an_error_with_the_parsers_message(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    (f,) = check_answer("cd .\npython train.py --model-type ViT-L", "bash", CheckContext(repo), [_checker(tmp_path)])
    assert (f.code, f.severity, f.line, f.target) == ("parse-rejected", "error", 2, "train.py")
    assert "invalid choice: 'ViT-L' (choose from 'vit_l', 'vit_b')" in f.message


def test_right_answer_and_unreached_parser_say_nothing(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE, "hand.py": "import sys\nprint(sys.argv[1])\n"})
    checker = _checker(tmp_path)
    assert check_answer("python train.py --model-type vit_l --opts A 1", "bash", CheckContext(repo), [checker]) == []
    assert check_answer("python hand.py --anything", "bash", CheckContext(repo), [checker]) == []


def test_words_left_by_parse_known_args_are_a_warning(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": KNOWN_ONLY})
    (f,) = check_answer("python train.py --depth 3", "bash", CheckContext(repo), [_checker(tmp_path)])
    assert (f.code, f.severity) == ("ignored-args", "warning") and "--depth 3" in f.message


def test_python_call_that_does_not_bind_is_an_error_at_its_line(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"lib.py": "def build(depth, width=64):\n    return depth\n"})
    code = "from lib import build\n\nbuild(2, widht=3)\n"
    (f,) = check_answer(code, "python", CheckContext(repo), [_checker(tmp_path)])
    assert (f.code, f.line, f.target) == ("parse-rejected", 3, "build") and "widht" in f.message


def test_variables_bound_in_other_parameters_places_are_an_error_fixed_as_keywords(tmp_path: Path) -> None:
    from ragcode.check.autofix import autofix
    from ragcode.dryrun import keeps_fix

    lib = "def unet(dim, init_dim=None, out_dim=None, dim_mults=(1, 2), channels=3, *, flash=False):\n    return dim\n"
    repo = write(tmp_path / "repo", {"lib.py": lib})
    checker = _checker(tmp_path)
    code = "from lib import unet\ndim = 64\ndim_mults = (1, 2, 4)\nchannels = 1\nm = unet(dim, dim_mults, channels)\n"
    (f,) = check_answer(code, "python", CheckContext(repo), [checker])
    assert (f.code, f.line, f.target, f.suggestion) == ("misbound-positional", 5, "unet", "dim_mults,channels")
    assert "dim_mults lands in init_dim, channels lands in out_dim" in f.message
    fixed, _ = autofix(code, [f])
    assert fixed.endswith("m = unet(dim, dim_mults=dim_mults, channels=channels)\n")
    assert check_answer(fixed, "python", CheckContext(repo), [checker]) == []
    assert keeps_fix(code, fixed, "python", CheckContext(repo), checker.runner)  # accepted, yet not right
    right = "from lib import unet\ndim = 64\ninit_dim = 8\nm = unet(dim, init_dim)\n"
    assert check_answer(right, "python", CheckContext(repo), [checker]) == []  # each in its own place
    flash = "from lib import unet\nflash = True\nm = unet(64, None, None, (1,), 3, flash)\n"
    assert [f.code for f in check_answer(flash, "python", CheckContext(repo), [checker])] == ["parse-rejected"]
    mixed = "from lib import unet\nchannels = 1\nm = unet(64, channels, 5)\n"
    (g,) = check_answer(mixed, "python", CheckContext(repo), [checker])
    assert g.code == "misbound-positional" and g.suggestion == ""  # 5 after it has no name: no certain fix


def test_keeps_fix_never_rewrites_a_right_answer_and_refuses_what_the_parser_refuses(tmp_path: Path) -> None:
    from ragcode.dryrun import keeps_fix

    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    run = runner(tmp_path)
    ctx = CheckContext(repo, ".", "Train the ViT-L model (vit_l) with learning rate 0.5.")
    right = "python train.py --model-type vit_l --lr 0.5"
    assert not keeps_fix(right, "python train.py --model-type vit_l --lr 0.5 --epochs 4", "bash", ctx, run)
    wrong = "python train.py --model-type vit_b --lr 0.5"
    assert not keeps_fix(wrong, "python train.py --model-type ViT-L --lr 0.5", "bash", ctx, run)
    assert keeps_fix(wrong, right, "bash", ctx, run)
    assert keeps_fix("python train.py --type vit_l --lr 0.5", right, "bash", ctx, run)  # an unknown flag corrected
    # argparse takes an unambiguous prefix: the parser accepts this one as it is
    assert not keeps_fix("python train.py --model vit_l --lr 0.5", right, "bash", ctx, run)
    assert not keeps_fix(wrong, "python train.py --model-type vit_l", "bash", ctx, run)  # loses the 0.5


def test_keeps_fix_refuses_a_respelling_the_parser_takes_without_choices(tmp_path: Path) -> None:
    from ragcode.dryrun import keeps_fix

    script = ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--arch', default='vit_small')\n"
              "p.add_argument('--patch_size', type=int, default=16)\np.add_argument('--weights', default='')\n"
              "p.add_argument('--dataset')\np.parse_args()\n")
    repo = write(tmp_path / "repo", {"viz.py": script})
    run = runner(tmp_path)
    ctx = CheckContext(repo, ".", "Show the attention of the ViT-Small/8 model on CIFAR-10 images.")
    right = "python viz.py --arch vit_small --patch_size 8 --dataset cifar10"
    assert not keeps_fix(right, right.replace("cifar10", "CIFAR-10"), "bash", ctx, run)
    assert not keeps_fix(right, right + " --weights ViT-Small/8", "bash", ctx, run)
    assert keeps_fix("python viz.py --dataset cifar10", right, "bash", ctx, run)


def test_keeps_fix_counts_the_instructions_names_as_values(tmp_path: Path) -> None:
    from ragcode.dryrun import keeps_fix

    script = ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--model', default='{}')\n"
              "p.add_argument('--data', default='ETTm1')\np.parse_args()\n")
    ctx_for = lambda default: CheckContext(  # noqa: E731
        write(tmp_path / default, {"run.py": script.format(default)}), ".", "Train the Autoformer model on ETTh1.")
    run = runner(tmp_path)
    before, after = "python run.py --data ETTh1", "python run.py --data ETTh1 --model Autoformer"
    assert keeps_fix(before, after, "bash", ctx_for("DLinear"), run)  # the user's model over another default
    assert not keeps_fix(before, after, "bash", ctx_for("Autoformer"), run)  # the default is the user's already


def test_keeps_fix_lets_a_move_to_the_named_sibling_through_and_reads_call_values_as_written(tmp_path: Path) -> None:
    from ragcode.dryrun import keeps_fix

    flags = "import argparse\np = argparse.ArgumentParser()\np.add_argument('-b', type=int)\np.parse_args()\n"
    lib = "def build_model(name):\n    return name\n"
    repo = write(tmp_path / "repo", {"test_pointnet.py": flags, "test_masknet.py": flags, "lib.py": lib})
    run = runner(tmp_path)
    ctx = CheckContext(repo, ".", "Test the masknet model with a batch size of 4.")
    wrong = "python test_pointnet.py -b 4"  # accepted, its one value in place, but not the script asked for
    assert keeps_fix(wrong, "python test_masknet.py -b 4", "bash", ctx, run)
    assert not keeps_fix(wrong, "python test_masknet.py", "bash", ctx, run)  # loses the 4
    ctx = CheckContext(repo, ".", "Build the ViT-g-14 model.")
    right = "from lib import build_model\nbuild_model('ViT-g-14')\n"
    # binding a call says nothing of its values: 'ViT-g/14' is not the user's ViT-g-14 there
    assert keeps_fix(right.replace("ViT-g-14", "ViT-g/14"), right, "python", ctx, run)
    assert not keeps_fix(right, right.replace("ViT-g-14", "vit_g_14"), "python", ctx, run)


def test_overrule_drops_static_guesses_the_parser_answered(tmp_path: Path) -> None:
    from ragcode.check import Finding
    from ragcode.dryrun import dry_run
    from ragcode.dryrun.checker import overrule

    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    run = runner(tmp_path)
    ctx = CheckContext(repo)
    static = [Finding("bash", "positional-count", "train.py takes 0 positional arguments; the answer gives 1"),
              Finding("coverage", "respelled-value", "the instruction spells it 'ViT-L'", "warning", target="vit_l",
                      suggestion="ViT-L"),
              Finding("coverage", "missing-value", "the instruction names '0.7'", "warning", target="0.7")]
    accepted = dry_run("python train.py --model-type vit_l --opts A 1", "bash", ctx, run)
    assert [f.code for f in overrule(static, accepted)] == ["missing-value"]
    family = [Finding("coverage", "missing-value", "the instruction names 'ViT'", "warning", target="ViT")]
    assert overrule(family, accepted) == []  # vit_l is a ViT
    unreached = dry_run("python nowhere.py --x 1", "bash", ctx, run)
    assert overrule(static, unreached) == static
    # argparse keeps the last of a flag given twice: its accepting the command answers nothing
    twice = [Finding("bash", "duplicate-flag", "--model-type is given twice to train.py", "warning")]
    assert overrule(twice, dry_run("python train.py --model-type vit_l --model-type vit_b", "bash", ctx, run)) == twice


def test_a_refusing_parser_answers_the_static_guesses_about_flags_it_declares(tmp_path: Path) -> None:
    """A wrapper takes its flags from a parent parser in another module: the static reading of
    the wrapper sees only its own, the parser's refusal names the one flag it did not take."""
    repo = write(tmp_path / "repo", {"main.py": MAIN_PARSER, "submit.py": SUBMIT})
    checkers = [*load_checkers(["bash"]), _checker(tmp_path)]
    code = "python submit.py --model large --nodes 2 --output-dir out"
    found = check_answer(code, "bash", CheckContext(repo), checkers)
    unknown = [f.message.split(" ", 1)[0] for f in found if f.code == "unknown-flag"]
    assert unknown == ["--output-dir"]  # --model is main's, taken through the parent parser
    (said,) = [f for f in found if f.code == "unknown-flag"]
    assert said.suggestion == "--output_dir" and said.line == 1  # from the parser's flags: a certain fix
    assert any(f.code == "parse-rejected" and "--output-dir" in f.message for f in found)
    static = load_checkers(["bash"])[0].check(code, "bash", CheckContext(repo))
    assert "--model" in [f.message.split(" ", 1)[0] for f in static if f.code == "unknown-flag"]  # what it mends


def test_a_name_no_unset_parameter_of_the_calls_could_take_is_not_missing(tmp_path: Path) -> None:
    from ragcode.check import Finding
    from ragcode.dryrun import dry_run
    from ragcode.dryrun.checker import overrule

    repo = write(tmp_path / "repo", {"lib/__init__.py": "", "lib/nets.py": """
        class Perceiver:
            def __init__(self, *, depth, num_classes=1000, dropout=0.0, tie=False):
                pass
            def run(self, x, mode=None):
                pass
        def load(name, device='cpu'):
            pass
        """})
    run, ctx = runner(tmp_path), CheckContext(repo)
    missing = [Finding("coverage", "missing-value", "the instruction names 'CIFAR-10'", "warning", target="CIFAR-10")]
    numbers_only = dry_run("from lib.nets import Perceiver\nm = Perceiver(depth=4, num_classes=10)\n", "python", ctx, run)
    assert overrule(missing, numbers_only) == []  # every unset parameter takes a number or a bool
    method = dry_run("from lib.nets import Perceiver\nm = Perceiver(depth=4)\nm.run(1)\n", "python", ctx, run)
    assert overrule(missing, method) == missing  # run's mode=None could take it
    named = dry_run("from lib.nets import load\nload('x')\n", "python", ctx, run)
    assert overrule(missing, named) == missing  # device='cpu' takes names
    a_file = [Finding("coverage", "missing-value", "the instruction names 'cifar.npz'", "warning", target="cifar.npz")]
    assert overrule(a_file, numbers_only) == a_file  # a file is a path, not a name


def test_values_land_by_meaning() -> None:
    from ragcode.dryrun.values import lands

    params = {"0:model_type": "vit_l", "0:dataset": "cifar10", "0:emsize": 128, "0:lr": 0.001, "0:noise": True,
              "0:model": "DiT-XL/2", "0:opts": ["MODEL.WEIGHTS", "w.pkl"], "0:data": "data/coco128.yaml"}
    for value in ("ViT-L", "CIFAR-10", "128-dim", "1e-3", "--noise True", "DiT", "w.pkl", "coco128.yaml"):
        assert lands(value, params), value
    for value in ("ViT-H", "cifar100", "64", "--noise False", "--lr 0.01", "XL", "images/data/coco128.yaml"):
        assert not lands(value, params), value
    # the user's file under an absolute folder nobody named is another file: /path/to/w.pth is not w.pth
    assert not lands("checkpoint.pth", {"0:weights": "/path/to/checkpoint.pth"})
    assert lands("checkpoint.pth", {"0:weights": "weights/checkpoint.pth"})
    # a path is one path, not its letters: a home folder glued on is another file
    assert not lands("downloads/cat_lmdb", {"0:source": "~downloads/cat_lmdb"})
    assert not lands("./usr/image", {"0:input": "/usr/image"})
    assert lands("./data/x.json", {"0:data": "data/x.json"}) and lands("out/run", {"0:out": "out/run/"})


def test_a_number_lands_only_in_a_parameter_the_command_sets() -> None:
    from ragcode.dryrun.result import ACCEPTED, Entry, ParseResult
    from ragcode.dryrun.values import lands_in

    parsed = ParseResult(ACCEPTED, Entry("script", "run.py"), {"mask_rate": 0.125, "anomaly_ratio": 0.25,
                                                               "model": "Transformer"}, explicit=["mask_rate"])
    assert lands_in("0.125", [parsed]) and not lands_in("0.25", [parsed])  # 0.25 is another flag's default
    assert lands_in("Transformer", [parsed])  # a name may be the default the user asked for


def test_with_parse_among_the_checkers_check_answer_overrules_and_the_fixes_keep_a_right_answer(tmp_path: Path) -> None:
    """The wiring: ``check_answer`` lets the parse checker drop the static guesses its parse has
    answered, and ``fix_and_keep`` asks it before keeping a rewrite (``checkers_keep_fix``)."""
    from ragcode.answer.fixes import fix_and_keep
    from ragcode.check import checkers_keep_fix

    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    static = load_checkers(["bash", "python", "coverage"], Config())
    checkers = [*static, _checker(tmp_path)]
    ctx = CheckContext(repo, ".", "Train the ViT-L model with --opts A 1.")
    right = "python train.py --model-type vit_l --opts A 1"
    with_parse = check_answer(right, "bash", ctx, checkers)
    assert not [f for f in with_parse if f.code in ("positional-count", "respelled-value", "parse-rejected")]
    respelled = "python train.py --model-type ViT-L --opts A 1"
    assert not checkers_keep_fix(right, respelled, "bash", ctx, checkers)
    assert checkers_keep_fix(right, respelled, "bash", ctx, static)  # no parse checker: nothing to ask
    assert fix_and_keep(right, "bash", with_parse, ctx, checkers, Config().generation.fixes) is None


def test_check_answer_parses_an_answer_once_for_check_and_overrule(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    checker = _checker(tmp_path)
    runs: list[str] = []
    real = checker.runner.run

    def counted(entry, ctx):  # noqa: ANN001, ANN202
        runs.append(entry.target)
        return real(entry, ctx)

    checker.runner.run = counted  # type: ignore[method-assign]
    static = load_checkers(["bash", "coverage"], Config())
    ctx = CheckContext(repo, ".", "Train vit_l with --opts A 1.")
    check_answer("python train.py --model-type vit_l --opts A 1", "bash", ctx, [*static, checker])
    assert runs == ["train.py"]
    check_answer("python train.py --model-type vit_b", "bash", ctx, [*static, checker])
    assert runs == ["train.py", "train.py"]  # another answer is parsed anew
