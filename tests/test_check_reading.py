"""The instruction and the answer, each read once (``ragcode.check.instruction``,
``ragcode.check.answer``), the one number grammar and stopword list (``ragcode.check.words``),
and the one way to build a ``CheckContext`` from settings."""

from __future__ import annotations

import json
import sys

from check_helpers import make_check_repo
from typer.testing import CliRunner

from ragcode.check import CheckContext
from ragcode.check.answer import read_answer
from ragcode.check.instruction import read_instruction
from ragcode.check.words import is_float, looks_negative, number_kind, stopwords, without_thousands
from ragcode.config import load_config


def test_an_instructions_values_come_with_their_kind_and_worth():
    task = read_instruction("Train the ViT-B-32 model of Autoformer on 'cifar10' for 300,000 steps at a rate of 0.5.")
    assert [(v.spelling, v.kind) for v in task.values] == [
        ("cifar10", "quoted"), ("ViT-B-32", "word"), ("300000", "int"), ("0.5", "float")]
    assert [v.number for v in task.values] == [None, None, 300000.0, 0.5]
    assert read_instruction("Use '100' epochs").values[0].number == 100.0  # a quoted number is still worth 100
    assert task.names == ("Autoformer",) and "model" not in task.content_words and "steps" in task.content_words
    assert {"train", "vit", "b", "32"} <= task.words
    assert read_instruction(task.text) is task  # read once per task


def test_names_the_user_describes_or_does_not_want_are_no_values():
    def values(text: str) -> list[tuple[str, str]]:
        return [(v.spelling, v.kind) for v in read_instruction(text).values]

    assert values("Train MoCo v2 on one 8-GPU machine with lr 0.03") == [("MoCo", "word"), ("8-GPU", "measure"),
                                                                         ("0.03", "float")]
    assert values("a GPT-like decoder with the GPT-2 pattern instead of the GPT-4 one") == [("GPT-2", "word")]
    assert values("use 'sgd' rather than 'adam'") == [("sgd", "quoted")]
    # a version said alone, or after a flag, is still a value
    assert values("set the tokenizer version to v2 with --version v3") == [("v2", "word"), ("v3", "word")]


def test_the_kind_of_answer_is_read_only_where_the_user_says_it():
    said = {"In Python, build a ViT with 10 classes.": "python",
            "Write a Python snippet that loads the model.": "python",
            "Give me the bash command to train on cifar10.": "bash",
            "Run it from the command line with batch size 8.": "bash",
            "Train on cifar10 with python train.py and batch size 8.": "",  # a command
            "Write a Python script to train on cifar10.": "",  # maybe a file to run
            "In Python or from the command line, train it.": "",  # both
            "Train a ViT on cifar10.": ""}
    assert {text: read_instruction(text).kind for text in said} == said


def test_an_answer_is_read_once_into_commands_calls_flags_or_imports_and_strings():
    bash = read_answer("cd x && CUDA=0 python train.py --lr 0.1 \\\n  -b 4\nbash run.sh a", "bash")
    assert [c.rest[0] for c in bash.commands] == ["cd", "python", "bash"]
    assert [c.target for c in bash.calls] == ["train.py", "run.sh"] and bash.flags == ["--lr", "-b"]
    assert (bash.commands[1].first_line, bash.commands[1].end_line, bash.commands[1].last) == (0, 1, True)
    py = read_answer("import os.path as p\nfrom pkg.models import GCN\nm = GCN('x')\n", "python")
    assert [(i.module, i.names, i.alias) for i in py.imports] == [("os.path", (), "p"), ("pkg.models", ("GCN",), "")]
    assert py.value_places == ["x"]
    broken = read_answer("def f(:\n", "python")
    assert broken.tree is None and broken.syntax_error is not None and broken.value_places == []
    assert read_answer(bash.code, "bash") is bash


def test_one_number_grammar_and_one_stopword_list():
    assert [number_kind(w) for w in ("12", "-3", "0.5", "1e-4", "5.", "five")] == ["int", "int", "float", "float",
                                                                                   "float", ""]
    assert is_float("inf") and not is_float("infinite")
    assert looks_negative("-5.0") and looks_negative("-.5") and not looks_negative("--lr")
    assert without_thousands("300,000 and 256,320") == "300000 and 256,320"
    assert {"the", "with", "use"} <= stopwords() and "model" not in stopwords()


def test_the_repositorys_own_interpreter_is_used_wherever_a_context_is_built(tmp_path):
    repo = make_check_repo(tmp_path)  # a folder named "repo"
    config = load_config(overrides=[f"execution.envs.repo={sys.executable}"])
    assert CheckContext.for_repo(repo, "x", "task", config).interpreter == sys.executable
    assert CheckContext.for_repo(repo, "x", "task", load_config()).interpreter == ""
    assert CheckContext.for_repo(repo, config=config, repo_name="other").extra == {"repo_name": "other"}
    # ragcode check too: with the repository's interpreter a missing module is the answer's error
    args = ["check", "import nonexistent_mod_xyz\n", "--repo", str(repo), "--json"]
    plain = json.loads(CliRunner().invoke(_app(), args).stdout)["findings"]
    own = json.loads(CliRunner().invoke(_app(), [*args, "--set", f"execution.envs.repo={sys.executable}"]).stdout)
    def severity(findings: list[dict]) -> list[str]:
        return [f["severity"] for f in findings if f["code"] == "unresolved-import"]

    assert severity(plain) == [] and severity(own["findings"]) == ["error"]


def _app():
    from ragcode.cli import app

    return app
