"""CLI flag tables (argparse, click, typer, absl) and README commands linked to them."""

from __future__ import annotations

from pathlib import Path

from fixture_repo import ABSL_PY, CLICK_PY, TRAIN_PY, TYPER_PY, make_fixture_repo
from ragcode.chunking import chunk_repo, extract_flags, link_cli
from ragcode.chunking.scripts import Flag
from ragcode.chunking.scripts.table import chunk_cli
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile, sha256_text


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _table(flags):  # type: ignore[no-untyped-def]
    keys = ("name", "aliases", "type", "default", "default_literal", "choices", "required",
            "help", "positional")
    return [tuple(getattr(f, k) for k in keys) for f in flags]


def test_argparse_flags_from_literals() -> None:
    flags = extract_flags(TRAIN_PY)
    assert _table(flags) == [
        ("--lr", ["--learning-rate"], "float", 0.001, True, None, False, "learning rate", False),
        ("--dataset", [], "str", "cora", True, ["cora", "citeseer"], False, "dataset name", False),
        ("--epochs", [], "int", "DEFAULT_EPOCHS", False, None, False, "epochs", False),
        ("--cuda", [], "bool", False, True, None, False, "use the GPU", False),
        ("data_dir", [], "str", None, True, None, False, "where the data is", True),
    ]
    assert [f.line for f in flags] == [8, 10, 12, 13, 14]


def test_cli_chunk_text_and_metadata() -> None:
    [chunk] = chunk_cli(_file("train.py", TRAIN_PY), ChunkingConfig())
    assert (chunk.kind, chunk.start_line, chunk.end_line, chunk.symbol) == ("cli", 8, 14, "cli")
    assert chunk.text == "\n".join([
        "Command-line flags of train.py (argparse)",
        "Run from the repository root: python train.py [flags]",
        "Flags:",
        "  --lr, --learning-rate  type: float  default: 0.001  help: learning rate",
        "  --dataset  type: str  default: 'cora'  choices: cora, citeseer  help: dataset name",
        "  --epochs  type: int  default: DEFAULT_EPOCHS  help: epochs",
        "  --cuda  type: bool  default: False  help: use the GPU",
        "  data_dir (positional)  type: str  help: where the data is",
    ])
    assert chunk.metadata["script"] == "train.py"
    assert chunk.header == "# train.py :: command-line flags"


def test_click_typer_absl() -> None:
    assert _table(extract_flags(CLICK_PY)) == [
        ("--size", ["-s"], "int", 3, True, None, False, "Size.", False),
        ("--mode", [], "choice", "fast", True, ["fast", "slow"], False, "", False),
        ("--verbose", [], "bool", False, True, None, False, "Talk more.", False),
        ("name", [], "str", None, True, None, False, "", True),
    ]
    assert _table(extract_flags(TYPER_PY)) == [
        ("--epochs", [], "int", 5, True, None, False, "Epochs.", False),
        ("out", [], "str", None, True, None, True, "Output dir.", True),
    ]
    assert _table(extract_flags(ABSL_PY)) == [
        ("--model", [], "str", "resnet", True, None, False, "Model name.", False),
        ("--steps", [], "int", 100, True, None, False, "Training steps.", False),
        ("--opt", [], "enum", "adam", True, ["adam", "sgd"], False, "Optimizer.", False),
    ]


def test_argparse_groups_and_subcommands() -> None:
    src = (
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        "g = p.add_argument_group('model')\n"
        "g.add_argument('--depth', type=int, default=-1, required=True)\n"
        "sub = p.add_subparsers()\n"
        "tr = sub.add_parser('train')\n"
        "tr.add_argument('--steps', default=10, nargs='?', help='steps ' 'to run')\n"
    )
    flags = extract_flags(src)
    assert [(f.name, f.default, f.required, f.subcommand) for f in flags] == [
        ("--depth", -1, True, None), ("--steps", 10, False, "train")]
    assert flags[1].help == "steps to run" and flags[1].nargs == "?"
    text = chunk_cli(_file("x/tool.py", src), ChunkingConfig())[0].text
    assert "Subcommands: train" in text and "Run from x/: python tool.py [flags]" in text


def test_script_without_a_parser_has_no_cli_chunk() -> None:
    assert chunk_cli(_file("m.py", "def add_argument():\n    pass\n"), ChunkingConfig()) == []
    assert extract_flags("x = 1\n") == []


def test_link_cli_reads_commands_with_the_shell_grammar() -> None:
    """Placeholders stay words, redirections and comments go, quoted separators do not split."""
    text = ("```\nnohup python train.py --data <path to data> --tag 'a;b' --k 2 > log.txt 2>&1 &"
            "  # background\n. scripts/env.sh\n```")
    chunks = [Chunk(path="README.md", kind="markdown", text=text, start_line=1, end_line=4),
              Chunk(path="train.py", kind="cli", text="flags", start_line=1, end_line=1,
                    metadata={"script": "train.py"})]
    cmds = link_cli(chunks)[0].metadata["commands"]
    assert [(c["command"], c["script"], c["flags"], c["line"]) for c in cmds] == [
        ("nohup python train.py --data <path to data> --tag a;b --k 2", "train.py",
         ["--data", "--tag", "--k"], 2),
        (". scripts/env.sh", None, [], 3)]


def test_link_cli_links_docs_and_scripts_both_ways(tmp_path: Path) -> None:
    repo = make_fixture_repo(tmp_path / "repo")
    cfg = ChunkingConfig.model_validate({"walk": {"max_file_bytes": 10_000}})
    chunks = chunk_repo(repo, cfg).all_chunks()
    [cli] = [c for c in chunks if c.kind == "cli" and c.path == "train.py"]
    callers = {c.id: c for c in chunks if cli.id in c.metadata.get("cli_links", [])}
    assert sorted(c.path for c in callers.values()) == [
        "README.md", "demo.ipynb", "docs/guide.rst", "run.sh"]
    assert sorted(cli.metadata["cli_links"]) == sorted(callers)
    readme = next(c for c in callers.values() if c.path == "README.md")
    assert readme.metadata["commands"] == [{
        "command": "python train.py --lr 0.1", "target": "train.py", "script": "train.py",
        "flags": ["--lr"], "line": 20, "flags_from": ["train.py"]}]
    # run.sh: `cd scripts` then `python ../train.py ... \` continued on the next line
    sh = next(c for c in callers.values() if c.path == "run.sh")
    assert sh.metadata["commands"][0]["script"] == "train.py"
    assert sh.metadata["commands"][0]["flags"] == ["--epochs", "--dataset"]


def test_link_cli_resolution_order_and_no_mutation() -> None:
    def doc(path: str, text: str) -> Chunk:
        return Chunk(path=path, kind="markdown", text=text, start_line=1, end_line=1)

    def cli(path: str) -> Chunk:
        return Chunk(path=path, kind="cli", text=f"flags of {path}", start_line=1, end_line=1,
                     metadata={"script": path})

    chunks = [
        doc("examples/gcn/README.md", "```\npython train.py\n```"),  # the doc's own folder
        doc("README.md", "$ cd examples/gat && python3 train.py --x 1"),  # after cd
        doc("docs/HOWTO.md", "python unique_tool.py"),  # unique basename anywhere
        doc("NOTES.md", "python train.py"),  # ambiguous: two train.py, none at the root
        doc("examples/README.md", "Then run it (ex. python3 gcn/train.py --x 1) and wait."),
        doc("examples/ngcf/README.md", "    python main.py --gpu 0"),  # the one in a subfolder
        cli("examples/gcn/train.py"), cli("examples/gat/train.py"), cli("tools/unique_tool.py"),
        cli("examples/ngcf/ngcf/main.py"), cli("other/main.py"),
    ]
    out = link_cli(chunks)
    scripts = [[c["script"] for c in o.metadata.get("commands", [])] for o in out[:6]]
    assert scripts == [["examples/gcn/train.py"], ["examples/gat/train.py"],
                       ["tools/unique_tool.py"], [None], ["examples/gcn/train.py"],
                       ["examples/ngcf/ngcf/main.py"]]
    assert out[3].metadata["cli_links"] == []
    assert out[6].metadata["cli_links"] == [out[0].id, out[4].id]
    assert all("cli_links" not in c.metadata for c in chunks)  # inputs untouched
    assert [c.id for c in out] == [c.id for c in chunks]  # ids do not depend on metadata


def test_script_without_parser_gets_the_flags_of_modules_it_imports() -> None:
    def code(path: str, text: str) -> Chunk:
        return Chunk(path=path, kind="code", text=text, start_line=1, end_line=1,
                     language="python")

    chunks = [
        Chunk(path="README.md", kind="markdown", text="python train.py --name x",
              start_line=1, end_line=1),
        code("train.py", "from options.train_options import TrainOptions\nimport util.util as u"),
        code("options/__init__.py", ""),
        code("options/train_options.py", "from .base_options import BaseOptions"),
        code("options/base_options.py", "import argparse"),
        code("util/util.py", "x = 1"),
        Chunk(path="options/base_options.py", kind="cli", text="flags", start_line=1,
              end_line=1, metadata={"script": "options/base_options.py"}),
    ]
    out = link_cli(chunks)
    [cmd] = out[0].metadata["commands"]
    assert cmd["script"] == "train.py"
    assert cmd["flags_from"] == ["options/base_options.py"]
    assert out[0].metadata["cli_links"] == [out[6].id]
    assert out[6].metadata["cli_links"] == [out[0].id]


def test_flag_values_argparse_aliases_dest_and_option_strings() -> None:
    src = (
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('-b', '--batch_size', type=int, default=32, help='batch')\n"
        "p.add_argument('--opt', choices=('adam', 'sgd'), required=True)\n"
        "p.add_argument('--no-cuda', action='store_true', dest='no_gpu')\n"
        "p.add_argument('--layers', nargs='+', type=int, default=[2, 3])\n"
        "p.add_argument('files', nargs='*')\n"
    )
    flags = extract_flags(src)
    assert [(f.names, f.dest, f.type, f.default, f.choices, f.required) for f in flags] == [
        (["--batch_size", "-b"], "batch_size", "int", 32, None, False),
        (["--opt"], "opt", "str", None, ["adam", "sgd"], True),
        (["--no-cuda"], "no_gpu", "bool", False, None, False),
        (["--layers"], "layers", "int", [2, 3], None, False),
        (["files"], "files", "str", None, None, False),
    ]
    assert flags[2].action == "store_true" and flags[3].nargs == "+" and flags[4].positional
    assert flags[0].option_strings() == ["--batch_size", "-b"]
    assert flags[4].option_strings() == []
    assert [Flag.from_dict(f.to_dict()) for f in flags] == flags  # the cli chunk's metadata
    assert flags[0].to_dict()["dest"] == "batch_size" and "nargs" not in flags[0].to_dict()


def test_flag_values_click_and_absl() -> None:
    click_src = (
        "import click\n"
        "@click.command()\n"
        "@click.option('-n', '--num-epochs', 'epochs', type=int, default=3, required=True)\n"
        "@click.option('--shout/--no-shout', default=False)\n"
        "@click.option('--mode', type=click.Choice(['a', 'b']))\n"
        "def main(epochs, shout, mode):\n    pass\n"
    )
    flags = extract_flags(click_src)
    assert [(f.names, f.dest, f.type, f.default, f.choices, f.required) for f in flags] == [
        (["--num-epochs", "-n"], "epochs", "int", 3, None, True),
        (["--shout/--no-shout"], "shout", "str", False, None, False),
        (["--mode"], "mode", "choice", None, ["a", "b"], False),
    ]
    assert flags[1].option_strings() == ["--shout", "--no-shout"]
    absl_src = (
        "from absl import flags\n"
        "flags.DEFINE_boolean('use_tpu', False, 'Use a TPU.')\n"
        "flags.DEFINE_enum('opt', 'adam', ['adam', 'sgd'], 'Optimizer.')\n"
        "flags.DEFINE_integer('steps', None, 'Steps.', lower_bound=0)\n"
        "flags.DEFINE_multi_string('gin', [], 'Gin files.')\n"
    )
    flags = extract_flags(absl_src)
    assert [(f.name, f.dest, f.type, f.default, f.choices, f.help) for f in flags] == [
        ("--use_tpu", "use_tpu", "bool", False, None, "Use a TPU."),
        ("--opt", "opt", "enum", "adam", ["adam", "sgd"], "Optimizer."),
        ("--steps", "steps", "int", None, None, "Steps."),
        ("--gin", "gin", "list[str]", [], None, "Gin files."),
    ]
    assert flags[0].option_strings() == ["--use_tpu", "--nouse_tpu"]


def test_flags_that_collect_or_count_each_use_say_so() -> None:
    click_src = ("import click\n@click.command()\n@click.option('--tag', multiple=True)\n"
                 "@click.option('-v', '--verbose', count=True)\n@click.option('--out')\n"
                 "def main(tag, verbose, out):\n    pass\n")
    assert [f.action for f in extract_flags(click_src)] == ["append", "count", None]
    typer_src = ("import typer\nfrom typing import List\n"
                 "def main(tag: List[str] = typer.Option([]), out: str = typer.Option('x')):\n    pass\n")
    assert [(f.name, f.action) for f in extract_flags(typer_src)] == [("--tag", "append"), ("--out", None)]
    absl_src = ("from absl import flags\nflags.DEFINE_multi_string('gin', [], 'Gin files.')\n"
                "flags.DEFINE_string('out', None, 'Out.')\n")
    assert [f.action for f in extract_flags(absl_src)] == ["append", None]
