"""The ``ragcode`` command line: a thin skin over ``ragcode.api``.

Each command group lives in its own module and registers itself on ``app``; every command turns
``RagcodeError`` into a one-line message and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from ragcode.cli import common

app = typer.Typer(
    name="ragcode",
    help="Retrieval-augmented code generation over real repositories.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
mlbench_app = typer.Typer(help="ML-Bench: retrieve, run, score.", no_args_is_help=True)
app.add_typer(mlbench_app, name="mlbench")


def _register() -> None:
    from ragcode.cli import ablate_cmd, agent_cmd, check_cmd, generate_cmd, index_cmd, mlbench_cmd, search_cmd

    for module in (index_cmd, search_cmd, generate_cmd, check_cmd, ablate_cmd):
        module.register(app)
    mlbench_cmd.register(mlbench_app)
    agent_cmd.register(app, mlbench_app)


_register()


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except common.RagcodeError as exc:  # raised outside a command body
        common.fail(exc)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
