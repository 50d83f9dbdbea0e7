"""Instruction (+ context) -> n ``Candidate`` answers.

``prepare_prompt`` builds the prompt (the context cut to its token budget) and the metadata
every candidate carries; ``sample_candidates`` draws and parses ``n`` answers to it;
``generate_candidates`` does both. The public entry point, which also retrieves the context and
checks answers when configured, is ``ragcode.answering.generate``.

Every candidate's ``metadata`` records what produced it: model id, template name and sha256,
the context's chunk ids, the sampling settings, prompt/answer token counts and timings.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, cast

from ragcode.generation.llm import LLM, Sampling
from ragcode.generation.parse import parse_answer
from ragcode.generation.prompt import PromptTemplate, build_prompt, fit_to_tokens, load_template
from ragcode.types import Candidate, CandidateMetadata, Context

log = logging.getLogger(__name__)


def prepare_prompt(
    instruction: str,
    context: Context | None,
    llm: LLM,
    template: str | PromptTemplate = "ragcode",
    context_tokens: int = 0,
) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The prompt messages for ``instruction`` with ``context`` (cut to ``context_tokens`` model
    tokens at a line boundary when > 0) and the metadata every candidate of it carries."""
    tmpl = load_template(template) if isinstance(template, str) else template
    text: str | None = None
    truncated = False
    if context is not None:
        text, truncated = fit_to_tokens(context.text, context_tokens, llm.count_tokens)
        if truncated:
            log.info("context cut to %d model tokens (was %d chars, now %d)",
                     context_tokens, len(context.text), len(text))
    messages = build_prompt(instruction, text, tmpl)
    meta = {
        "model": llm.model_id,
        "template": tmpl.name,
        "template_sha256": tmpl.sha256,
        "chunk_ids": list(context.chunk_ids) if context is not None else [],
        "context_chars": len(text or ""),
        "context_truncated": truncated,
        "prompt_tokens": sum(llm.count_tokens(m["content"]) for m in messages),
    }
    return messages, meta


def to_candidate(answer: str, index: int, meta: Mapping[str, Any], **extra: Any) -> Candidate:
    """A model's raw answer parsed into a ``Candidate`` carrying ``meta`` and ``extra``."""
    parsed = parse_answer(answer)
    return Candidate(text=answer, code=parsed.code, answer_type=parsed.answer_type, sample_index=index,
                     metadata=cast(CandidateMetadata, dict(meta, fenced=parsed.fenced, fence_label=parsed.label,
                                                           **extra)))


def sample_candidates(messages: list[dict[str, str]], meta: dict[str, Any], llm: LLM, n: int,
                      sampling: Sampling) -> list[Candidate]:
    """``n`` answers to ``messages``, parsed, with timings and token counts in their metadata."""
    started = time.perf_counter()
    answers = llm.generate(messages, n, sampling)
    elapsed = time.perf_counter() - started
    answer_tokens = [llm.count_tokens(a) for a in answers]
    base = dict(meta, sampling=sampling.to_dict(), seconds=round(elapsed, 3),
                tokens_per_s=round(sum(answer_tokens) / elapsed, 2) if elapsed > 0 else None)
    return [to_candidate(a, i, base, seed=sampling.seed + i, answer_tokens=answer_tokens[i])
            for i, a in enumerate(answers)]


def generate_candidates(
    instruction: str,
    context: Context | None,
    llm: LLM,
    n: int = 5,
    template: str | PromptTemplate = "ragcode",
    sampling: Sampling | None = None,
    context_tokens: int = 0,
) -> list[Candidate]:
    """Prompt ``llm`` ``n`` times for ``instruction`` with ``context`` and parse the answers.

    ``context_tokens`` > 0 cuts the context (at a line boundary) to that many tokens of the
    model's own tokenizer. Only ``instruction`` and ``context`` reach the prompt.
    """
    messages, meta = prepare_prompt(instruction, context, llm, template, context_tokens)
    return sample_candidates(messages, meta, llm, n, sampling or Sampling())
