"""`ragcode agent --index NAME "instruction"`: one agent episode, each step printed as it
happens, then the answer (a skin over ``ragcode.agent.solve``); and `ragcode mlbench show RUN
--task ID`: the recorded trajectories of one task of an agent run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common
from ragcode.errors import require_text


def agent_command(
    instruction: str = typer.Argument(..., help="What the answer should do, in plain words."),
    index: str = typer.Option(..., "--index", "-i", help="Index name (under index.root) or folder."),
    llm: Optional[str] = typer.Option(None, "--llm", help=common.llm_help()),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model alias, path or server model name."),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Model calls at most (agent.max_steps)."),
    protocol: Optional[str] = typer.Option(None, "--protocol", help="auto | native | text (agent.protocol)."),
    run: bool = typer.Option(False, "--run", help="Also offer the run tool (answers run in the sandbox)."),
    path: str = typer.Option(".", "--path", help="Where in the repository the answer runs (check, run)."),
    trajectory: Optional[Path] = typer.Option(None, "--trajectory", help="Record the episode here (JSONL); "
                                              "an unfinished one resumes."),
    full: bool = typer.Option(False, "--full", help="Print whole observations."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print the candidate (with its trajectory) as JSON."),
) -> None:
    """Solve an instruction with the agent: search, read files and flag tables, check, submit."""
    from ragcode.agent import solve
    from ragcode.agent.show import final_lines, step_lines

    common.setup_logging(quiet=True)
    require_text(instruction, "instruction", 'ragcode agent --index NAME "train for 20 epochs on data/pets"')
    overrides = list(set_ or [])
    for key, value in (("generation.llm.backend", llm), ("generation.llm.model", model),
                       ("agent.max_steps", max_steps), ("agent.protocol", protocol)):
        if value is not None:
            overrides.append(f"{key}={value}")
    cfg = common.config_from(config, overrides)
    if run and "run" not in cfg.agent.tools:
        cfg.agent.tools = [*cfg.agent.tools, "run"]

    def on_step(rec: dict[str, Any], resumed: bool) -> None:
        if not as_json:
            for line in step_lines(rec, full, resumed):
                common.console.print(line, highlight=False, markup=False, soft_wrap=True)

    cand = solve(instruction, index=index, config=cfg, trajectory=trajectory, path=path, on_step=on_step)
    if as_json:
        typer.echo(json.dumps({"text": cand.text, "code": cand.code, "answer_type": cand.answer_type,
                               "metadata": cand.metadata}, indent=1, ensure_ascii=False))
        return
    agent = cand.metadata["agent"]
    final = {"stop": agent["stop"], "source": agent["source"], "metadata": cand.metadata, "text": ""}
    common.console.print(final_lines(final)[0], highlight=False, markup=False)
    common.console.print(f"answer ({cand.answer_type}):", highlight=False, markup=False)
    typer.echo(cand.code)


def show_command(
    run_dir: Path = typer.Argument(..., help="An agent run folder (mlbench run --setting agent)."),
    task: str = typer.Option(..., "--task", help="Task key (1:100) or id (100)."),
    full: bool = typer.Option(False, "--full", help="Print whole observations."),
    as_json: bool = typer.Option(False, "--json", help="Print the trajectory records as JSON lines."),
) -> None:
    """Show the recorded episodes of one task: each step's call and result, then the answer."""
    from ragcode.agent.show import find_task_file, show_file

    path = find_task_file(run_dir, task)
    if as_json:
        typer.echo(path.read_text(encoding="utf-8"), nl=False)
        return
    common.console.print(f"{path}", highlight=False, markup=False)
    for line in show_file(path, full):
        common.console.print(line, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer, mlbench_app: typer.Typer) -> None:
    """Add ``ragcode agent`` to ``app`` and ``show`` to ``ragcode mlbench``."""
    app.command("agent")(common.handle_errors(agent_command))
    mlbench_app.command("show")(common.handle_errors(show_command))
