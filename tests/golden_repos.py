"""The fixture repositories of the golden replay (``tests/golden_replay.py``): small, written
here, one per theme, so each stored candidate meets the scripts, documents and packages its rule
or fix reads. Edit a text below only together with ``tests/data/golden/fingerprint.json``
(regenerate it and read the diff)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from check_helpers import ARGPARSE, make_check_repo

SIZES = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--img_size", type=int, default=64)
p.add_argument("--batch_size", type=int, default=64)
p.add_argument("--n_epochs", type=int, default=200)
p.add_argument("--lr", type=float, default=0.0002)
p.add_argument("--model", type=str, default="TimesNet")
p.add_argument("--data", type=str, default="ETTh1")
p.add_argument("--output_dir", type=str, default="out")
p.add_argument("--input_dir", type=str, default="in")
args = p.parse_args()
'''
BOOLS = "def str2bool(v):\n    return v.lower() == 'true'\n" + ARGPARSE.replace(
    'p.add_argument("--gpu", action="store_true")',
    'p.add_argument("--noise", type=bool, default=False)\np.add_argument("--unseen", type=str2bool, default=False)')
POINTS = ARGPARSE.replace('p.add_argument("--data", required=True)', 'p.add_argument("--num_points", type=int)')
PREPARE = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--input_file")
p.add_argument("--output_file")
p.add_argument("--vocab_file")
p.add_argument("--max_seq_length", type=int, default=128)
args = p.parse_args()
'''
PRETRAIN = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--input_file")
p.add_argument("--config_file", required=True)
p.add_argument("--max_seq_length", type=int, default=128)
p.add_argument("--num_train_steps", type=int, default=20)
p.add_argument("--num_warmup_steps", type=int, default=10)
p.add_argument("--learning_rate", type=float, default=5e-5)
args = p.parse_args()
'''
PRETRAIN_README = '''# Pre-training

```shell
export MODEL_DIR=/path/to/models/base_L-12_H-768
```

First make the data, then train:

```shell
python prepare.py \\
  --input_file=./sample.txt \\
  --output_file=/tmp/x.rec \\
  --vocab_file=$MODEL_DIR/vocab.txt \\
  --max_seq_length=128
```

```shell
python pretrain.py \\
  --input_file=/tmp/x.rec \\
  --config_file=$MODEL_DIR/config.json \\
  --max_seq_length=128 \\
  --num_train_steps=20 \\
  --num_warmup_steps=10 \\
  --learning_rate=2e-5
```
'''


def _check(root: Path) -> Path:
    """Scripts of every parser kind, a package, documents, modules that read no arguments."""
    repo = make_check_repo(root)
    (repo / "requirements.txt").write_text("somedep-not-installed>=1\n")
    (repo / "two.sh").write_text('#!/bin/sh\npython train.py --data "$1" --lr "$2"\n')
    (repo / "train_genre.sh").write_text('#!/bin/sh\npython train.py --data "$1"\n')
    (repo / "pkg" / "demo.py").write_text("import os\nclass Att:\n    pass\n\nif __name__ == '__main__':\n"
                                          "    print(Att())\n")
    (repo / "demo.py").write_text("import os\nIMAGE_PATH = 'assets/a.jpg'\nprint(os.path.exists(IMAGE_PATH))\n")
    (repo / "examples" / "lm-design").mkdir(parents=True)
    (repo / "examples" / "lm-design" / "lm_design.py").write_text("import sys\nprint(sys.argv)\n")
    (repo / "flags.py").write_text(BOOLS)
    return repo


def _fill(root: Path) -> Path:
    """A script with many sized flags and experiment wrappers under scripts/."""
    repo = make_check_repo(root)
    (repo / "gan.py").write_text(SIZES)
    for task, model in (("forecast", "TimesNet"), ("anomaly", "Autoformer")):
        (repo / "scripts" / task).mkdir(parents=True)
        (repo / "scripts" / task / f"{model}_SMAP.sh").write_text(
            f"export CUDA_VISIBLE_DEVICES=0\nmodel_name={model}\n\npython -u gan.py \\\n  --model $model_name \\\n"
            f"  --data SMAP \\\n  --batch_size 32\n")
    return repo


def _models(root: Path) -> Path:
    """Sibling scripts named by model and task, and model folders a task starts in."""
    repo = make_check_repo(root)
    ex = repo / "models3d"
    ex.mkdir()
    for name in ("test_pointnet", "train_masknet", "train_PointNetLK", "eval_pcn", "model"):
        (ex / f"{name}.py").write_text(POINTS)
    (ex / "test_masknet.py").write_text(BOOLS.replace('p.add_argument("--data", required=True)',
                                                      'p.add_argument("--num_points", type=int)'))
    (ex / "test_dcp.py").write_text("print('reads nothing')\n")
    for name in ("bgan", "wgan"):
        (repo / "implementations" / name).mkdir(parents=True)
        (repo / "implementations" / name / f"{name}.py").write_text(ARGPARSE)
    return repo


def _documented(root: Path) -> Path:
    """Two scripts of one folder whose commands and variables the README documents."""
    repo = make_check_repo(root)
    (repo / "prepare.py").write_text(PREPARE)
    (repo / "pretrain.py").write_text(PRETRAIN)
    (repo / "README.md").write_text(PRETRAIN_README)
    return repo


REPOS: dict[str, Callable[[Path], Path]] = {"check": _check, "fill": _fill, "models": _models,
                                            "documented": _documented}


def build_golden_repos(root: Path) -> dict[str, Path]:
    """Every golden repository, each in its own folder under ``root``, by name."""
    return {name: make(root / name) for name, make in REPOS.items()}
