"""Instruction (+ context) -> n ``Candidate`` answers.

``generate_candidates`` is the stage function the benchmark calls with a context it built itself
(none / README / BM25 / ragcode / oracle settings). ``generate`` is the public entry point: it
takes an instruction or a ``Task`` (only ``task.instruction`` is used), retrieves and packs a
context through the retrieval stage when an index is given, loads the configured model and
returns the candidates.

Every candidate's ``metadata`` records what produced it: model id, template name and sha256,
the context's chunk ids, the sampling settings, prompt/answer token counts and timings.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from ragcode.generation.llm import LLM, Sampling, load_llm
from ragcode.generation.parse import parse_answer
from ragcode.generation.prompt import PromptTemplate, build_prompt, fit_to_tokens, load_template
from ragcode.types import Candidate, Context, Task

if TYPE_CHECKING:
    from ragcode.config import Config

log = logging.getLogger(__name__)


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
    tmpl = load_template(template) if isinstance(template, str) else template
    sampling = sampling or Sampling()
    text: str | None = None
    truncated = False
    if context is not None:
        text, truncated = fit_to_tokens(context.text, context_tokens, llm.count_tokens)
        if truncated:
            log.info("context cut to %d model tokens (was %d chars, now %d)",
                     context_tokens, len(context.text), len(text))
    messages = build_prompt(instruction, text, tmpl)
    prompt_tokens = sum(llm.count_tokens(m["content"]) for m in messages)
    started = time.perf_counter()
    answers = llm.generate(messages, n, sampling)
    elapsed = time.perf_counter() - started
    answer_tokens = [llm.count_tokens(a) for a in answers]
    base = {
        "model": llm.model_id,
        "template": tmpl.name,
        "template_sha256": tmpl.sha256,
        "chunk_ids": list(context.chunk_ids) if context is not None else [],
        "context_chars": len(text or ""),
        "context_truncated": truncated,
        "sampling": sampling.to_dict(),
        "prompt_tokens": prompt_tokens,
        "seconds": round(elapsed, 3),
        "tokens_per_s": round(sum(answer_tokens) / elapsed, 2) if elapsed > 0 else None,
    }
    out = []
    for i, answer in enumerate(answers):
        parsed = parse_answer(answer)
        meta = dict(base, seed=sampling.seed + i, answer_tokens=answer_tokens[i],
                    fenced=parsed.fenced, fence_label=parsed.label)
        out.append(Candidate(text=answer, code=parsed.code, answer_type=parsed.answer_type,
                             sample_index=i, metadata=meta))
    return out


def generate(
    task: str | Task,
    index: Any = None,
    n: int | None = None,
    config: Config | None = None,
    llm: LLM | None = None,
    context: Context | None = None,
) -> list[Candidate]:
    """``n`` candidates for ``task`` (an instruction or a ``Task``).

    With ``index`` (a name, path or loaded index) the context is retrieved and packed; a ready
    ``context`` may be passed instead. ``llm`` defaults to the configured backend.
    """
    from ragcode.config import Config

    config = config or Config()
    gen = config.generation
    instruction = task.instruction if isinstance(task, Task) else str(task)
    if context is None and index is not None:
        from ragcode.retrieval.search import retrieve_context

        context = retrieve_context(index, instruction, config)
    llm = llm or load_llm(config)
    return generate_candidates(
        instruction, context, llm, n=n or gen.n, template=gen.template,
        sampling=Sampling.from_config(gen.llm), context_tokens=gen.context_tokens,
    )
