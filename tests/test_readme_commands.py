"""README.md and the command line never drift: every ``ragcode ...`` line in a README code block
names a command that exists (its ``--help`` exits 0) and only options that command has."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from ragcode.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def readme_commands() -> list[list[str]]:
    """The argument lists of every ``ragcode`` invocation in README's code blocks."""
    found = []
    for block in FENCE.findall(README.read_text(encoding="utf-8")):
        text = block.replace("\\\n", " ")  # continuation lines
        for line in text.splitlines():
            for part in re.split(r";|&&|\|\|", line):
                words = shlex.split(part, comments=True)
                if words and words[0] == "ragcode":
                    found.append(words[1:])
    return found


def split_command(args: list[str]) -> tuple[list[str], list[str]]:
    """(command path, the option names used) of one invocation, e.g. (["mlbench", "run"], ["--tasks"])."""
    group = typer.main.get_command(app)  # typer's own click: groups are known by .commands
    path: list[str] = []
    options = []
    for word in args:
        word = word.strip("[]")
        if word.startswith("-"):
            options.append(word.split("=", 1)[0])
        elif word in getattr(group, "commands", {}):
            path.append(word)
            group = group.commands[word]
    return path, options


def command_for(path: list[str]):  # noqa: ANN201 - a (vendored) click command
    cmd = typer.main.get_command(app)
    for name in path:
        cmd = cmd.commands[name]
    return cmd


COMMANDS = readme_commands()


def test_readme_shows_the_main_commands():
    paths = {tuple(split_command(args)[0]) for args in COMMANDS}
    assert {("index",), ("search",), ("generate",), ("ablate",), ("mlbench", "prepare"), ("mlbench", "retrieve"),
            ("mlbench", "run"), ("mlbench", "score"), ("mlbench", "report")} <= paths


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a)[:60] for a in COMMANDS])
def test_readme_command_exists_and_takes_its_options(args):
    path, options = split_command(args)
    assert path or set(options) <= {"--version", "-v", "--verbose", "--help"}, f"no such command: {args}"
    res = CliRunner().invoke(app, [*path, "--help"])
    assert res.exit_code == 0, res.output
    known = {opt for p in command_for(path).params for opt in (*p.opts, *p.secondary_opts)} | {"--help"}
    if path:  # options before the command belong to the root (--version, -v)
        known |= {opt for p in typer.main.get_command(app).params for opt in p.opts}
    assert set(options) <= known, f"README uses {sorted(set(options) - known)} that `ragcode {' '.join(path)}` lacks"


def test_a_readme_command_that_reads_the_hub_says_what_it_needs():
    """``--tasks dev`` is read from the Hugging Face hub: the prose right after the block says it
    needs the ``hf`` extra and a network, and how to do without."""
    text = README.read_text(encoding="utf-8")
    blocks = [m for m in FENCE.finditer(text) if "--tasks dev" in m.group(1)]
    assert blocks
    for m in blocks:
        after = text[m.end():].split("\n#", 1)[0].split("```", 1)[0]
        assert '".[hf]"' in after or "ragcode[hf]" in after, after[:300]
        assert "network" in after and "--split dev" in after, after[:300]
