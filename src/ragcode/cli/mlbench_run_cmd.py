"""`ragcode mlbench prepare | run | score`: a thin skin over ``ragcode.bench``."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ragcode.cli import common


def register(app: typer.Typer) -> None:
    app.command("prepare")(prepare)
    app.command("run")(run)
    app.command("score")(score)
    app.command("report")(report)


@common.handle_errors
def prepare(
    repos: Path = typer.Option(..., "--repos", help="Folder that holds (or will hold) the 14 checkouts."),
    no_clone: bool = typer.Option(False, "--no-clone", help="Only verify what is there."),
    config: Path | None = common.ConfigOption,
    set_: list[str] | None = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Clone the ML-Bench repositories at their pinned commits, or verify existing checkouts."""
    # --config / --set are only checked (a bad one exits 2), so one config serves every command;
    # no setting changes what prepare does
    from rich.text import Text

    from ragcode.bench.prepare import prepare_repos

    common.config_from(config, set_)
    statuses = prepare_repos(repos, clone=not no_clone)
    missing = [s for s in statuses if not s.ok]
    if as_json:
        common.console.print_json(json.dumps([
            {"github_id": s.repo.github_id, "folder": s.repo.folder, "commit": s.repo.commit,
             "state": s.state, "detail": s.detail} for s in statuses]))
    else:
        for s in statuses:
            line = Text.assemble(f"{s.repo.github_id:>2} {s.repo.folder:<28} ",
                                 (s.state, "green" if s.ok else "red"), f" {s.detail}")
            common.console.print(line, highlight=False, soft_wrap=True)
        if missing:
            common.print_plain(f"\n{len(missing)} repositories need placing by hand:")
            for s in missing:
                common.print_plain("  " + s.manual_steps(Path(repos)))
    if missing:
        raise typer.Exit(code=1)


@common.handle_errors
def run(
    tasks: str = common.TasksOption,
    repos: Path = typer.Option(..., "--repos", help="Folder with the repository checkouts."),
    out: Path = typer.Option(..., "--out", help="Run directory (created; resumed if it exists)."),
    setting: str | None = typer.Option(None, "--setting", help="none | readme | bm25 | ragcode | oracle | agent"),
    llm: str | None = typer.Option(None, "--llm", help=common.llm_help()),
    model: str | None = typer.Option(None, "--model", help="Model name or path for the backend."),
    n: int | None = typer.Option(None, "-n", help="Samples per task (ML-Bench: 5)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N tasks."),
    split: str = common.SplitOption,
    workers: int | None = common.WorkersOption,
    ray: str | None = common.RayOption,
    config: Path | None = common.ConfigOption,
    set_: list[str] | None = common.SetOption,
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Generate answers for ML-Bench tasks, or a task file whose records name their repository,
    into RUN/ (samples.jsonl, outputs.jsonl, run.json)."""
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.runner import run_bench
    from ragcode.scale.progress import TaskProgress

    overrides = common.with_flags(set_, bench__setting=setting, generation__llm__backend=llm,
                                  generation__llm__model=model, generation__n=n,
                                  scale__workers=workers, scale__ray_address=ray)
    cfg = common.config_from(config, overrides)
    loaded = load_tasks(tasks, split=split)
    bar = None if quiet else TaskProgress("mlbench run", common.err_console)
    try:
        summary = run_bench(loaded.tasks, repos, out, cfg, limit=limit,
                            on_task=None if bar is None else bar.advance,
                            on_start=None if bar is None else (lambda s: bar.start(s.total - s.done_before)))
    finally:
        if bar is not None:
            bar.stop()
    common.print_plain(
        f"{summary.total} tasks: {summary.done_before} already done, {summary.generated} generated "
        f"-> {out}/samples.jsonl, {out}/outputs.jsonl")
    if summary.lost:
        common.print_plain(f"{summary.lost} task(s) lost their worker on every try (see {out}/failures.jsonl); "
                           "run the same command to retry them", err=True)
        raise typer.Exit(code=1)


@common.handle_errors
def score(
    source: Path = typer.Argument(..., help="A run directory or an ML-Bench outputs .jsonl file."),
    tasks: str = common.TasksOption,
    repos: Path = typer.Option(..., "--repos", help="Folder with the repository checkouts."),
    policy: str | None = typer.Option(None, "--policy", help="mlbench-legacy | static | exec-strict | parsed"),
    no_exec: bool = typer.Option(False, "--no-exec", help="Apply only the text checks; run nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    split: str = common.SplitOption,
    workers: int | None = common.WorkersOption,
    ray: str | None = common.RayOption,
    config: Path | None = common.ConfigOption,
    set_: list[str] | None = common.SetOption,
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Score samples under a named policy: pass@1/2/5 overall and per repository."""
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.evaluate import score as score_source
    from ragcode.bench.report import markdown_table

    cfg = common.config_from(config, common.with_flags(set_, bench__policy=policy, scale__workers=workers,
                                                       scale__ray_address=ray))
    policy = cfg.bench.policy
    loaded = load_tasks(tasks, split=split)
    report = score_source(source, loaded.tasks, repos, policy, cfg, execute=not no_exec,
                          progress=not (quiet or as_json))
    if as_json:
        slim = {k: v for k, v in report.items() if k != "tasks"}
        typer.echo(json.dumps(slim))
    else:
        typer.echo(markdown_table(report))
        if report.get("note"):
            common.print_plain(report["note"], err=True)


@common.handle_errors
def report(
    runs: list[Path] = typer.Argument(..., help="Run directories already scored with `mlbench score`."),
    config: Path | None = common.ConfigOption,
    set_: list[str] | None = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print the reports as one JSON list."),
) -> None:
    """Compare scored runs: one row per run, setting and policy."""
    # --config / --set are only checked (a bad one exits 2), so one config serves every command;
    # the reports are shown as they were scored
    from ragcode.bench.report import collect_reports, comparison_table
    from ragcode.errors import RagcodeError

    common.config_from(config, set_)
    found = collect_reports(runs)
    if not found:
        raise RagcodeError("no report-*.json in these directories; run `ragcode mlbench score` on them first")
    typer.echo(json.dumps(found) if as_json else comparison_table(found))
