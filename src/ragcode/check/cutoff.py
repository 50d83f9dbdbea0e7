"""A Python answer cut off mid-statement, most often by the model's token limit
(``generation.llm.max_tokens``), made to parse: its open brackets closed after its last whole line.

An answer that copies a README example with long comments stops inside a call
(``ReformerLM(num_tokens=32000, ..., ff_chunks=200, # number of chunks``): Python refuses all of
it. ``completed`` keeps the longest run of its first lines that, with the brackets still open
closed on a line of their own, parses. Only the statement the error points into may lose lines
(from the line that opened what was never closed, or the last line), so an error in the middle of
an answer is left as it is. The brackets are read with the standard library's ``tokenize``, so
strings and comments never count; an unterminated string is not completed. An answer nested past
the parser (``MemoryError``, ``RecursionError``) is not completed either, and at most
``MAX_DROPPED`` lines are tried away.
"""

from __future__ import annotations

import ast
import io
import tokenize

_OPENERS = {"(": ")", "[": "]", "{": "}"}
MAX_DROPPED = 200  # lines the cut statement may lose, at most: each try is a parse
_REFUSED = (SyntaxError, ValueError, MemoryError, RecursionError)


def _closing(text: str) -> str | None:
    """The closers of the brackets ``text`` leaves open, innermost first; None when a string is
    left open or a closer does not match."""
    stack: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in _OPENERS:
                stack.append(_OPENERS[tok.string])
            elif tok.type == tokenize.OP and tok.string in ")]}":
                if not stack or stack.pop() != tok.string:
                    return None
    except tokenize.TokenError as exc:
        if "string" in str(exc.args[0]).lower():
            return None
    except (SyntaxError, MemoryError, RecursionError):
        return None
    return "".join(reversed(stack))


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except _REFUSED:
        return False
    return True


def completed(code: str) -> str | None:
    """``code`` made to parse when it was cut off mid-statement; None when it parses, when its
    error is not where it ends, or when no run of its first lines can be closed."""
    try:
        ast.parse(code)
        return None
    except SyntaxError as exc:
        error = exc
    except (ValueError, MemoryError, RecursionError):
        return None
    lines = code.rstrip().split("\n")
    cut = "never closed" in (error.msg or "") or "EOF" in (error.msg or "") or (error.lineno or 0) >= len(lines)
    if not cut or not error.lineno:
        return None
    first = max(min(error.lineno, len(lines)), len(lines) - MAX_DROPPED)  # the cut statement keeps its first line
    for k in range(len(lines), first - 1, -1):
        head = "\n".join(lines[:k]).rstrip().rstrip(",\\").rstrip()
        closing = _closing(head)
        if closing is None or not closing and k == len(lines):
            continue
        text = f"{head}\n{closing}" if closing else head
        if _parses(text):
            return text
    return None
