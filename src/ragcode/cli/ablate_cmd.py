"""`ragcode ablate SPEC --tasks FILE --repos DIR --out RESULTS/`: run or resume an ablation grid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ragcode.cli import common


def register(app: typer.Typer) -> None:
    """Add this module's command(s) to `app`."""
    app.command("ablate")(ablate)


@common.handle_errors
def ablate(
    spec: Path = typer.Argument(..., help="Ablation spec, e.g. configs/ablation/chunking.yaml."),
    tasks: Optional[str] = typer.Option(
        None, "--tasks", help="ML-Bench tasks: a .jsonl/.parquet file, a hub id, or 'dev'."),
    split: str = common.SplitOption,
    repos: Optional[Path] = typer.Option(
        None, "--repos", help="Folder holding the repositories (ML-Bench folder names)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Results folder (reused: finished cells are not redone)."),
    index_root: Optional[Path] = typer.Option(
        None, "--index-root", help="Where indexes are built and reused: the same as --set "
        "index.root=DIR (default: OUT/indexes)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use only the first N tasks."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Run N cells at once (--set scale.workers=N)."),
    ray: Optional[str] = common.RayOption,
    config: Optional[Path] = typer.Option(
        None, "--config", "-c", help="Base config of every cell, instead of the spec's own 'base:'."),
    set_: Optional[list[str]] = typer.Option(
        None, "--set", help="Override a config field in every cell: section.field=value (repeatable)."),
    list_cells: bool = typer.Option(False, "--list", help="Only list the cells and their config hashes."),
    as_json: bool = typer.Option(False, "--json", help="Print the result rows as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and the table."),
) -> None:
    """Run every cell of an ablation grid; write results.csv/json/md and PNG plots to OUT."""
    from ragcode.ablation import load_grid, run_grid
    from ragcode.ablation.report import to_markdown
    from ragcode.bench.dataset import load_tasks
    from ragcode.config import load_config, parse_override
    from ragcode.errors import ConfigError, RagcodeError

    common.setup_logging(quiet=quiet or as_json)
    grid = load_grid(spec)
    if config is not None:
        if grid.base is not None:
            raise ConfigError(f"{spec} names its own base config ({grid.base}) and --config gives "
                              f"{config}; give one of them")
        load_config(config)  # checked before any work
        grid.base = config.resolve()
    overrides = dict(parse_override(item) for item in common.with_flags(
        set_, index__root=index_root, scale__workers=workers, scale__ray_address=ray))
    # the grid's own default (OUT/indexes) applies when no spelling, the spec nor its base sets index.root
    root = overrides.pop("index.root", None) or grid.fixed.get("index.root") or _base_index_root(grid.base)
    if list_cells:
        cells = grid.expand(overrides)
        rows = [{"cell": c.name, "config_hash": c.config_hash, **c.varied} for c in cells]
        if as_json:
            common.console.print_json(json.dumps({"grid": grid.name, "cells": rows}))
        else:
            for row in rows:
                common.print_plain(" ".join(f"{k}={v}" for k, v in row.items()))
        return
    missing = [flag for flag, value in (("--tasks", tasks), ("--repos", repos), ("--out", out))
               if value is None]
    if missing:
        raise RagcodeError(f"ragcode ablate needs {', '.join(missing)} to run a grid "
                           "(or --list to only show its cells)")
    assert tasks is not None and repos is not None and out is not None  # checked just above
    loaded = load_tasks(tasks, split=split)
    task_list = loaded.tasks[:limit] if limit else loaded.tasks
    if not repos.is_dir():
        raise RagcodeError(f"--repos {repos} is not a directory; point it at the folder holding the "
                           "repository checkouts")
    result = run_grid(grid, task_list, repos, out, index_root=Path(root) if root else None,
                      overrides=overrides, progress=not (quiet or as_json))
    if as_json:
        common.console.print_json(json.dumps({"rows": result.rows, "seconds": round(result.seconds, 2),
                                              "computed": result.computed, "cached": result.cached,
                                              "files": {k: str(v) for k, v in result.files.items()}}))
        return
    common.console.print(to_markdown(result), markup=False, highlight=False)
    common.print_plain(
        f"{len(result.computed)} cell(s) run, {len(result.cached)} reused, "
        f"{result.retrieval_runs} retrieval run(s), {result.seconds:.1f}s; files in {out}")


def _base_index_root(base: Path | None) -> str | None:
    """The base config's ``index.root`` when it sets one other than the default."""
    from ragcode.config import Config, load_config

    if base is None:
        return None
    root = load_config(base).index.root
    return root if root != Config().index.root else None
