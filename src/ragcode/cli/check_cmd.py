"""`ragcode check --index NAME "answer" [--path DIR]`: the answer checks alone, for people who
write their own answers (a skin over ``ragcode.check``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ragcode.cli import common

if TYPE_CHECKING:
    from ragcode.check import Finding


def check_command(
    answer: str = typer.Argument(..., help="The answer: a bash command or Python code ('-' reads stdin)."),
    index: Optional[str] = typer.Option(None, "--index", "-i", help="Index whose repository to check against."),
    repo: Optional[Path] = typer.Option(None, "--repo", help="Repository folder (instead of --index)."),
    path: str = typer.Option(".", "--path", help="Where in the repository the answer runs."),
    instruction: Optional[str] = typer.Option(None, "--instruction", help="The task, for the coverage check."),
    checks: Optional[list[str]] = typer.Option(
        None, "--check", help="Checker names (default: generation.check, i.e. bash, python, coverage, parse)."),
    config: Optional[Path] = common.ConfigOption,
    set_: Optional[list[str]] = common.SetOption,
    fix: bool = typer.Option(False, "--fix", help="Also print the answer through the fixes generation.fixes names, "
                             "kept by the rule checked generation keeps them by."),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
) -> None:
    """Check an answer against a repository: scripts, flags, choices, types, imports, symbols, values."""
    import sys

    from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers, penalty
    from ragcode.errors import RepoNotFoundError, require_text
    from ragcode.generation.parse import parse_answer

    text = sys.stdin.read() if answer == "-" else answer
    require_text(text, "answer", "ragcode check --index NAME \"python train.py --epochs 5\" (or '-' to read stdin)")
    if instruction is not None:  # given, so it must say something: the coverage check reads it
        require_text(instruction, "--instruction", '--instruction "train for 5 epochs"')
    cfg = common.config_from(config, list(set_ or []))
    if repo is None:
        if index is None:
            raise RepoNotFoundError("give --index NAME or --repo DIR: the repository to check the answer against")
        from ragcode.index.store import load_index

        repo = Path(load_index(index, cfg).manifest.repo)
    if not Path(repo).is_dir():
        raise RepoNotFoundError(f"repository {repo} is not a directory")
    parsed = parse_answer(text)
    names = checks or cfg.generation.check or list(DEFAULT_CHECKS)
    ctx = CheckContext.for_repo(repo, path, instruction or "", cfg)
    checkers = load_checkers(names, cfg)
    findings = check_answer(parsed.code, parsed.answer_type, ctx, checkers)
    out: dict = {"answer_type": parsed.answer_type, "penalty": penalty(findings),
                 "findings": [_described(f) for f in findings]}
    if fix:
        from ragcode.answer.fixes import fix_and_keep

        fixed = fix_and_keep(parsed.code, parsed.answer_type, findings, ctx, checkers, cfg.generation.fixes)
        if fixed is not None:  # the keep rule checked generation applies
            findings = fixed.findings
            out["fixed"] = {"code": fixed.code, **fixed.record, "penalty": penalty(fixed.findings),
                            "findings": [_described(f) for f in fixed.findings]}
    if as_json:
        typer.echo(json.dumps(out, indent=1))
    else:
        from ragcode.cli.generate_cmd import print_findings

        common.console.print(f"{parsed.answer_type} answer: {len(out['findings'])} finding(s)", highlight=False)
        print_findings(out["findings"])
        if "fixed" in out:
            common.console.print(f"fixed ({len(findings)} finding(s) left):", highlight=False)
            common.console.print(out["fixed"]["code"], highlight=False, markup=False)
            print_findings(out["fixed"]["findings"])
        elif fix and out["findings"]:  # say so, rather than leave the reader looking for a fix
            common.console.print("no fix: none of these has a correction the fixes are sure of; "
                                 "the suggestions above are for you to weigh", highlight=False)
    raise typer.Exit(1 if any(f.severity == "error" for f in findings) else 0)


def _described(f: Finding) -> dict:
    """A finding as printed: its fields, with its weight and fix kind from the rule catalogue."""
    from ragcode.check.rules import RULES

    return {**f.to_dict(), "weight": f.weight, "fix": RULES[f.code].fix}


def register(app: typer.Typer) -> None:
    app.command("check")(common.handle_errors(check_command))
