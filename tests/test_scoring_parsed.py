"""The ``parsed`` scoring policy: same entry point, same values as the reference, as the
repository's own parser reads them; text checks only when the reference's parse is not accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dryrun_helpers import ARGPARSE, needs_bwrap, needs_library, write
from ragcode.bench.parsed import ParsedScorer
from ragcode.bench.scoring import ScoreContext, load_scorer
from ragcode.config import Config
from ragcode.types import Task

pytestmark = needs_bwrap


def _scoring(tmp_path: Path, files: dict[str, str]) -> tuple[Any, ScoreContext]:
    """The ``parsed`` scorer and a context over repository 9999 made of ``files``, its dry-run
    cache under ``tmp_path``."""
    repos = tmp_path / "repos"
    write(repos / "9999", files)
    config = Config()
    config.index.cache_dir = str(tmp_path / "cache")
    return load_scorer("parsed"), ScoreContext(repos, config)


def _score(tmp_path: Path, output: str, reference: str = "python train.py --lr 0.001 --model-type vit_l") -> object:
    task = Task(id=1, github_id=9999, instruction="train vit_l with lr 0.001", type="Bash Script", output=reference,
                arguments={"lr": "0.001"})
    scorer, ctx = _scoring(tmp_path, {"train.py": ARGPARSE, "hand.py": "import sys\nprint(sys.argv)\n"})
    return scorer.score_sample(task, output, 0, ctx)


def test_parsed_is_a_named_policy() -> None:
    assert isinstance(load_scorer("parsed"), ParsedScorer)


def test_same_values_in_another_spelling_pass(tmp_path: Path) -> None:
    v = _score(tmp_path, "python train.py --model-type=vit_l --lr 1e-3")
    assert v.passed and v.checks == {"type": True, "entry": True, "values": True}


def test_a_wrong_value_or_a_refused_command_fails(tmp_path: Path) -> None:
    wrong = _score(tmp_path, "python train.py --lr 0.01 --model-type vit_l")
    assert not wrong.passed and wrong.checks["values"] is False and "lr=0.001" in wrong.detail
    refused = _score(tmp_path, "python train.py --lr 0.001 --model-type ViT-L")
    assert not refused.passed and refused.checks["entry"] is False


def test_another_script_fails_the_entry_check(tmp_path: Path) -> None:
    v = _score(tmp_path, "python hand.py --lr 0.001 --model-type vit_l")
    assert not v.passed and v.checks["entry"] is False


def test_unparsed_reference_falls_back_to_the_text_checks(tmp_path: Path) -> None:
    v = _score(tmp_path, "python hand.py --lr 0.001", reference="python hand.py --lr 0.001")
    assert v.passed and "text checks only" in v.detail and "arguments" in v.checks


def test_the_instructions_value_wins_over_a_reference_that_disagrees(tmp_path: Path) -> None:
    # the instruction says "lr 0.001"; this reference says 0.01
    v = _score(tmp_path, "python train.py --lr 0.001 --model-type vit_l",
               reference="python train.py --lr 0.01 --model-type vit_l")
    assert v.passed
    other = _score(tmp_path, "python train.py --lr 0.001 --model-type vit_l --epochs 3",
                   reference="python train.py --lr 0.001 --model-type vit_l --epochs 5")
    assert not other.passed  # the instruction names no epochs: the reference's 5 stands


def test_a_python_m_reference_is_read_as_a_shell_command_and_passes_its_own_policy(tmp_path: Path) -> None:
    """``python -m pkg ...`` names no ``.py``: read by ML-Bench's text rule it was run as Python
    code, its parse was never accepted, and right answers fell back to the text checks."""
    reference = "python -m pkg --lr 0.001 --model-type vit_l"
    task = Task(id=1, github_id=9999, instruction="run pkg on vit_l with lr 0.001", type="Bash Script",
                output=reference, arguments={"lr": "0.001"})
    scorer, ctx = _scoring(tmp_path, {"pkg/__init__.py": "", "pkg/__main__.py": ARGPARSE})
    right = scorer.score_sample(task, "python -m pkg --model-type=vit_l --lr 1e-3", 0, ctx)
    assert right.passed and "text checks only" not in right.detail
    wrong = scorer.score_sample(task, "python -m pkg --model-type vit_b --lr 1e-3", 0, ctx)
    assert not wrong.passed and wrong.checks["values"] is False


def test_a_path_written_from_another_folder_is_the_same_value(tmp_path: Path) -> None:
    """``cd demo`` then ``../configs/x.yaml`` names the reference's ``configs/x.yaml``; an unfenced
    multi-line answer is read whole (before, only its ``cd`` line was scored)."""
    reference = "python demo/train.py --lr 0.001 --opts cfg configs/x.yaml"
    task = Task(id=1, github_id=9999, instruction="train with lr 0.001 and the x config", type="Bash Script",
                output=reference, arguments={"lr": "0.001"})
    scorer, ctx = _scoring(tmp_path, {"demo/train.py": ARGPARSE, "configs/x.yaml": "a: 1\n"})
    moved = scorer.score_sample(task, "cd demo\npython train.py --lr 0.001 --opts cfg ../configs/x.yaml", 0, ctx)
    assert moved.passed, moved.detail
    other = scorer.score_sample(task, "cd demo\npython train.py --lr 0.001 --opts cfg ../x.yaml", 0, ctx)
    assert not other.passed and "opts" in other.detail  # x.yaml at the root is another file


CLICK_TRAIN = """import click

@click.command()
@click.option('--outdir', required=True)
@click.option('--aug', type=click.Choice(['noaug', 'ada']))
def main(outdir, aug):
    pass

main()
"""


@needs_library("click")
def test_a_click_option_the_reference_leaves_out_is_not_compared(tmp_path: Path) -> None:
    """An option without a default, left out by the reference, is not one the reference sets:
    an answer that writes it is judged on the reference's own values."""
    task = Task(id=1, github_id=9999, instruction="train into out", type="Bash Script",
                output="python train.py --outdir out")
    scorer, ctx = _scoring(tmp_path, {"train.py": CLICK_TRAIN})
    assert scorer.score_sample(task, "python train.py --outdir out --aug ada", 0, ctx).passed
    wrong = scorer.score_sample(task, "python train.py --outdir elsewhere --aug ada", 0, ctx)
    assert not wrong.passed and "outdir='out'" in wrong.detail


def test_a_callable_imported_by_name_is_the_same_callable(tmp_path: Path) -> None:
    reference = 'import speech\nmodel = speech.load_model("base", device="cpu")\n'
    task = Task(id=1, github_id=9999, instruction="load the base model on the cpu", type="Python Code",
                output=reference)
    scorer, ctx = _scoring(tmp_path, {"speech/__init__.py": "def load_model(name, device='cuda'):\n    return name\n"})
    same = 'from speech import load_model\nmodel = load_model("base", device="cpu")\n'
    assert scorer.score_sample(task, f"```python\n{same}```", 0, ctx).passed
    wrong = scorer.score_sample(task, f"```python\n{same.replace('cpu', 'cuda')}```", 0, ctx)
    assert not wrong.passed and "speech/__init__.py:load_model.device" in wrong.detail


def test_one_file_imported_under_two_module_names_is_one_callable(tmp_path: Path) -> None:
    task = Task(id=1, github_id=9999, instruction="load the base model", type="Python Code", path="src",
                output='import speech\nmodel = speech.load("base")\n')
    scorer, ctx = _scoring(tmp_path, {"src/speech.py": "def load(name, device='cuda'):\n    return name\n"})
    from_root = 'from src.speech import load\nmodel = load("base")\n'
    assert scorer.score_sample(task, f"```python\n{from_root}```", 0, ctx).passed
    wrong = scorer.score_sample(task, f"```python\n{from_root.replace('base', 'large')}```", 0, ctx)
    assert not wrong.passed and "src/speech.py:load.name" in wrong.detail


def test_a_callable_a_package_re_exports_is_the_one_where_it_is_defined(tmp_path: Path) -> None:
    task = Task(id=1, github_id=9999, instruction="a ViT of dimension 8", type="Python Code",
                output="from vit import ViT\nv = ViT(dim=8)\n")
    scorer, ctx = _scoring(tmp_path, {"vit/__init__.py": "from vit.model import ViT\n",
                                      "vit/model.py": "class ViT:\n    def __init__(self, dim, depth=1):\n        self.dim = dim\n",
                                      "vit/other.py": "class ViT:\n    def __init__(self, dim, depth=1):\n        self.dim = dim\n"})
    assert scorer.score_sample(task, "```python\nfrom vit.model import ViT\nv = ViT(dim=8)\n```", 0, ctx).passed
    wrong = scorer.score_sample(task, "```python\nfrom vit.model import ViT\nv = ViT(dim=4)\n```", 0, ctx)
    assert not wrong.passed and "vit/model.py:ViT.dim=8" in wrong.detail
    # a class of the same name defined elsewhere is another callable
    other = scorer.score_sample(task, "```python\nfrom vit.other import ViT\nv = ViT(dim=8)\n```", 0, ctx)
    assert not other.passed and not other.checks["entry"]


def test_a_python_answer_may_call_more_and_its_methods_values_are_compared(tmp_path: Path) -> None:
    reference = 'from tok import Tokenizer\nt = Tokenizer()\nt.train(open("a.txt").read(), 512)\n'
    task = Task(id=1, github_id=9999, instruction="train a tokenizer on a.txt to 512 tokens", type="Python Code",
                output=reference)
    scorer, ctx = _scoring(tmp_path, {"tok/__init__.py": """
        class Value:
            def __init__(self, data):
                self.data = data
        class Tokenizer:
            def train(self, text, vocab_size, verbose=False):
                pass
        """})
    more = 'from tok import Tokenizer, Value\nv = Value(1.0)\nm = Tokenizer()\nm.train(open("a.txt").read(), 512)\n'
    assert scorer.score_sample(task, f"```python\n{more}```", 0, ctx).passed  # Value on top is no harm
    wrong = scorer.score_sample(task, f"```python\n{more.replace('512', '256')}```", 0, ctx)
    assert not wrong.passed and "tok.Tokenizer.train.vocab_size=512" in wrong.detail
    never_trained = scorer.score_sample(task, "```python\nfrom tok import Tokenizer\nt = Tokenizer()\n```", 0, ctx)
    assert not never_trained.passed
    other = scorer.score_sample(task, "```python\nfrom tok import Value\nv = Value(512)\n```", 0, ctx)
    assert not other.passed and not other.checks["entry"]


def test_one_relative_path_in_two_spellings_is_one_value() -> None:
    from ragcode.bench.parsed import same_value

    assert same_value("my_instructions.json", "./my_instructions.json")
    assert same_value("out/ckpt", "out/ckpt/") and same_value(["./a/b.txt"], ["a/b.txt"])
    assert not same_value("data/a.json", "data/b.json")
    assert not same_value("a.json", "/a.json")  # an absolute path is another file
    assert not same_value("https://x.org/a", "https://x.org/a/")  # a URL is no path
