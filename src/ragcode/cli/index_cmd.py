"""`ragcode index REPO`: chunk, embed and store a repository (a skin over ``index_repo``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common


def _summary_table(summary: Any) -> Any:
    from rich.table import Table

    table = Table(title=f"index {summary.name} -> {summary.index_dir}", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_column("detail")
    kinds = ", ".join(f"{k} {v}" for k, v in summary.files_by_kind.items())
    table.add_row("files", str(summary.files), kinds)
    table.add_row("  changes", str(summary.files_added + summary.files_changed + summary.files_deleted),
                  f"added {summary.files_added}, changed {summary.files_changed}, "
                  f"deleted {summary.files_deleted}, unchanged {summary.files_unchanged}")
    skipped = ", ".join(f"{k} {v}" for k, v in summary.skipped.items()) or "-"
    table.add_row("skipped", str(sum(summary.skipped.values())), skipped)
    kinds = ", ".join(f"{k} {v}" for k, v in summary.chunks_by_kind.items())
    table.add_row("chunks", str(summary.chunks), kinds)
    table.add_row("  changes", str(summary.chunks_added + summary.chunks_removed),
                  f"added {summary.chunks_added}, removed {summary.chunks_removed}, "
                  f"links updated {summary.links_updated}")
    table.add_row("vectors", str(summary.vectors),
                  f"added {summary.vectors_added} (embedded {summary.embedded}, cached "
                  f"{summary.cached}), removed {summary.vectors_removed}")
    total = sum(summary.seconds.values())
    times = ", ".join(f"{k} {v:.1f}s" for k, v in summary.seconds.items())
    table.add_row("time", f"{total:.1f}s", times)
    return table


def index_command(
    repo: Path = typer.Argument(..., help="Path of the repository to index."),
    name: Optional[str] = typer.Option(
        None, "--name", help="Index name (default: folder name); a name already used for another "
        "repository is refused unless --rebuild."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Index root folder (default: index.root)."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Start from scratch, replacing whatever index has this name (the embedding cache still applies)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars or table."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
) -> None:
    """Index a repository: walk, chunk, embed, store. Re-running updates only what changed."""
    common.setup_logging(quiet=quiet or as_json)
    for noisy in ("faiss", "sentence_transformers", "httpx"):  # their INFO lines are not ours
        logging.getLogger(noisy).setLevel(logging.WARNING)
    cfg = common.config_from(config, set_)
    from ragcode.index.build import index_repo

    index = index_repo(repo, config=cfg, name=name, out=out, rebuild=rebuild,
                       progress=not (quiet or as_json))
    summary = index.summary
    index.close()
    if as_json:
        typer.echo(json.dumps(summary.to_dict(), indent=1))
    elif not quiet:
        common.console.print(_summary_table(summary))


def register(app: typer.Typer) -> None:
    """Add ``ragcode index`` to ``app``."""
    app.command("index")(common.handle_errors(index_command))
