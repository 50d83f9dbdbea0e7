"""A repository name the answer uses where its module has a sibling that adds what the
instruction asks for: ``Unet`` for "a 1D U-Net" where the package also defines ``Unet1D``,
``BYOL`` for "the BYOL trainer" beside ``BYOLTrainer`` (``sibling-name``).

The sibling is the used name with a part added after it (``Unet`` + ``1D``, ``detr_resnet50`` +
``_dc5``; not before it: ``get_tokenizer`` is no kind of ``tokenizer``); the added part,
lower-cased and without its ``_``, must be a word of the instruction that is neither a stopword
nor a word every task says, and not already in the used name. Only names taken with ``from
MODULE import NAME`` and then used are read; a sibling the answer imports or uses too says nothing
(the answer may build both), nor one that extends a longer name the answer takes
(``IFStageIII`` is ``IFStageII`` + ``I``, not ``IFStageI`` + ``II``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ragcode.check import WARNING, CheckContext, Finding, say
from ragcode.check.answer import Answer
from ragcode.check.facts import module_file, module_symbols
from ragcode.check.instruction import TASK_WORDS, read_instruction
from ragcode.check.words import stopwords


def _added(name: str, sibling: str, taken: set[str]) -> str:
    """The part ``sibling`` adds at the end of ``name``, without ``_`` (``1D``); empty when it adds
    none, or it extends a longer name of ``taken``."""
    if sibling == name or not sibling.startswith(name):
        return ""
    if any(len(t) > len(name) and sibling.startswith(t) for t in taken):
        return ""
    return sibling[len(name):].strip("_")


def sibling_findings(checker: str, answer: Answer, ctx: CheckContext, roots: list[Path]) -> list[Finding]:
    """``sibling-name`` for each used repository name with a sibling the instruction asks for."""
    if answer.tree is None or not ctx.instruction:
        return []
    words = read_instruction(ctx.instruction).words - stopwords() - TASK_WORDS
    used = {n.id for n in ast.walk(answer.tree) if isinstance(n, ast.Name)}
    taken = {n for i in answer.imports for n in i.names} | used
    out: list[Finding] = []
    for imp in answer.imports:
        path = module_file(imp.module, roots)
        symbols = module_symbols(path) if path is not None else None
        if not symbols:
            continue
        for name in imp.names:
            if name not in symbols or name not in used:
                continue
            for sibling in sorted(symbols - taken):
                part = _added(name, sibling, taken)
                if len(part) >= 2 and part.lower() in words and part.lower() not in name.lower():
                    out.append(Finding(checker, "sibling-name", say("sibling-name", name=name, module=imp.module,
                                                                    sibling=sibling, word=part),
                                       severity=WARNING, line=imp.line, target=name, suggestion=sibling))
                    break
    return out
