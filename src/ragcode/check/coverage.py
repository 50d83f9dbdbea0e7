"""Task coverage: literal values the instruction names that the answer never mentions.

Read from the instruction only (never a task's arguments, output or oracle): numbers
(``0.0001``, ``100``, ``1e-4``), quoted strings, and code-like words (``cifar10``,
``ViT-B-32``, ``./data/x``, ``resnet_50``, ``LightTS``, ``UEA``): anything with a digit, an inner
``_ . / -``, a capital after a small letter, or two or more capitals. A number counts as
mentioned when the answer has a number of the same value (``1e-4`` for ``0.0001``); a word when
the answer contains it, case-insensitively (ML-Bench's own argument check is a lower-cased
substring test).
"""

from __future__ import annotations

import re

from ragcode.check import WARNING, CheckContext, Finding

_NUMBER = re.compile(r"(?<![\w.-])[-+]?(?:\d+\.\d+|\d+|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_QUOTED = re.compile(r"""(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"|`([^`\n]{1,80})`|“([^”\n]{1,80})”)""")
_WORD = re.compile(r"[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}")
# capitals that are prose, not values
_PROSE = {"I", "AI", "ML", "GPU", "GPUS", "CPU", "CUDA", "ID", "IDS", "URL", "API", "OK", "PDF", "README",
          "NLP", "CV", "AND", "OR", "THE", "A", "IT", "UI", "DL"}


def instruction_values(instruction: str) -> list[str]:
    """The literal values an instruction names, in order, without repeats."""
    out: list[str] = []

    def add(v: str) -> None:
        v = v.strip().rstrip(".,;:!?)").lstrip("(")
        if v and v not in out and v.upper() not in _PROSE:
            out.append(v)

    rest = instruction
    for m in _QUOTED.finditer(instruction):
        add(next(g for g in m.groups() if g))
    rest = _QUOTED.sub(" ", instruction)
    for m in _WORD.finditer(rest):
        w = m.group().rstrip(".:-").lstrip(":-")
        if not w:
            continue
        if _NUMBER.fullmatch(w):
            add(w)
        elif re.search(r"\d", w) and re.search(r"[A-Za-z]", w) or re.search(r"\w[_./-]\w", w) or _CAMEL.search(w):
            if not re.fullmatch(r"\d+(st|nd|rd|th|s|D|d|x)", w):  # 1st, 2D, 4x: prose
                add(w)
    return out


def _number(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


class CoverageChecker:
    name = "coverage"

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        if not ctx.instruction:
            return []
        text = code.lower()
        numbers = {x for x in (_number(t) for t in _NUMBER.findall(code)) if x is not None}
        found = []
        for v in instruction_values(ctx.instruction):
            n = _number(v)
            if n is not None and n in numbers:
                continue
            if n is None and v.lower() in text:
                continue
            if n is not None and re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", code):
                continue
            found.append(Finding(self.name, "missing-value",
                                 f"the instruction names {v!r}, which the answer never mentions",
                                 severity=WARNING, target=v))
        return found
