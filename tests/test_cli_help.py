"""Help text a user reads: it survives rich (no bracketed text eaten as markup), names every
backend, gives each short flag one meaning, and holds no maintainer notes."""

from __future__ import annotations

import re

import pytest
import typer.main
from typer.testing import CliRunner

from ragcode.cli import app
from ragcode.generation.llm import LLMS, backend_names

runner = CliRunner()


def _commands(group=None, path=()):  # noqa: ANN001, ANN202
    """(path, click command) for every leaf command of ``ragcode``."""
    group = group or typer.main.get_command(app)
    for name, cmd in getattr(group, "commands", {}).items():
        if getattr(cmd, "commands", None):
            yield from _commands(cmd, path + (name,))
        else:
            yield path + (name,), cmd


COMMANDS = sorted(_commands(), key=lambda pc: pc[0])


def _help(path) -> str:  # noqa: ANN001
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    return " ".join(res.stdout.split())


def test_every_command_is_found():
    names = {" ".join(p) for p, _ in COMMANDS}
    assert {"index", "generate", "cache", "mlbench run", "mlbench score"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_bracketed_help_text_survives_rich(path):
    cmd = dict(COMMANDS)[path]
    shown = _help(path)
    for param in cmd.params:
        for bracketed in re.findall(r"\[[^\]]*\]", getattr(param, "help", None) or ""):
            assert bracketed in shown, f"{' '.join(path)} {param.name}: {bracketed} was eaten"


def test_generate_check_help_names_the_default_checks():
    assert "generation.check=[bash,python,coverage]" in _help(("generate",))


@pytest.mark.parametrize("path", [("generate",), ("agent",), ("mlbench", "run")], ids=" ".join)
def test_llm_help_lists_every_registered_backend(path):
    shown = _help(path)
    assert set(backend_names()) == {"auto", *LLMS.names()} and "vllm" in LLMS.names()
    for name in backend_names():
        assert re.search(rf"\b{name}\b", shown), f"--llm help of {' '.join(path)} omits {name}"


def test_each_short_flag_has_one_meaning_across_commands():
    meanings: dict[str, set[str]] = {}
    for _path, cmd in COMMANDS:
        for param in cmd.params:
            for opt in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if re.fullmatch(r"-[A-Za-z]", opt):
                    meanings.setdefault(opt, set()).add(param.name)
    clashes = {flag: names for flag, names in meanings.items() if len(names) > 1}
    assert not clashes, f"short flags with several meanings: {clashes}"
    assert meanings["-n"] == {"n"}  # samples, in generate and mlbench run


def test_index_keeps_its_long_name_flag():
    shown = _help(("index",))
    assert "--name" in shown and not re.search(r"-n\b", shown.replace("--name", ""))


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_help_holds_no_maintainer_notes(path):
    shown = _help(path)
    for note in ("exits 2", "exit code", "``", "ragcode.", "skin over"):
        assert note not in shown, f"{' '.join(path)} --help: {note!r}"
