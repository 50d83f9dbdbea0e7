"""`ragcode mlbench retrieve`: contexts for ML-Bench tasks, scored with the oracle measure."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common


def summary_table(report: Any) -> Any:
    from rich.table import Table

    table = Table(title=f"oracle measure at {report.budget} chars (found = normalized >= 0.9)")
    table.add_column("repository")
    table.add_column("tasks", justify="right")
    table.add_column("ragcode found", justify="right")
    table.add_column("ragcode norm.cov", justify="right")
    table.add_column("paper BM25 found", justify="right")
    table.add_column("paper BM25 norm.cov", justify="right")
    for folder, (rag, base) in report.by_repo().items():
        table.add_row(folder, str(rag.n), f"{rag.found_rate:.3f}", f"{rag.mean_normalized:.3f}",
                      f"{base.found_rate:.3f}", f"{base.mean_normalized:.3f}")
    rag, base = report.overall()
    table.add_row("[bold]overall[/]", str(rag.n), f"[bold]{rag.found_rate:.3f}[/]",
                  f"[bold]{rag.mean_normalized:.3f}[/]", f"{base.found_rate:.3f}",
                  f"{base.mean_normalized:.3f}")
    return table


def retrieve_command(
    tasks: str = common.TasksOption,
    repos: Path = typer.Option(..., "--repos", help="Folder holding the repositories by ML-Bench folder name."),
    out: Path = typer.Option(..., "--out", help="Output JSONL: one {github_id, id, context, chunks} per task."),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help="Context budget in characters (default context.budget)."),
    index_root: Optional[Path] = typer.Option(
        None, "--index-root", help="Where repository indexes are built and reused: the same as "
        "--set index.root=DIR (default index.root)."),
    split: str = common.SplitOption,
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or table."),
    restart: bool = typer.Option(False, "--restart", help="Discard contexts already in --out and start afresh."),
) -> None:
    """Retrieve a context per task (resumable), and score it and the paper-style BM25 baseline.
    Resuming an --out made with other retrieval settings is refused."""
    common.setup_logging(quiet=True)
    overrides = common.with_flags(set_, context__budget=budget,
                                  context__unit="chars" if budget is not None else None,
                                  index__root=index_root)
    cfg = common.config_from(config, overrides)
    from rich.progress import Progress

    from ragcode.bench.retrieve import report_path, run_retrieve

    with Progress(console=common.err_console, disable=quiet, transient=True) as progress:
        bar = progress.add_task("retrieving", total=None)

        def on_task(result: Any) -> None:
            progress.update(bar, advance=1, description=f"{result.folder} {result.id}")

        report = run_retrieve(tasks, repos, out, cfg, on_task=on_task, restart=restart, split=split)
    if not quiet:
        common.console.print(summary_table(report))
        p50 = report.p50_seconds()
        if p50 is not None:
            common.print_plain(f"time per query p50: {p50 * 1000:.0f} ms")
        common.print_plain(f"contexts: {out}   report: {report_path(Path(out))}   indexes: {cfg.index.root}")


def register(app: typer.Typer) -> None:
    """Add ``ragcode mlbench retrieve`` to ``app``."""
    app.command("retrieve")(common.handle_errors(retrieve_command))
