"""Helpers shared by the CLI commands: error reporting, config loading, consoles."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console

from ragcode.config import Config, load_config
from ragcode.errors import RagcodeError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def fail(exc: RagcodeError) -> None:
    """Print ``exc`` as one line on stderr (never wrapped, its text never read as markup)."""
    from rich.text import Text

    message = "; ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    err_console.print(Text.assemble(("error:", "bold red"), " ", message), soft_wrap=True,
                      highlight=False)
    raise typer.Exit(code=exc.exit_code)


def handle_errors(func: F) -> F:
    """Turn ``RagcodeError`` into a clear message and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RagcodeError as exc:
            fail(exc)
        except KeyboardInterrupt:
            err_console.print("interrupted: finished work is kept; run the same command to resume")
            raise typer.Exit(code=130) from None

    return wrapper  # type: ignore[return-value]


def config_from(path: Path | None, overrides: list[str] | None) -> Config:
    return load_config(path, overrides or [])


def setup_logging(quiet: bool = False, verbose: bool = False) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


ConfigOption = typer.Option(None, "--config", "-c", help="YAML config (see configs/default.yaml).")
SetOption = typer.Option(None, "--set", help="Override a config field: section.field=value (repeatable).")
