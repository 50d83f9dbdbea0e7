"""Fixture scripts for the parse-only dry run, one per parser style, written into a test's
folder; and a runner whose sandbox can also see the parser libraries of the test interpreter
(fire, absl, hydra may live outside the interpreter's own prefix)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest
from extras import EXTRA_OF, why_missing

from ragcode.check import CheckContext
from ragcode.config import ExecutionConfig
from ragcode.dryrun import ParseResult, dry_run
from ragcode.dryrun.sandbox import DryRunner
from ragcode.execution.bwrap import bwrap_works

needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here: no sandbox for the dry run")


def library_dir(name: str) -> str | None:
    """The sys.path folder a library is imported from, or None when it is not installed."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return str(Path(next(iter(spec.submodule_search_locations))).parent)


def needs_library(name: str) -> pytest.MarkDecorator:
    extra = EXTRA_OF.get(name)
    how = f": pip install 'ragcode[{extra}]' (CI installs it)" if extra else ""
    return pytest.mark.skipif(library_dir(name) is None, reason=f"{name} is not installed{how}")


def needs_extra(extra: str) -> pytest.MarkDecorator:
    """Skip, saying what to install, when the optional ``extra`` is absent."""
    reason = why_missing(extra)
    return pytest.mark.skipif(bool(reason), reason=reason or f"the {extra} extra is installed")


def runner(tmp_path: Path, *libraries: str, timeout_s: float = 30.0) -> DryRunner:
    folders = sorted({d for d in (library_dir(n) for n in libraries) if d})
    execution = ExecutionConfig(ro_paths=folders, env={"PYTHONPATH": ":".join(folders)} if folders else {},
                                memory_mb=8192)
    return DryRunner(execution, cache_dir=tmp_path / "cache", timeout_s=timeout_s)


def write(repo: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return repo


def one(code: str, repo: Path, run: DryRunner, answer_type: str = "bash", workdir: str = ".") -> ParseResult:
    results = dry_run(code, answer_type, CheckContext(repo, workdir), runner=run)
    assert len(results) == 1, results
    return results[0]


ARGPARSE = """
import argparse
import torchlike_missing_lib as tl
from missing_pkg.sub import Thing

class Net(tl.nn.Module):
    pass

def positive(text):
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value

parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--model-type", choices=["vit_l", "vit_b"], default="vit_b")
parser.add_argument("--epochs", type=positive, default=3)
parser.add_argument("--opts", nargs=argparse.REMAINDER, default=[], help="KEY VALUE pairs")
args = parser.parse_args()
import time
time.sleep(600)  # the program body: a dry run never gets here
"""

TWO_STAGE = """
import argparse
config_parser = argparse.ArgumentParser(add_help=False)
config_parser.add_argument("-c", "--config", default="")
parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--model", default="resnet50")

def _parse_args():
    args_config, remaining = config_parser.parse_known_args()
    return parser.parse_args(remaining)

args = _parse_args()
"""

KNOWN_ONLY = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--size", type=int, default=64)
args, _unused = parser.parse_known_args()
x = 1
while True:
    x += 1
"""

SUBPARSERS = """
import argparse
parser = argparse.ArgumentParser(prog="tool.py")
sub = parser.add_subparsers(dest="command", required=True)
train = sub.add_parser("train")
train.add_argument("--steps", type=int, default=10)
sub.add_parser("eval").add_argument("--split", choices=["val", "test"], default="val")
args = parser.parse_args()
"""

HF = """
from dataclasses import dataclass, field
from transformers import HfArgumentParser

@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="bert-base-uncased")
    lora_r: int = 8

args, = HfArgumentParser(ModelArguments).parse_args_into_dataclasses()
raise SystemExit("the program body ran")
"""

CLICK = """
import click

@click.group()
def cli():
    pass

@cli.command()
@click.option("--width", type=int, default=32)
@click.option("--mode", type=click.Choice(["fast", "slow"]), default="fast")
def build(width, mode):
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    cli()
"""

TYPER = """
import typer

def main(name: str, repeat: int = 1):
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    typer.run(main)
"""

FIRE = """
import fire

def sample(ckpt_dir, temperature=0.8, max_len=64):
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    fire.Fire(sample)
"""

ABSL = """
from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_integer("num_layers", 2, "layers")
flags.DEFINE_enum("optimizer", "adam", ["adam", "sgd"], "optimizer")

def main(argv):
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    app.run(main)
"""

HYDRA = """
import hydra

@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    raise SystemExit("the program body ran")

if __name__ == "__main__":
    main()
"""
HYDRA_CONFIG = """
model:
  depth: 12
  width: 768
trainer:
  max_epochs: 10
"""

CONFIGURATOR = """
import sys
from ast import literal_eval
for arg in sys.argv[1:]:
    if '=' not in arg:
        assert not arg.startswith('--')
        config_file = arg
        exec(open(config_file).read())
    else:
        assert arg.startswith('--')
        key, val = arg.split('=')
        key = key[2:]
        if key in globals():
            try:
                attempt = literal_eval(val)
            except (SyntaxError, ValueError):
                attempt = val
            assert type(attempt) == type(globals()[key])
            globals()[key] = attempt
        else:
            raise ValueError(f"Unknown config key: {key}")
"""

NANO_TRAIN = """
import os
import torchlike_missing_lib
n_layer = 12
learning_rate = 6e-4
dataset = 'openwebtext'
config_keys = [k for k, v in globals().items() if not k.startswith('_') and isinstance(v, (int, float, bool, str))]
exec(open('configurator.py').read())
import time
time.sleep(600)
"""
