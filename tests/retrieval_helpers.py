"""A small ML repository for the retrieval tests, built in a temp dir (never a benchmark repo)."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import write_jsonl

README = """\
# Tiny GAN zoo

Implementations of small generative models.

## Installation

```bash
pip install -r requirements.txt
```

## DCGAN

Deep convolutional GAN for small images.

```bash
cd implementations/dcgan
python3 dcgan.py --lr 0.0002 --n_epochs 200
```

## WGAN

Wasserstein GAN with weight clipping.

```bash
cd implementations/wgan
python3 wgan.py --clip_value 0.01
```
"""

DCGAN = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--n_epochs", type=int, default=200, help="number of epochs of training")
parser.add_argument("--batch_size", type=int, default=64, help="size of the batches")
parser.add_argument("--lr", type=float, default=0.0002, help="adam: learning rate")
opt = parser.parse_args()


def train(opt):
    for epoch in range(opt.n_epochs):
        pass


if __name__ == "__main__":
    train(opt)
"""

WGAN = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--clip_value", type=float, default=0.01, help="weight clipping")
parser.add_argument("--n_critic", type=int, default=5, help="critic steps per generator step")
opt = parser.parse_args()
"""

CONTRIB = """\
# Contributing

Open a pull request against the main branch; run the linters before you push.
"""


def make_gan_repo(root: Path) -> Path:
    (root / "implementations" / "dcgan").mkdir(parents=True)
    (root / "implementations" / "wgan").mkdir(parents=True)
    (root / "README.md").write_text(README)
    (root / "CONTRIBUTING.md").write_text(CONTRIB)
    (root / "implementations" / "dcgan" / "dcgan.py").write_text(DCGAN)
    (root / "implementations" / "wgan" / "wgan.py").write_text(WGAN)
    return root


def write_tasks(path: Path, github_id: int = 10) -> Path:
    """Two ML-Bench-shaped tasks; their oracles are the README sections they need."""
    tasks = [
        {"github_id": github_id, "github": "https://example.invalid/gan", "repo_id": 1,
         "id": 1, "path": "./implementations/dcgan", "arguments": "{'lr': '0.001'}",
         "instruction": "Train a deep convolutional GAN (DCGAN) with learning rate 0.001.",
         "oracle": "DCGAN Deep convolutional GAN for small images. cd implementations/dcgan "
                   "python3 dcgan.py --lr 0.0002 --n_epochs 200 SECRET_ORACLE_TOKEN",
         "type": "Bash Script", "prefix_code": "",
         "output": "python3 dcgan.py --lr 0.001 SECRET_OUTPUT_TOKEN"},
        {"github_id": github_id, "github": "https://example.invalid/gan", "repo_id": 2,
         "id": 2, "path": "./implementations/wgan", "arguments": "{'clip_value': '0.02'}",
         "instruction": "Run the Wasserstein GAN with a weight clipping value of 0.02.",
         "oracle": "WGAN Wasserstein GAN with weight clipping. cd implementations/wgan "
                   "python3 wgan.py --clip_value 0.01",
         "type": "Bash Script", "prefix_code": "", "output": "python3 wgan.py --clip_value 0.02"},
    ]
    return write_jsonl(path, tasks)


class ListCorpus:
    """The least a retriever needs from an index: a list of chunks."""

    def __init__(self, chunks):
        self._chunks = list(chunks)

    def chunks(self):
        return self._chunks
