"""A fixture repository for the answer checks: argparse, click and absl scripts, a shell script,
a small package, a sub-folder with its own script."""

from __future__ import annotations

from pathlib import Path

ARGPARSE = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--epochs", type=int, default=10)
p.add_argument("-b", "--batch_size", type=int, default=32)
p.add_argument("--model", choices=["gcn", "gat"], default="gcn")
p.add_argument("--data", required=True)
p.add_argument("--gpu", action="store_true")
args = p.parse_args()
'''

CLICK = '''import click

@click.command()
@click.option("--name", type=click.Choice(["alpha", "beta"]), default="alpha")
@click.option("--count", type=int, default=1)
@click.argument("src")
def main(name, count, src):
    pass

if __name__ == "__main__":
    main()
'''

ABSL = '''from absl import app, flags
FLAGS = flags.FLAGS
flags.DEFINE_integer("steps", 100, "steps")
flags.DEFINE_boolean("verbose", False, "chatty")
flags.DEFINE_enum("mode", "train", ["train", "eval"], "what to do")

def main(argv):
    pass

if __name__ == "__main__":
    app.run(main)
'''


def make_check_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "examples" / "sub").mkdir(parents=True)
    (repo / "train.py").write_text(ARGPARSE)
    (repo / "greet.py").write_text(CLICK)
    (repo / "absl_main.py").write_text(ABSL)
    (repo / "run.sh").write_text("#!/bin/sh\npython train.py --data \"$1\"\n")
    (repo / "pkg" / "__init__.py").write_text("from pkg.models import GCN\n")
    (repo / "pkg" / "models.py").write_text("class GCN:\n    pass\n\n\ndef build_model(name):\n"
                                            "    assert name in ('ViT-g-14', 'RN50')  # the names it builds\n"
                                            "    return GCN()\n")
    (repo / "examples" / "sub" / "evaluate.py").write_text(ARGPARSE)
    (repo / "README.md").write_text("# demo\n`python train.py --data cora`\n")
    return repo
