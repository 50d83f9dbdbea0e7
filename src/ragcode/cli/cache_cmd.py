"""`ragcode cache`: what the cache folder holds, by kind, and `--clear KIND` (a skin over
``ragcode.cachedir``)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer

from ragcode.cli import common


def cache_command(
    clear: Optional[str] = typer.Option(
        None, "--clear", metavar="KIND",
        help="Remove one kind (models, converted, onnx, embeddings, bm25, rerank, verdicts) or all; "
        "it is made again when next needed."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print the sizes as JSON on stdout."),
) -> None:
    """Show the size of each kind of cached data (models, vectors, ...), or clear one kind."""
    from ragcode.cachedir import clear as clear_kind
    from ragcode.cachedir import usage
    from ragcode.generation.models import human_size

    cfg = common.config_from(config, set_)
    if clear is not None:
        gone = clear_kind(cfg, clear)
        if as_json:
            typer.echo(json.dumps(asdict(gone), default=str, indent=1))
        else:
            common.print_plain(f"removed {clear}: {human_size(gone.bytes)} in {gone.files} file(s)")
        return
    kinds = usage(cfg)
    if as_json:
        typer.echo(json.dumps([asdict(k) for k in kinds], default=str, indent=1))
        return
    from rich.table import Table

    table = Table(title=f"ragcode cache ({Path(cfg.index.cache_dir).expanduser()})", show_header=True)
    for col, justify in (("kind", "left"), ("size", "right"), ("files", "right"), ("what", "left"),
                         ("where", "left")):
        table.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for k in kinds:
        table.add_row(k.kind, human_size(k.bytes), str(k.files), k.description, k.where)
    table.add_row("total", human_size(sum(k.bytes for k in kinds)), str(sum(k.files for k in kinds)), "", "")
    common.console.print(table, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``ragcode cache`` to ``app``."""
    app.command("cache")(common.handle_errors(cache_command))
