"""Candidates from config: the one place that turns an instruction, a context and a model into
answers, checked against the repository when ``generation.check`` names checkers.

Every caller (``ragcode generate``, ``mlbench run``, the ablation's generation stage, the
benchmarks) goes through ``generate_from_config``, so a setting means the same everywhere.
It sits above ``generation`` and ``check``; neither imports the other's pipeline.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ragcode.generation.generate import prepare_prompt, sample_candidates
from ragcode.generation.llm import LLM, Sampling, load_llm
from ragcode.types import Candidate, Context, Task

if TYPE_CHECKING:
    from ragcode.check import CheckContext
    from ragcode.config import Config
    from ragcode.index.store import IndexRef

log = logging.getLogger(__name__)
_WARNED: set[str] = set()


def generate_from_config(instruction: str, context: Context | None, llm: LLM, config: Config,
                         check_ctx: CheckContext | None = None, journal: str | Path | None = None,
                         n: int | None = None) -> list[Candidate]:
    """``generation.n`` (or ``n``) candidates for ``instruction``; with ``generation.check`` and a
    ``check_ctx`` (which repository, which working directory) they are checked, ordered best
    first and the first repaired, as configured. ``journal``: a file that makes a checked task
    resumable mid-way."""
    gen = config.generation
    sampling = Sampling.from_config(gen.llm)
    if gen.ground and check_ctx is not None:
        from ragcode.answer.grounding import ground_context

        context = ground_context(instruction, context, check_ctx, config)
    messages, meta = prepare_prompt(instruction, context, llm, gen.template, gen.context_tokens)
    if not gen.check:
        return sample_candidates(messages, meta, llm, n or gen.n, sampling)
    if check_ctx is None:
        if "no-repo" not in _WARNED:
            _WARNED.add("no-repo")
            log.warning("generation.check is set but the repository is unknown here; answers are not checked")
        return sample_candidates(messages, meta, llm, n or gen.n, sampling)
    from ragcode.answer.journal import Journal
    from ragcode.answer.pipeline import checked_candidates
    from ragcode.answer.run import CheckedRun, Draw
    from ragcode.check import load_checkers

    if gen.sample_temperature:  # sample 1 is drawn greedy; the others should differ from it
        sampling = dataclasses.replace(sampling, temperature=gen.sample_temperature)

    if context is not None and context.text:  # the fixes move an answer only to a script it names
        check_ctx = dataclasses.replace(check_ctx, extra={**check_ctx.extra, "context": context.text})
    run = CheckedRun(check_ctx, load_checkers(gen.check, config), gen.select, gen.autofix, tuple(gen.fixes),
                     gen.repair_rounds, gen.fix_each)
    return checked_candidates(Draw(messages, meta, llm, n or gen.n, sampling, gen.more_samples), run, Journal(journal))


def generate(task: str | Task, index: IndexRef | None = None, n: int | None = None, config: Config | None = None,
             llm: LLM | None = None, context: Context | None = None, path: str = ".") -> list[Candidate]:
    """``n`` candidates for ``task`` (an instruction or a ``Task``; only its instruction reaches
    the model).

    With ``index`` (a name, path or loaded index) the context is retrieved and packed, and with
    ``generation.check`` the answers are checked in the index's repository, run from ``path``
    inside it (a ``Task``'s own path when one is given). A ready ``context`` may be passed
    instead of an index; ``llm`` defaults to the configured backend.
    """
    from ragcode.config import Config

    config = config or Config()
    instruction = task.instruction if isinstance(task, Task) else str(task)
    check_ctx = None
    wants_repo = bool(config.generation.check) or config.generation.ground  # checks, or grounding
    if index is not None and (context is None or wants_repo):
        from ragcode.index.store import load_index

        loaded = load_index(index, config)
        if context is None:
            from ragcode.retrieval.search import retrieve_context

            context = retrieve_context(loaded, instruction, config)
        repo = getattr(getattr(loaded, "manifest", None), "repo", "")
        if wants_repo and repo:
            from ragcode.check import CheckContext

            workdir = task.path if isinstance(task, Task) and task.path else path
            check_ctx = CheckContext.for_repo(repo, workdir, instruction, config)
    llm = llm or load_llm(config)
    return generate_from_config(instruction, context, llm, config, check_ctx, n=n)
