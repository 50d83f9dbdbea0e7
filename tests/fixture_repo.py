"""A small repository with every case the chunking stage must handle, built in a temp dir.

Line numbers matter to the tests: edit the texts below only together with tests/test_chunking_*.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

README = """\
# Demo

Intro text for the demo project.

Install
=======

Run this:

```bash
# not a heading
pip install demo
```

## Training

Train the model with:

```bash
python train.py --lr 0.1
```

The learning rate matters a lot for this model, so try a few values before you settle
on one; the defaults are tuned for the small dataset only.

### Tips

Small.

## Evaluation
Setext-like lines inside fences are not headings:

~~~
Not a heading
=============
~~~
"""

TRAIN_PY = '''\
import argparse

DEFAULT_EPOCHS = 10


def main():
    parser = argparse.ArgumentParser(description="Train the demo model")
    parser.add_argument("--lr", "--learning-rate", type=float, default=0.001,
                        help="learning rate")
    parser.add_argument("--dataset", type=str, default="cora",
                        choices=["cora", "citeseer"], help="dataset name")
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS, help="epochs")
    parser.add_argument("--cuda", action="store_true", help="use the GPU")
    parser.add_argument("data_dir", help="where the data is")
    args = parser.parse_args()
    print(args)


if __name__ == "__main__":
    main()
'''


def _model_py() -> str:
    body = "\n".join(f"    total = total + {i} * x  # step {i}" for i in range(60))
    return f'''\
"""Models for the demo."""
import math


class Base:
    """A base model."""

    def forward(self, x):
        return x


class Net(Base):
    def __init__(self, width):
        self.width = width
        self.layers = [math.sqrt(i) for i in range(width)]

    def forward(self, x):
        for layer in self.layers:
            x = x * layer + self.width
        return x


def oversized(x):
    """A function far over the size limit."""
    total = 0
{body}
    return total
'''


NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Notebook\n", "Some words."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1,
         "source": ["!python train.py --dataset citeseer"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["OUTPUT-TEXT\n"]}]},
        {"cell_type": "markdown", "metadata": {}, "source": "## Plot"},
        {"cell_type": "code", "metadata": {}, "execution_count": 2,
         "source": "print('done')", "outputs": []},
    ],
}

GUIDE_RST = """\
=====
Guide
=====

Intro.

Usage
-----

Call it like this::

    python train.py --epochs 3

Details
~~~~~~~

More.
"""

CLICK_PY = '''\
import click


@click.command()
@click.option("--size", "-s", type=int, default=3, help="Size.")
@click.option("--mode", type=click.Choice(["fast", "slow"]), default="fast")
@click.option("--verbose", is_flag=True, help="Talk more.")
@click.argument("name")
def cli(size, mode, verbose, name):
    print(size, mode, verbose, name)
'''

ABSL_PY = '''\
from absl import app, flags

flags.DEFINE_string("model", "resnet", "Model name.")
flags.DEFINE_integer("steps", 100, "Training steps.")
flags.DEFINE_enum("opt", "adam", ["adam", "sgd"], "Optimizer.")
FLAGS = flags.FLAGS
'''

TYPER_PY = '''\
import typer


def main(epochs: int = typer.Option(5, help="Epochs."),
         out: str = typer.Argument(..., help="Output dir.")):
    print(epochs, out)
'''

RUN_SH = """\
#!/bin/bash
cd scripts
python ../train.py --epochs 3 \\
    --dataset cora
"""


def make_fixture_repo(root: Path) -> Path:
    """Write the fixture repository under ``root`` and return it."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "README.md": README,
        "train.py": TRAIN_PY,
        "model.py": _model_py(),
        "docs/guide.rst": GUIDE_RST,
        "tools/click_cli.py": CLICK_PY,
        "tools/absl_cli.py": ABSL_PY,
        "tools/typer_cli.py": TYPER_PY,
        "run.sh": RUN_SH,
        "scripts/.keep": "",
        "broken.py": "def broken(:\n    ((((\n  ]]] }}}\nclass\n  ::\n",
        "demo.ipynb": json.dumps(NOTEBOOK, indent=1),
        "config.yaml": "lr: 0.1\nepochs: 3\n",
        ".gitignore": "*.log\nignored_dir/\n",
        "debug.log": "ignored\n",
        "ignored_dir/x.py": "x = 1\n",
        "sub/.gitignore": "secret.txt\n!keep.log\n",
        "sub/secret.txt": "hidden\n",
        "sub/keep.log": "kept by a nested negation\n",
        "node_modules/pkg/index.js": "module.exports = 1;\n",
        "big.txt": "x" * 20_000,
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (root / "blob.dat").write_bytes(b"\x00\x01\x02binary")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "latin1.txt").write_bytes(b"caf\xe9 au lait\r\nsecond line\r\n")
    os.symlink(".", root / "loop", target_is_directory=True)
    return root
