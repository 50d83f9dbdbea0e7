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
    (repo / "pkg" / "unet.py").write_text("def make_unet(dim, init_dim=None, out_dim=None, dim_mults=(1, 2, 4),"
                                          " channels=3):\n    return dim\n")
    return repo


def fill_repo(root: Path) -> Path:
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

# scripts written after the argument patterns of popular repositories outside ML-Bench, whose
# right answers the checks once harmed
MASKS = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--checkpoint", type=str, required=True)
p.add_argument("--model-type", type=str, default="default", choices=["default", "vit_h", "vit_l", "vit_b"])
p.add_argument("--input", type=str, required=True)
p.add_argument("--output", type=str, required=True)
args = p.parse_args()
'''
REGISTRY = '''def build_h(checkpoint=None):
    return checkpoint


registry = {"default": build_h, "vit_h": build_h, "vit_l": build_h, "vit_b": build_h}
'''
ATTENTION = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--arch", default="vit_small", choices=["vit_tiny", "vit_small", "vit_base"])
p.add_argument("--patch_size", type=int, default=16)
p.add_argument("--pretrained_weights", type=str, default="")
p.add_argument("--image_path", type=str, default=None)
p.add_argument("--output_dir", type=str, default=".")
args = p.parse_args()
'''
VIDEO = ATTENTION.replace('"--image_path"', '"--input_path"').replace('"--output_dir"', '"--video_format"')
VISION_README = '''# Attention maps

```
python show_attention.py --arch vit_small --patch_size 8 --image_path img.png
python make_video.py --arch vit_small --patch_size 8 --input_path frames/ --video_format mp4
```
'''
GENERATOR = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--dataset", required=True, help="cifar10 | lsun | mnist | folder")
p.add_argument("--dataroot", required=False)
p.add_argument("--niter", type=int, default=25)
p.add_argument("--imageSize", type=int, default=64)
opt = p.parse_args()
if opt.dataset == "cifar10":
    pass
'''
DETECT = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--weights", type=str, default="small.pt")
p.add_argument("--data", type=str, default="data/coco128.yaml")
p.add_argument("--epochs", type=int, default=100)
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--imgsz", "--img", "--img-size", type=int, default=640)
p.add_argument("--cfg", type=str, default="")
args = p.parse_args()
'''
VIT_MAIN = '''import argparse
p = argparse.ArgumentParser("vit")
p.add_argument("--model", default="vit_base")
p.add_argument("--epochs", type=int, default=300)
p.add_argument("--data-path", default="/datasets01/imagenet_full_size/061417/", type=str)
p.add_argument("--output_dir", default="")
args = p.parse_args()
'''
CIFAR = '''import argparse
from models import ResNet18
p = argparse.ArgumentParser(description="CIFAR10 training")
p.add_argument("--lr", default=0.1, type=float, help="learning rate")
p.add_argument("--resume", "-r", action="store_true", help="resume from checkpoint")
p.add_argument("--data_dir", default="./data")
args = p.parse_args()
net = ResNet18()  # the model is chosen here, in the code
'''
LANGUAGE = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--model", type=str, default="LSTM", help="RNN_TANH, LSTM, GRU or Transformer")
p.add_argument("--emsize", type=int, default=200)
p.add_argument("--nhid", type=int, default=200)
p.add_argument("--nlayers", type=int, default=2)
p.add_argument("--dropout", type=float, default=0.2)
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--tied", action="store_true")
p.add_argument("--res", type=int, default=32)
args = p.parse_args()
'''
OPTS = '''import argparse
p = argparse.ArgumentParser()
p.add_argument("--config-file", default="", metavar="FILE")
p.add_argument("--input", nargs="+")
p.add_argument("--opts", default=[], nargs=argparse.REMAINDER)
args = p.parse_args()
'''
GLOBALS_TRAIN = '''dataset = "webtext"
block_size = 1024
n_layer = 12
learning_rate = 6e-4
exec(open("configurator.py").read())
print(dataset, block_size, n_layer, learning_rate)
'''
CONFIGURATOR = '''import sys
for arg in sys.argv[1:]:
    if "=" not in arg:
        exec(open(arg).read())
    else:
        key, val = arg[2:].split("=")
        globals()[key] = val
'''
# a configurator that refuses a key the script does not bind (nanoGPT's)
STRICT_CONFIGURATOR = CONFIGURATOR.replace('        globals()[key] = val\n', """        if key not in globals():
            raise ValueError(f"Unknown config key: {key}")
        globals()[key] = val
""")
SMALL_CONFIG = "# the small model, 4M parameters\nblock_size = 64\nn_layer = 4\nout_dir = 'out-small'\n"
SPEECH_CLI = '''import argparse


def cli():
    p = argparse.ArgumentParser()
    p.add_argument("audio", nargs="+")
    p.add_argument("--model", default="small", choices=["tiny", "base", "small"])
    p.add_argument("--language", default=None)
    return p.parse_args()
'''


# a script that python-fire runs (alpaca-lora's finetune.py): its command is a call of train
FIRE_TUNE = ("import fire\n\n\ndef train(base_model: str = '', num_epochs: int = 3, learning_rate: float = 3e-4):\n"
             "    raise SystemExit('the program body ran')\n\n\nif __name__ == '__main__':\n    fire.Fire(train)\n")


# a model and its 1D sibling in one package (denoising-diffusion-pytorch's Unet and Unet1D)
# and stages named by numerals (DeepFloyd IF's IFStageI, IFStageII, IFStageIII)
UNETS = ("class Unet:\n    def __init__(self, dim):\n        self.dim = dim\n\n\nclass Unet1D(Unet):\n    pass\n\n\n"
         "def get_Unet(dim):\n    return Unet(dim)\n\n\nclass StageI:\n    pass\n\n\nclass StageII:\n    pass\n\n\n"
         "class StageIII:\n    pass\n")


def _outside(root: Path) -> Path:
    """Scripts with the argument patterns of repositories outside ML-Bench: choices in the
    script's own spelling, a model registry, REMAINDER, a configurator that reads sys.argv, a
    package run with -m, flags whose defaults already hold the instruction's values, a script whose
    model is chosen in its code (pytorch-cifar), a data path whose default names its dataset, a model with a 1D sibling, a python-fire script."""
    repo = make_check_repo(root)
    for name, text in (("scripts/masks.py", MASKS), ("segment/registry.py", REGISTRY), ("segment/__init__.py",
                       "from segment.registry import registry\n"), ("vision/show_attention.py", ATTENTION),
                       ("vision/make_video.py", VIDEO), ("vision/README.md", VISION_README), ("dcgan/main.py", GENERATOR),
                       ("detect_train.py", DETECT), ("lm_main.py", LANGUAGE), ("demo/opts_demo.py", OPTS),
                       ("gpt/train.py", GLOBALS_TRAIN), ("gpt/configurator.py", CONFIGURATOR),
                       ("gpt/config/small.py", SMALL_CONFIG), ("nano/train.py", GLOBALS_TRAIN),
                       ("nano/configurator.py", STRICT_CONFIGURATOR), ("speech/__init__.py", ""),
                       ("speech/__main__.py", "from .cli import cli\n\ncli()\n"), ("speech/cli.py", SPEECH_CLI),
                       ("cifar/main.py", CIFAR), ("vit/main.py", VIT_MAIN), ("cifar/models/__init__.py", "class ResNet18:\n    pass\n"),
                       ("unet/__init__.py", UNETS), ("tune/finetune.py", FIRE_TUNE),
                       ("pyproject.toml", '[project]\nname = "speech"\n\n[project.scripts]\nspeech = "speech.cli:cli"\n')):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    return repo


# a compiled extension that dies as it loads (here by SIGKILL, as the kernel's OOM killer would)
NATIVE_EXT = "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n"
FAST_TRAIN = "import fast_ext  # the native kernels, loaded before the flags\n" + ARGPARSE


def _native(root: Path) -> Path:
    """Two trainers with the same flags; one loads a native extension that kills the process
    before its parser runs, so a dry run of it ends without a verdict."""
    repo = make_check_repo(root)
    (repo / "fast_ext.py").write_text(NATIVE_EXT)
    (repo / "fast_train.py").write_text(FAST_TRAIN)
    return repo


HF_TRAIN = """
from dataclasses import dataclass, field

import transformers


@dataclass
class DataArguments:
    data_path: str = field(default="", metadata={"help": "Path to the training data."})


if __name__ == "__main__":
    parser = transformers.HfArgumentParser((DataArguments, transformers.TrainingArguments))
    data_args, training_args = parser.parse_args_into_dataclasses()
"""


HF_SUBCLASS = HF_TRAIN.replace("\n\nif __name__", """

@dataclass
class TrainingArguments(transformers.TrainingArguments):
    model_max_length: int = field(default=512)


if __name__""").replace("transformers.TrainingArguments))", "TrainingArguments))")


def _hf(root: Path) -> Path:
    """A trainer whose flags are the repository's own dataclass and transformers' TrainingArguments,
    used as it is (hf_train.py) and through the repository's subclass (hf_sub.py)."""
    repo = make_check_repo(root)
    (repo / "hf_train.py").write_text(HF_TRAIN)
    (repo / "hf_sub.py").write_text(HF_SUBCLASS)
    return repo


MAIN_PARSER = """import argparse


def get_args_parser():
    parser = argparse.ArgumentParser("main", add_help=False)
    parser.add_argument("--model", default="small")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--output_dir", default="")
    return parser


if __name__ == "__main__":
    argparse.ArgumentParser("main", parents=[get_args_parser()]).parse_args()
"""
SUBMIT = """import argparse

import main


def parse_args():
    parser = argparse.ArgumentParser("submit", parents=[main.get_args_parser()])
    parser.add_argument("--nodes", type=int, default=1)
    return parser.parse_args()


if __name__ == "__main__":
    parse_args()
"""
CLUSTER = "import submitit\n\n" + SUBMIT  # the same wrapper, sending the run to a cluster as a job


def _wrapper(root: Path) -> Path:
    """A job-submission wrapper whose flags are its own and, through a parent parser, main.py's;
    its twin that imports a cluster's job library."""
    repo = make_check_repo(root)
    (repo / "main.py").write_text(MAIN_PARSER)
    (repo / "submit.py").write_text(SUBMIT)
    (repo / "run_with_cluster.py").write_text(CLUSTER)
    return repo


REPOS: dict[str, Callable[[Path], Path]] = {"check": _check, "fill": fill_repo, "models": _models,
                                            "documented": _documented, "outside": _outside, "native": _native,
                                            "hf": _hf, "wrapper": _wrapper}


def build_golden_repos(root: Path) -> dict[str, Path]:
    """Every golden repository, each in its own folder under ``root``, by name."""
    return {name: make(root / name) for name, make in REPOS.items()}
