"""``dry_run``: every entry point of an answer, through the sandbox (see ``ragcode.dryrun``)."""

from __future__ import annotations

from typing import Any

from ragcode.dryrun.entry import entries
from ragcode.dryrun.result import ParseResult
from ragcode.dryrun.sandbox import DryRunner


def dry_run(code: str, answer_type: str, ctx: Any, runner: Any = None) -> list[ParseResult]:
    """The parse results of every entry point ``code`` runs (see ``ragcode.dryrun``); ``runner``
    defaults to one for ``ctx`` (its ``execution`` settings and interpreter)."""
    runner = runner or DryRunner.for_context(ctx)
    return [runner.run(e, ctx) for e in entries(code, answer_type, ctx)]
