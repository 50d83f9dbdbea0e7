"""`ragcode generate --index NAME "instruction"`: n candidate answers with the chunks they used
and, with ``generation.check``, each answer's findings (a skin over ``ragcode.answering.generate``)."""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

import typer

from ragcode.cli import common
from ragcode.errors import require_text


def candidate_dict(c: Any) -> dict[str, Any]:
    return asdict(c)


def generate_command(
    instruction: str = typer.Argument(..., help="What the answer should do, in plain words."),
    index: Optional[str] = typer.Option(None, "--index", "-i",
                                        help="Index name (under index.root) or folder; omit for no context."),
    n: Optional[int] = typer.Option(None, "-n", "--n", min=1, help="Samples (default generation.n)."),
    llm: Optional[str] = typer.Option(None, "--llm", help=common.llm_help()),
    model: Optional[str] = typer.Option(None, "--model", "-m",
                                        help="Model alias, GGUF/folder path, hub id or server model name."),
    template: Optional[str] = typer.Option(None, "--template", "-t", help="Prompt template name or file."),
    path: str = typer.Option(".", "--path", help="Where in the repository the answer runs (for the checks)."),
    check: bool = typer.Option(False, "--check", help="Check answers against the repository "
                               "(generation.check=[bash,python,coverage] unless set)."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    as_json: bool = typer.Option(False, "--json", help="Print candidates as JSON on stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the answers' code."),
) -> None:
    """Generate candidate answers (bash command or Python script) for an instruction."""
    common.setup_logging(quiet=True)
    require_text(instruction, "instruction", 'ragcode generate --index NAME "train for 20 epochs on data/pets"')
    overrides = list(set_ or [])
    for field, value in (("llm.backend", llm), ("llm.model", model), ("template", template)):
        if value is not None:
            overrides.append(f"generation.{field}={value}")
    cfg = common.config_from(config, overrides)
    if check and not cfg.generation.check:
        from ragcode.check import DEFAULT_CHECKS

        cfg.generation.check = list(DEFAULT_CHECKS)
    from ragcode.answering import generate

    with common.err_console.status("generating ...", spinner="dots") if not (as_json or quiet) \
            else nullcontext():
        candidates = generate(instruction, index=index, n=n, config=cfg, path=path)
    if as_json:
        typer.echo(json.dumps([candidate_dict(c) for c in candidates], indent=1, ensure_ascii=False))
        return
    if quiet:
        for c in candidates:
            typer.echo(c.code)
        return
    _print(candidates)


def _print(candidates: list[Any]) -> None:
    from rich.markup import escape
    from rich.panel import Panel
    from rich.syntax import Syntax

    console = common.console
    if candidates:
        meta = candidates[0].metadata
        console.print(f"[bold]model[/] {escape(str(meta.get('model')))}  "
                      f"[bold]template[/] {escape(str(meta.get('template')))} "
                      f"({str(meta.get('template_sha256', ''))[:12]})  "
                      f"[bold]prompt tokens[/] {meta.get('prompt_tokens')}  "
                      f"[bold]seconds[/] {meta.get('seconds')}", highlight=False)
        ids = meta.get("chunk_ids") or []
        console.print(f"[bold]context[/] {len(ids)} chunk(s)" + (" (cut to budget)" if meta.get(
            "context_truncated") else ""), highlight=False)
        for cid in ids:
            common.print_plain(f"  {cid}")
    for c in candidates:
        lexer = "bash" if c.answer_type == "bash" else "python"
        check = c.metadata.get("check")
        title = f"sample {c.sample_index + 1}: {c.answer_type}"
        if check is not None:
            title += f"  findings: {len(check['findings'])} (penalty {check['penalty']})"
        console.print(Panel(Syntax(c.code or "(empty)", lexer, word_wrap=True), title=title, title_align="left"))
        if check is not None:
            print_findings(check["findings"])
            fix = check.get("autofix")
            if fix:
                done = [f"{a} -> {b}" for a, b in fix.get("pairs", [])] + (["opened the wrapper script"]
                                                                          if fix.get("expanded") else [])
                done += ["ran the script the instruction names"] if fix.get("retargeted") else []
                done += ["ran the documented command that takes the task's values"] if fix.get("switched") else []
                done += [f"{flag} {value}" for value, flag in fix.get("filled", [])]
                done += [f"export {name}={value}" for value, name in fix.get("exported", [])]
                console.print(f"  autofix: {'; '.join(done)}", highlight=False, markup=False, soft_wrap=True)
            for r in check.get("repair", []):
                console.print(f"  repair round {r['round']}: {len(r['findings_after'])} finding(s) after, "
                              f"{'accepted' if r['accepted'] else 'not better, kept the previous answer'}",
                              highlight=False, markup=False)


def print_findings(findings: list[dict[str, Any]]) -> None:
    for f in findings:
        where = f" (line {f['line']})" if f.get("line") else ""
        common.console.print(f"  {f['severity']}: {f['code']}{where}: {f['message']}",
                             highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``ragcode generate`` to ``app``."""
    app.command("generate")(common.handle_errors(generate_command))
