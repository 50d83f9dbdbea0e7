"""`ragcode mlbench ...`: the retrieve command (retrieval stage) and prepare/run/score (bench)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from ragcode.cli import mlbench_retrieve_cmd, mlbench_run_cmd

    mlbench_retrieve_cmd.register(app)
    mlbench_run_cmd.register(app)
