"""Grounding: the parameters the likely scripts' own parsers declare, read in the sandbox, at the
head of the prompt's context; nothing where no parser is reached."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import ABSL, ARGPARSE, CLICK, FIRE, needs_bwrap, needs_library, one, runner, write
from ragcode.answer.grounding import ground_context, launch_forms, render, targets
from ragcode.check import CheckContext
from ragcode.config import Config, load_config
from ragcode.dryrun.result import Entry, ParseResult
from ragcode.types import Context

REQUIRED = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--data_path", required=True, help="where the images are")
parser.add_argument("--eval", action="store_true", help="evaluate only")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--dataset", choices=["cifar10", "imagenet"], default="cifar10")
args = parser.parse_args()
raise SystemExit("the program body ran")
"""


def test_launch_forms_read_scripts_modules_and_their_first_launchers_from_command_lines_in_order() -> None:
    text = ("### README.md:1-9\nSome prose about train.py.\n```bash\n$ python tools/train.py \\\n  --lr 1\n"
            "torchrun --nproc_per_node 2 main.py --eval\npython -m pkg.cli run\npython tools/train.py --lr 2\n"
            "accelerate launch --multi_gpu nlp.py\n/usr/bin/python3.11 other.py\n```")
    assert {key: forms[0] for key, forms in launch_forms(text).items()} == {("script", "tools/train.py"): "", ("script", "main.py"): "torchrun --nproc_per_node 2",
                              ("module", "pkg.cli"): "", ("script", "nlp.py"): "accelerate launch --multi_gpu",
                              ("script", "other.py"): ""}


def test_targets_take_the_instructions_script_first_and_only_files_inside_the_repository(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": REQUIRED, "sub/eval.py": REQUIRED, "pkg/cli.py": "x = 1\n"})
    ctx = CheckContext(repo, ".")
    found = targets("run sub/eval.py on cifar", "python train.py\npython ../outside.py\npython gone.py\n"
                    "python -m pkg.cli", ctx, limit=5)
    assert [(t.kind, t.target, t.workdir) for t in found] == [
        ("script", "sub/eval.py", "."), ("script", "train.py", "."), ("module", "pkg.cli", ".")]
    assert len(targets("", "python train.py\npython -m pkg.cli", ctx, limit=1)) == 1


def test_render_puts_the_instructions_parameters_first_within_the_budget() -> None:
    spec = [{"name": f"--opt{i}", "type": "int", "required": False, "default": str(i)} for i in range(30)]
    spec.append({"name": "--eval", "type": "switch", "required": False, "help": "evaluate only"})
    spec.append({"name": "--data_path", "type": "str", "required": True})
    result = ParseResult("rejected", Entry("script", "main.py"), parser="argparse", spec=spec)
    table = render(result, "main.py", "Evaluate on the data path /x", budget=260)
    lines = table.splitlines()
    assert lines[0].startswith("Parameters of main.py, read from its own argparse parser")
    assert "  --eval switch - evaluate only" in lines and "  --data_path str (required)" in lines
    assert len(table) <= 260 + len("  ... and 99 more") + 1 and lines[-1].startswith("  ... and ")
    # declaration order among the kept ones: --opt0 before --eval
    assert lines.index("  --opt0 int (default: 0)") < lines.index("  --eval switch - evaluate only")
    assert render(ParseResult("unreached", Entry("script", "x.py")), "x.py", "", 500) == ""
    launched = render(result, "main.py", "", 400, launcher="torchrun --nproc_per_node 8")
    assert launched.splitlines()[1] == \
        "  Run it as the repository's docs do: torchrun --nproc_per_node 8 main.py [parameters]"


@needs_bwrap
def test_argparse_spec_comes_back_even_when_the_empty_command_is_refused(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": REQUIRED})
    r = one("python train.py", repo, runner(tmp_path))
    assert r.status == "rejected" and "--data_path" in r.message
    by_name = {p["name"]: p for p in r.spec}
    assert set(by_name) == {"--data_path", "--eval", "--batch-size", "--dataset"}  # help left out
    assert by_name["--data_path"]["required"] and by_name["--eval"]["type"] == "switch"
    assert by_name["--dataset"]["choices"] == "cifar10, imagenet" and by_name["--batch-size"]["default"] == "64"


@needs_bwrap
def test_accepted_argparse_keeps_its_verdict_and_carries_the_spec(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    r = one("python train.py --lr 0.5", repo, runner(tmp_path))
    assert r.status == "accepted" and r.params["lr"] == 0.5
    assert {p["name"] for p in r.spec} == {"--lr", "--model-type", "--epochs", "--opts"}


@needs_bwrap
@needs_library("click")
def test_click_spec_names_options_choices_and_subcommands(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"tool.py": CLICK})
    group = one("python tool.py", repo, runner(tmp_path, "click"))
    assert {"name": "command", "type": "subcommand", "required": True, "choices": "build"} in group.spec
    build = one("python tool.py build --width 8", repo, runner(tmp_path, "click"))
    mode = next(p for p in build.spec if p["name"] == "--mode")
    assert mode["choices"] == "fast, slow" and mode["default"] == "fast"


@needs_bwrap
@needs_library("fire")
def test_fire_spec_is_the_functions_signature(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"sample.py": FIRE})
    r = one("python sample.py", repo, runner(tmp_path, "fire"))
    assert r.status == "rejected"  # ckpt_dir is required
    assert [(p["name"], p["required"], p.get("default")) for p in r.spec] == [
        ("--ckpt_dir", True, None), ("--temperature", False, "0.8"), ("--max_len", False, "64")]


@needs_bwrap
@needs_library("absl")
def test_absl_spec_lists_the_programs_own_flags(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"run.py": ABSL})
    r = one("python run.py", repo, runner(tmp_path, "absl"))
    names = {p["name"]: p for p in r.spec}
    assert set(names) == {"--num_layers", "--optimizer"} and names["--num_layers"]["default"] == "2"


@needs_bwrap
def test_ground_context_puts_the_parsers_table_first_and_says_nothing_without_a_parser(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": REQUIRED, "reads_argv.py": "import sys\nprint(sys.argv)\n"})
    ctx = CheckContext(repo, ".")
    context = Context("### README.md:1-2\npython train.py --data_path /d", ("c1",), 0)
    out = ground_context("evaluate on imagenet", context, ctx, Config(), runner=runner(tmp_path))
    assert out is not None and out.chunk_ids == ("c1",)
    head, rest = out.text.split("\n\n", 1)
    assert head.startswith("Parameters of train.py, read from its own argparse parser")
    assert "  --dataset {cifar10, imagenet} (default: cifar10)" in head and rest == context.text
    no_parser = Context("python reads_argv.py --x 1", (), 0)
    assert ground_context("x", no_parser, ctx, Config(), runner=runner(tmp_path)) == no_parser
    off = load_config(overrides=["generation.ground=false"])
    assert ground_context("x", context, ctx, off, runner=runner(tmp_path)) == context


@needs_bwrap
def test_a_parser_with_many_long_helps_keeps_its_verdict_and_a_trimmed_spec(tmp_path: Path) -> None:
    lines = ["import argparse", "p = argparse.ArgumentParser()"]
    lines += [f"p.add_argument('--option_number_{i}', type=int, default={i}, help='{'words ' * 40}{i}')"
              for i in range(120)]
    lines += ["p.parse_args()"]
    repo = write(tmp_path / "repo", {"big.py": "\n".join(lines) + "\n"})
    r = one("python big.py --option_number_3 7 --nope 1", repo, runner(tmp_path))
    assert r.status == "rejected" and "unrecognized arguments: --nope 1" in r.message
    assert 0 < len(r.spec) <= 64 and r.spec[0]["name"] == "--option_number_0"
