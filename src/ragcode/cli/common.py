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
            raise typer.Exit(code=INTERRUPTED) from None

    return wrapper  # type: ignore[return-value]


INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


def exit_now(code: int) -> None:
    """Leave the process at once with ``code``, after flushing what was printed: used after
    Ctrl-C, when native worker threads (onnxruntime, torch, faiss) may still be running, whose
    teardown at interpreter exit aborts (``terminate called without an active exception``,
    exit 134). Finished work is already on disk: every write is atomic or journalled."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    os._exit(code)


def config_from(path: Path | None, overrides: list[str] | None) -> Config:
    return load_config(path, overrides or [])


def with_flags(set_: list[str] | None, **flags: Any) -> list[str]:
    """The ``--set`` overrides followed by one per given flag (``flags`` maps a dotted config
    field, written with ``__`` for ``.``, to the flag's value; None = not given). A flag is only
    a spelling of its override: the config stays the one owner of the setting."""
    overrides = list(set_ or [])
    for key, value in flags.items():
        if value is not None:
            overrides.append(f"{key.replace('__', '.')}={value}")
    return overrides


def quiet_library_bars() -> None:
    """No tqdm bars from Hugging Face libraries (transformers' "Loading weights", the hub's
    downloads): they would mix into ragcode's own progress and notices on stderr. Set
    ``HF_HUB_DISABLE_PROGRESS_BARS=0`` to have them back."""
    import os
    import sys

    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] != "1":
        return
    if "huggingface_hub" in sys.modules:  # imported already: the variable was read at its import
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers.utils.logging" in sys.modules:
        sys.modules["transformers.utils.logging"].disable_progress_bar()


_VERBOSITY = {"level": 0}  # -v / -vv given before the command (``ragcode -v index ...``)


def set_verbosity(count: int) -> None:
    """``-v``: INFO, ``-vv``: DEBUG, for every command (also those that are quiet by default)."""
    _VERBOSITY["level"] = count
    if count:
        level = logging.DEBUG if count > 1 else logging.INFO
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
        logging.getLogger().setLevel(level)


def setup_logging(quiet: bool = False, verbose: bool = False) -> None:
    if _VERBOSITY["level"]:
        return  # the global -v wins over a command's own default
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def print_plain(text: str, err: bool = False) -> None:
    """Print text that is not rich markup (paths, messages, ``pip install 'ragcode[x]'``)."""
    (err_console if err else console).print(text, markup=False, highlight=False, soft_wrap=True)


def llm_help() -> str:
    """Help for ``--llm``: every backend name the registry knows, so a new one shows up here."""
    from ragcode.generation.llm import backend_names

    return f"LLM backend: {', '.join(backend_names())} (default: generation.llm.backend)."


ConfigOption = typer.Option(None, "--config", "-c", help="YAML config (see configs/default.yaml).")
WorkersOption = typer.Option(None, "--workers", help="Work on N tasks at once (--set scale.workers=N; docs/scale.md).")
RayOption = typer.Option(None, "--ray", help="Run on Ray: local, auto or ray://host:port (--set scale.ray_address=...).")
SetOption = typer.Option(None, "--set", help="Override a config field: section.field=value (repeatable).")
TasksOption = typer.Option(
    ..., "--tasks", help="ML-Bench tasks: a .jsonl/.parquet file, a hub id (super-dainiu/ml-bench), "
    "or 'dev' (the shipped dev split, from the hub); or a .jsonl of your own tasks whose records name "
    "their repository (docs/mlbench.md, 'Your own task set').")
SplitOption = typer.Option(
    "full", "--split", help="full | quarter (hub splits) | dev (the shipped dev keys, from the hub "
    "or from a local copy of the full split).")
