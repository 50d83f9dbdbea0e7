"""CLI tables beyond argparse: HfArgumentParser dataclasses, shell scripts' $1 / getopts /
case "$1" options, and shell scripts that call Python scripts linked like README commands."""

from __future__ import annotations

from ragcode.check.args import match_args
from ragcode.chunking import chunk_file, chunk_repo, extract_flags
from ragcode.chunking.scripts.shell_args import extract_shell_flags
from ragcode.config import ChunkingConfig
from ragcode.types import SourceFile, sha256_text

HF_SCRIPT = '''\
from dataclasses import dataclass, field
from typing import Optional, Literal
from transformers import HfArgumentParser, TrainingArguments


@dataclass
class ModelArguments:
    """Which model to fine-tune."""
    model_name_or_path: str = field(metadata={"help": "Path to a pretrained model"})
    cache_dir: Optional[str] = field(default=None, metadata={"help": "Where to cache"})
    use_fast_tokenizer: bool = field(default=True, metadata={"help": "Use a fast tokenizer"})


@dataclass
class DataArguments:
    max_seq_length: int = 128
    task: Literal["cls", "ner"] = "cls"
    frozen: int = field(default=0, init=False)


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
'''

SH_POSITIONAL = '''\
#!/bin/bash
set -u
DATA=${1:?give the data folder}
GPU=$2
EPOCHS=${3:-10}
run() {
  echo "$1"  # the function's own argument, not the script's
}
python train.py --data "$DATA" --epochs "$EPOCHS" "${@:4}"
'''

SH_GETOPTS = '''\
while getopts "l:e:v" opt; do
  case $opt in
    l) LR=$OPTARG ;;
    e) EPOCHS=$OPTARG ;;
    v) VERBOSE=1 ;;
  esac
done
'''

SH_LONG = '''\
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lr|-l) LR="$2"; shift 2 ;;
    --out=*) OUT="${1#*=}"; shift ;;
    --fp16) FP16=1; shift ;;
    *) echo "unknown $1"; exit 1 ;;
  esac
done
'''

TRAIN_PY = '''\
import argparse
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--epochs", type=int, default=1)
args = p.parse_args()
'''


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _by_name(flags):  # type: ignore[no-untyped-def]
    return {f.name: f for f in flags}


def test_hf_argument_parser_dataclass_fields_become_flags() -> None:
    flags = extract_flags(HF_SCRIPT)
    local = [f for f in flags if f.group in ("ModelArguments", "DataArguments")]
    assert [f.name for f in local] == [
        "--model_name_or_path", "--cache_dir", "--use_fast_tokenizer", "--no_use_fast_tokenizer",
        "--max_seq_length", "--task"]  # init=False fields are not options
    by = _by_name(flags)
    m = by["--model_name_or_path"]
    assert (m.parser, m.type, m.required, m.help, m.line, m.dest) == (
        "hf", "str", True, "Path to a pretrained model", 9, "model_name_or_path")
    assert m.aliases == ["--model-name-or-path"]
    assert (by["--cache_dir"].type, by["--cache_dir"].required) == ("str", False)
    assert (by["--use_fast_tokenizer"].nargs, by["--use_fast_tokenizer"].default) == ("?", True)
    assert by["--no_use_fast_tokenizer"].action == "store_false"
    assert (by["--max_seq_length"].type, by["--max_seq_length"].default) == ("int", 128)
    assert by["--task"].choices == ["cls", "ner"]
    # transformers' TrainingArguments (not in the repository) from the shipped table
    ta = by["--learning_rate"]
    assert (ta.group, ta.type, ta.line) == ("TrainingArguments (transformers)", "float", 22)
    assert "--evaluation_strategy" in by and "--eval_strategy" in by  # old and new spellings


def test_hf_flags_feed_the_checks_and_the_cli_table() -> None:
    flags = extract_flags(HF_SCRIPT)
    ok = "--model_name_or_path bert --do_train --output_dir out --learning_rate=1e-5 " \
         "--task ner --no_use_fast_tokenizer --num_train_epochs 3"
    assert match_args(ok.split(), flags, "run.py") == []
    bad = match_args("--model_name_or_path bert --task pos --max_seq_length x".split(),
                     flags, "run.py")
    assert [f.code for f in bad] == ["bad-choice", "bad-type"]
    missing = match_args(["--task", "ner"], flags, "run.py")
    assert [f.code for f in missing] == ["missing-required"]
    (cli,) = [c for c in chunk_file(_file("run.py", HF_SCRIPT), ChunkingConfig()) if c.kind == "cli"]
    assert "  ModelArguments:\n    --model_name_or_path, --model-name-or-path  type: str" in cli.text
    assert "  TrainingArguments (transformers), " in cli.text and "--output_dir" in cli.text
    assert cli.metadata["parsers"] == ["hf"]


def test_a_repository_subclass_named_like_transformers_class_keeps_its_fields() -> None:
    """``class TrainingArguments(transformers.TrainingArguments)`` (Stanford Alpaca, FastChat):
    the subclass's own fields and every field of transformers' class it shadows."""
    text = HF_SCRIPT.replace("from transformers import HfArgumentParser, TrainingArguments",
                             "import transformers\nfrom transformers import HfArgumentParser").replace(
        "\n\ndef main", "\n\n@dataclass\nclass TrainingArguments(transformers.TrainingArguments):\n"
        "    model_max_length: int = field(default=512)\n\n\ndef main")
    by = _by_name(extract_flags(text))
    assert by["--model_max_length"].group == "TrainingArguments" and by["--model_max_length"].type == "int"
    assert by["--output_dir"].group == "TrainingArguments (transformers)" and "--learning_rate" in by


def test_hf_parser_with_an_unresolvable_dataclass_gives_no_partial_table() -> None:
    text = HF_SCRIPT.replace("(ModelArguments, DataArguments, TrainingArguments)",
                             "(ModelArguments, ImportedArguments)")
    assert extract_flags(text) == []


def test_shell_positionals_outside_functions() -> None:
    flags = extract_shell_flags(SH_POSITIONAL)
    shape = [(f.name, f.aliases, f.nargs, f.required, f.default) for f in flags]
    assert shape == [
        ("DATA", ["$1"], None, True, None),
        ("GPU", ["$2"], None, True, None),  # plain $2 under `set -u`: required
        ("EPOCHS", ["$3"], "?", False, "10"),
        ("$@", [], "*", False, None),  # "${@:4}" forwards the rest
    ]
    assert flags[0].help == "give the data folder" and flags[0].line == 3
    assert all(f.positional and f.parser == "shell" for f in flags)
    assert [f.code for f in match_args(["data"], flags, "run.sh")] == ["positional-count"]
    assert match_args(["data", "0", "5", "more", "words"], flags, "run.sh") == []


def test_getopts_and_case_options() -> None:
    flags = extract_shell_flags(SH_GETOPTS)
    assert [(f.name, f.type, f.action, f.dest, f.parser) for f in flags] == [
        ("-l", "str", None, "LR", "getopts"), ("-e", "str", None, "EPOCHS", "getopts"),
        ("-v", "bool", "store_true", "VERBOSE", "getopts")]
    assert match_args(["-l", "0.1", "-v"], flags, "t.sh") == []
    assert [f.code for f in match_args(["-x"], flags, "t.sh")] == ["unknown-flag"]
    long = extract_shell_flags(SH_LONG)
    assert [(f.name, f.aliases, f.type, f.dest) for f in long] == [
        ("--lr", ["-l"], "str", "LR"), ("--out", [], "str", "OUT"), ("--fp16", [], "bool", "FP16")]
    assert match_args(["--lr", "1", "--out=x", "--fp16"], long, "t.sh") == []


def test_shell_script_gets_a_cli_table_and_links_to_the_python_script_it_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "train.py").write_text(TRAIN_PY)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.sh").write_text(SH_POSITIONAL)
    repo = chunk_repo(tmp_path, ChunkingConfig())
    by_kind = {(c.path, c.kind): c for c in repo.all_chunks()}
    sh_cli = by_kind[("scripts/run.sh", "cli")]
    assert sh_cli.language == "bash" and sh_cli.text.splitlines()[:2] == [
        "Command-line arguments of scripts/run.sh (shell)",
        "Run from the repository root: bash scripts/run.sh [arguments]"]
    assert "  DATA, $1 (positional)  type: str  required  help: give the data folder" in sh_cli.text
    py_cli = by_kind[("train.py", "cli")]
    shell = by_kind[("scripts/run.sh", "shell")]
    (cmd,) = shell.metadata["commands"]
    assert (cmd["script"], cmd["flags"], cmd["flags_from"]) == (
        "train.py", ["--data", "--epochs"], ["train.py"])
    assert shell.metadata["cli_links"] == [py_cli.id]
    assert py_cli.metadata["cli_links"] == [shell.id]
