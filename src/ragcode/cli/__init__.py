"""The ``ragcode`` command line: a thin skin over the stage functions.

The commands call the stages directly (``ragcode.index.build.index_repo``,
``ragcode.retrieval.search``, ``ragcode.answering.generate``, ``ragcode.bench``, ``ragcode.ablation``),
the same functions ``ragcode.api`` delegates to; no logic lives here. Each command group lives in
its own module and registers itself on ``app``; every command turns ``RagcodeError`` into a
one-line message and exit code 2. A flag is only a spelling of a config override
(``common.with_flags``). ``ragcode --version``; ``ragcode -v CMD`` / ``-vv`` log at info / debug.
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
    rich_markup_mode=None,  # help is plain text: "[bash,python]" or "ragcode[hf]" is not markup
)
mlbench_app = typer.Typer(help="ML-Bench: retrieve, run, score.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(mlbench_app, name="mlbench")


def _print_version(value: bool) -> None:
    if value:
        from ragcode.version import __version__

        typer.echo(f"ragcode {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
    verbose: int = typer.Option(0, "--verbose", "-v", count=True,
                                help="More log output, before the command: -v info, -vv debug."),
) -> None:
    """Retrieval-augmented code generation over real repositories."""
    common.set_verbosity(verbose)
    common.quiet_library_bars()


def _register() -> None:
    from ragcode.cli import (ablate_cmd, agent_cmd, cache_cmd, check_cmd, generate_cmd, index_cmd, mlbench_cmd,
                             search_cmd, serve_cmd)

    for module in (index_cmd, search_cmd, generate_cmd, check_cmd, ablate_cmd, cache_cmd, serve_cmd):
        module.register(app)
    mlbench_cmd.register(mlbench_app)
    agent_cmd.register(app, mlbench_app)


_register()


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except common.RagcodeError as exc:  # raised outside a command body
        common.fail(exc)
    except SystemExit as exc:
        if exc.code == common.INTERRUPTED:  # Ctrl-C: no interpreter teardown under running native threads
            common.exit_now(common.INTERRUPTED)
        raise


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
