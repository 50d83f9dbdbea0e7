"""The parse-only dry run: each parser style's verdict and values, stubbed imports, the timeout,
launchers and wrappers followed to the entry point, Python calls bound to real signatures."""

from __future__ import annotations

from pathlib import Path

import pytest

from dryrun_helpers import (ABSL, ARGPARSE, CLICK, CONFIGURATOR, FIRE, HF, HYDRA, HYDRA_CONFIG, KNOWN_ONLY,
                            NANO_TRAIN, SUBPARSERS, TWO_STAGE, TYPER, needs_bwrap, needs_library, one, runner,
                            write)
from ragcode.check import CheckContext
from ragcode.dryrun.entry import entries

pytestmark = needs_bwrap


def test_argparse_accepts_with_values_and_remainder_and_stubs_missing_imports(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    r = one("python train.py --lr 0.5 --model-type vit_l --opts MODEL.WEIGHTS w.pkl SOLVER.LR 0.1", repo,
            runner(tmp_path))
    assert r.status == "accepted", r.message
    assert r.params == {"lr": 0.5, "model_type": "vit_l", "epochs": 3,
                        "opts": ["MODEL.WEIGHTS", "w.pkl", "SOLVER.LR", "0.1"]}
    assert r.explicit == ["lr", "model_type", "opts"]
    assert {"torchlike_missing_lib", "missing_pkg", "missing_pkg.sub"} <= set(r.stubbed)


def test_argparse_rejects_with_its_own_message(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    run = runner(tmp_path)
    bad_choice = one("python train.py --model-type ViT-L", repo, run)
    assert bad_choice.status == "rejected"
    assert "invalid choice: 'ViT-L'" in bad_choice.message
    unknown = one("python train.py --num_layers 4", repo, run)
    assert unknown.status == "rejected" and "unrecognized arguments: --num_layers 4" in unknown.message
    bad_type = one("python train.py --epochs -2", repo, run)
    assert bad_type.status == "rejected" and "must be positive" in bad_type.message


def test_choices_built_from_a_stubbed_module_let_any_value_through(tmp_path: Path) -> None:
    script = ("import argparse\nimport torchvision_like_missing.models as models\n"
              "names = sorted(n for n in models.__dict__ if n.islower() and not n.startswith('__'))\n"
              "p = argparse.ArgumentParser()\np.add_argument('-a', '--arch', default='resnet50', choices=names)\n"
              "p.add_argument('--mode', choices=['a', 'b'])\np.parse_args()\n")
    repo = write(tmp_path / "repo", {"main.py": script})
    run = runner(tmp_path)
    r = one("python main.py -a resnet18", repo, run)
    assert r.status == "accepted", r.message
    assert r.params["arch"] == "resnet18"
    written = one("python main.py --mode c", repo, run)  # a list the author wrote still holds
    assert written.status == "rejected" and "invalid choice: 'c'" in written.message


def test_two_stage_parse_known_args_then_parse_args(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": TWO_STAGE})
    run = runner(tmp_path)
    r = one("python train.py --batch-size 32 --model vit_small", repo, run)
    assert r.status == "accepted" and r.params == {"batch_size": 32, "model": "vit_small"}
    assert one("python train.py --batch-sz 32", repo, run).status == "rejected"


def test_parse_known_args_alone_reports_what_it_ignores(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": KNOWN_ONLY})
    r = one("python train.py --size 128 --depth 3", repo, runner(tmp_path))
    assert r.status == "accepted"
    assert r.params == {"size": 128} and r.unrecognized == ["--depth", "3"]


def test_subparsers(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"tool.py": SUBPARSERS})
    run = runner(tmp_path)
    assert one("python tool.py train --steps 5", repo, run).params == {"command": "train", "steps": 5}
    r = one("python tool.py eval --split train", repo, run)
    assert r.status == "rejected" and "invalid choice: 'train'" in r.message


@needs_library("transformers")
def test_hf_argument_parser(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"run.py": HF})
    run = runner(tmp_path, timeout_s=120)
    r = one("python run.py --model_name_or_path roberta-base --lora_r 16", repo, run)
    assert r.status == "accepted", r.message
    assert r.params == {"model_name_or_path": "roberta-base", "lora_r": 16}
    bad = one("python run.py --lora_rank 16", repo, run)
    assert bad.status == "rejected" and "lora_rank" in bad.message


@needs_library("click")
def test_click_group_and_choice(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"cli.py": CLICK})
    run = runner(tmp_path, "click")
    r = one("python cli.py build --width 64", repo, run)
    assert r.status == "accepted" and r.params == {"width": 64, "mode": "fast"} and r.explicit == ["width"]
    bad = one("python cli.py build --mode medium", repo, run)
    assert bad.status == "rejected" and "medium" in bad.message


@needs_library("click")
def test_click_explicit_is_what_the_command_line_set(tmp_path: Path) -> None:
    """An option with no default is not set by leaving it out (click >= 8.3 keeps a sentinel as its
    default, which no parsed value equals); one written at its default value is set."""
    script = ("import click\n\n@click.command()\n@click.option('--aug', type=str)\n"
              "@click.option('--gpus', type=int, default=1)\n@click.option('--outdir', required=True)\n"
              "def main(aug, gpus, outdir):\n    pass\n\nmain()\n")
    repo = write(tmp_path / "repo", {"train.py": script})
    r = one("python train.py --outdir out --gpus 1", repo, runner(tmp_path, "click"))
    assert r.status == "accepted" and r.params == {"aug": None, "gpus": 1, "outdir": "out"}
    assert r.explicit == ["gpus", "outdir"]


@needs_library("typer")
def test_typer(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"hello.py": TYPER})
    run = runner(tmp_path, "typer", "click")
    r = one("python hello.py Ada --repeat 3", repo, run)
    assert r.status == "accepted" and r.params == {"name": "Ada", "repeat": 3}
    assert one("python hello.py Ada --times 3", repo, run).status == "rejected"


@needs_library("fire")
def test_python_fire(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"sample.py": FIRE})
    run = runner(tmp_path, "fire", "termcolor")
    r = one("python sample.py ckpt/ --temperature=0.5", repo, run)
    assert r.status == "accepted", r.message
    assert r.params == {"ckpt_dir": "ckpt/", "temperature": 0.5, "max_len": 64}
    # the parameters the command sets: fire moves a named one out of its keywords into the positionals
    # it calls with, beside the defaults it fills in; the scorer compares these
    assert r.explicit == ["ckpt_dir", "temperature"]
    assert one("python sample.py ckpt/ --top_k=5", repo, run).status == "rejected"
    # a function taking **kwargs (stanford_alpaca's weight_diff.main(task, **kwargs)): each its own parameter
    write(repo, {"diff.py": "import fire\n\ndef main(task, **kwargs):\n    pass\n\nfire.Fire(main)\n"})
    r = one("python diff.py recover --path_raw ./raw", repo, run)
    assert (r.params, r.explicit) == ({"task": "recover", "path_raw": "./raw"}, ["path_raw", "task"])


@needs_library("absl")
def test_absl_flags(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"main.py": ABSL})
    run = runner(tmp_path, "absl")
    r = one("python main.py --num_layers=4 --optimizer sgd", repo, run)
    assert r.status == "accepted" and r.params == {"num_layers": 4, "optimizer": "sgd"}
    bad = one("python main.py --optimizer rmsprop", repo, run)
    assert bad.status == "rejected" and "rmsprop" in bad.message


@needs_library("hydra")
def test_hydra_overrides(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": HYDRA, "conf/config.yaml": HYDRA_CONFIG})
    run = runner(tmp_path, "hydra", "omegaconf", "antlr4", "yaml", timeout_s=60)
    r = one("python train.py model.depth=24 trainer.max_epochs=3", repo, run)
    assert r.status == "accepted", r.message
    assert r.params == {"model.depth": 24, "model.width": 768, "trainer.max_epochs": 3}
    assert r.explicit == ["model.depth", "trainer.max_epochs"]
    bad = one("python train.py model.layers=24", repo, run)
    assert bad.status == "rejected" and "layers" in bad.message


def test_configurator_exec_reading_sys_argv(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": NANO_TRAIN, "configurator.py": CONFIGURATOR,
                                     "config/small.py": "n_layer = 4\n"})
    run = runner(tmp_path)
    r = one("python train.py --n_layer=6 --learning_rate=1e-3", repo, run)
    assert r.status == "accepted"
    assert r.params["n_layer"] == 6 and r.params["learning_rate"] == 1e-3 and r.params["dataset"] == "openwebtext"
    assert set(r.explicit) == {"n_layer", "learning_rate"}
    from_file = one("python train.py config/small.py", repo, run)
    assert from_file.status == "accepted" and from_file.params["n_layer"] == 4
    unknown = one("python train.py --num_layers=4", repo, run)
    assert unknown.status == "rejected" and "Unknown config key: num_layers" in unknown.message
    spaced = one("python train.py --n_layer 4", repo, run)
    assert spaced.status == "rejected" and "AssertionError" in spaced.message


def test_timeout_before_any_parser_is_unreached_and_cut(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"slow.py": "import time\ntime.sleep(600)\nimport argparse\n"
                                                "argparse.ArgumentParser().parse_args()\n"})
    r = one("python slow.py --x 1", repo, runner(tmp_path, timeout_s=3))
    assert r.status == "unreached" and "within 3 s" in r.message
    assert (r.cut, r.cause) == ("timeout", "3 s")


def test_module_entry_and_bash_wrapper(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/mod.py": SUBPARSERS,
                                     "scripts/run.sh": "#!/bin/bash\nSTEPS=7\npython tool.py train --steps $STEPS\n",
                                     "tool.py": SUBPARSERS})
    run = runner(tmp_path)
    assert one("python -m pkg.mod train --steps 2", repo, run).params == {"command": "train", "steps": 2}
    wrapped = one("bash scripts/run.sh", repo, run)
    assert wrapped.status == "accepted" and wrapped.params["steps"] == 7


def test_launchers_and_env_prefixes_reach_the_script(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"train.py": ARGPARSE})
    ctx = CheckContext(repo)
    for code in ("torchrun --nproc_per_node 8 train.py --lr 2", "accelerate launch --num_processes 2 train.py --lr 2",
                 "python -m torch.distributed.launch --nproc_per_node=2 train.py --lr 2",
                 "CUDA_VISIBLE_DEVICES=0,1 python train.py --lr 2", "cd . && nohup python3 train.py --lr 2"):
        (entry,) = entries(code, "bash", ctx)
        assert (entry.kind, entry.target, entry.argv) == ("script", "train.py", ("--lr", "2")), code
    (direct,) = entries("./train.py --lr 2", "bash", ctx)
    assert (direct.target, direct.argv, direct.env) == ("./train.py", ("--lr", "2"), ())
    (entry,) = entries("CUDA_VISIBLE_DEVICES=3 torchrun train.py", "bash", ctx)
    assert ("CUDA_VISIBLE_DEVICES", "3") in entry.env and ("LOCAL_RANK", "0") in entry.env
    assert entries("python train.py --lr $LR", "bash", ctx) == []
    assert entries('python train.py --lr "$LR"', "bash", ctx) == []
    (literal,) = entries("python train.py --out 'runs/${now:%H}'", "bash", ctx)  # single quotes: the text itself
    assert literal.argv == ("--out", "runs/${now:%H}")
    r = one("CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node 2 train.py --lr 2", repo, runner(tmp_path))
    assert r.status == "accepted" and r.params["lr"] == 2.0


def test_python_calls_bound_to_real_signatures(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"lib/__init__.py": "", "lib/models.py": """
        import torchlike_missing_lib
        def build(depth, width=64, *, pretrained=False):
            return depth
        registry = {"vit_h": build, "vit_l": build}
        """})
    run = runner(tmp_path)
    good = one("from lib.models import build, registry\nm = registry['vit_h'](2)\nbuild(4, width=128)\n", repo, run,
               "python")
    assert good.status == "accepted", good.message
    assert good.params["build.width"] == 128 and good.params["build.depth"] == 4
    assert good.params["registry.key"] == "vit_h"  # a key the mapping has is a value the answer sets
    bad_kw = one("from lib.models import build\nbuild(4, widht=128)\n", repo, run, "python")
    assert bad_kw.status == "rejected" and "widht" in bad_kw.message
    bad_key = one("import lib.models as M\nM.registry['ViT-H']\n", repo, run, "python")
    assert bad_key.status == "rejected" and "KeyError: 'ViT-H'" in bad_key.message
    named = one("from lib.models import build\ndepth = 4\nwidth = 128\nbuild(depth, width=width)\n", repo, run,
                "python")
    assert named.status == "accepted" and (named.params["build.depth"], named.params["build.width"]) == (4, 128)


def test_methods_of_what_a_repository_class_made_are_bound_with_self(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"lib/__init__.py": "", "lib/tok.py": """
        class Base:
            def save(self, prefix):
                pass
        class Tokenizer(Base):
            def __init__(self, pattern=None):
                self.merges = {}
            def train(self, text, vocab_size, verbose=False):
                pass
            @staticmethod
            def merge(ids, pair, idx):
                return ids
            @classmethod
            def load(cls, path):
                return cls()
        def make():
            return Tokenizer()
        """})
    run = runner(tmp_path)
    good = one("from lib.tok import Tokenizer\nt = Tokenizer()\nt.train('aab', 259, verbose=True)\n"
               "t.save('toy')\nt.merge([1], (1, 2), 3)\nt.load('x.model')\nt.merges.get(1)\n", repo, run, "python")
    assert good.status == "accepted", good.message
    by_name = {c["name"]: c for c in good.calls}
    assert by_name["t.train"]["params"] == {"text": "aab", "vocab_size": 259, "verbose": True}
    assert by_name["t.save"]["status"] == by_name["t.merge"]["status"] == by_name["t.load"]["status"] == "accepted"
    assert good.params["t.train.vocab_size"] == 259  # a method's values are the call's too
    wrong = one("from lib.tok import Tokenizer\nt = Tokenizer()\nt.train('aab', vocab=259)\n", repo, run, "python")
    assert wrong.status == "rejected" and "vocab" in wrong.message and "t.train()" in wrong.message
    extra = one("from lib.tok import Tokenizer\nt = Tokenizer()\nt.train('a', 259, False, 1)\n", repo, run, "python")
    assert extra.status == "rejected"
    # made by a function, reassigned, or an attribute set on the instance: cannot be told
    unknown = one("from lib.tok import make, Tokenizer\nt = make()\nt.train(vocab=1)\n"
                  "u = Tokenizer()\nu = 2\nu.train(vocab=1)\n", repo, run, "python")
    assert unknown.status == "accepted", unknown.message


def test_a_name_bound_once_to_a_literal_passes_its_value_and_any_other_name_none(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"lib/__init__.py": "", "lib/models.py": "def build(depth, width=64):\n    pass\n"})
    code = ("from lib.models import build\ndepth = 4\nsizes = (1, 2)\nw = 1\nw = 2\nn = len(sizes)\n"
            "for i in range(2):\n    pass\n"
            "def make(depth):\n    return build(depth)\n"
            "build(depth, width=sizes)\nbuild(w, width=n)\nbuild(i)\n")
    (entry,) = entries(code, "python", CheckContext(repo, "."))
    values = [(c["values"], c["kwvalues"]) for c in entry.calls]
    # depth is also make's parameter: a name stored twice is no constant, even at module level
    assert values == [([None], {}), ([None], {"width": (1, 2)}), ([None], {"width": None}), ([None], {})]
    (plain,) = entries("from lib.models import build\nd = 4\nbuild(d)\n", "python", CheckContext(repo, "."))
    assert plain.calls[0]["values"] == [4]


def test_results_are_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = write(tmp_path / "repo", {"tool.py": SUBPARSERS})
    run = runner(tmp_path)
    first = one("python tool.py train --steps 5", repo, run)

    def no_sandbox(*_a: object) -> dict:
        raise AssertionError("the sandbox ran again")

    monkeypatch.setattr(run, "_sandboxed", no_sandbox)
    assert one("python tool.py train --steps 5", repo, run) == first
    (repo / "tool.py").write_text(SUBPARSERS.replace("default=10", "default=11"))
    with pytest.raises(AssertionError, match="ran again"):
        one("python tool.py train --steps 5", repo, run)


HOSTILE = """
import argparse, os, sys, time
ESCAPE, SECRET = sys.argv[-2], sys.argv[-1]
try:
    with open(ESCAPE, "w") as fh:  # work at import time, aimed at the host
        fh.write("escaped")
except OSError:
    pass
try:
    seen = open(SECRET).read()
except OSError:
    seen = "hidden"
if os.fork() == 0:  # a child left behind
    time.sleep(600)
    os._exit(0)

def slow(text):
    try:
        with open(ESCAPE + ".type", "w") as fh:
            fh.write("escaped")
    except OSError:
        pass
    if text == "forever":
        time.sleep(600)
    return text

parser = argparse.ArgumentParser()
parser.add_argument("--name", type=slow, default="x")
parser.add_argument("--seen", choices=["nothing"])
parser.add_argument("rest", nargs="*")
args = parser.parse_args(sys.argv[1:] + ["--seen", seen[:40]])
time.sleep(600)
"""


def test_hostile_answer_stays_in_the_sandbox_and_is_cut(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"evil.py": HOSTILE})
    secret = tmp_path / "secret.txt"
    secret.write_text("host-secret-value")
    escape = tmp_path / "escaped.txt"
    run = runner(tmp_path, timeout_s=5)
    r = one(f"python evil.py --name quick {escape} {secret}", repo, run)
    assert r.status == "rejected"  # the secret was not readable: the parser saw "hidden"
    assert "invalid choice: 'hidden'" in r.message and "host-secret-value" not in r.message
    hung = one(f"python evil.py --name forever {escape} {secret}", repo, run)
    assert hung.status == "unreached" and "within 5 s" in hung.message
    assert not any(tmp_path.glob("escaped*")), "the answer wrote outside the sandbox"


def test_a_module_missing_under_an_installed_library_is_stubbed_on_a_second_try(tmp_path: Path) -> None:
    from ragcode.config import ExecutionConfig
    from ragcode.dryrun.sandbox import DryRunner

    site = write(tmp_path / "site", {"libx/__init__.py": "import missing_dep_of_libx\nVALUE = 1\n"})
    repo = write(tmp_path / "repo", {"train.py": "import libx\n" + SUBPARSERS})
    run = DryRunner(ExecutionConfig(ro_paths=[str(site)], env={"PYTHONPATH": str(site)}), tmp_path / "cache")
    r = one("python train.py train --steps 3", repo, run)
    assert r.status == "accepted" and r.params["steps"] == 3
    assert "missing_dep_of_libx" in r.stubbed
