"""What an instruction asks for in so many words: a Python answer ("In Python, build ...", "a
Python snippet") or a command ("the bash command", "from the command line"). Read by retrieval
(a context for a Python answer keeps its code examples whole, ``ragcode.retrieval.packing``) and
by the checks (selection takes the asked kind over the first sample's, ``ragcode.answer.select``).
"""

from __future__ import annotations

import re

# the kind of answer said in so many words: "In Python, build ...", "a Python snippet", "from the
# command line", "a bash command"; a Python *script* is left out (it may be a file to run), and so
# is "with python train.py" (a command)
_ASKS_PYTHON = re.compile(r"\b(?:in|with|using)\s+python\b(?!\s+(?:scripts?\b|files?\b|-m\b|[\w./-]+\.py\b))"
                          r"|\bpython\s+(?:code|snippet|api|call)s?\b", re.IGNORECASE)
_ASKS_BASH = re.compile(r"\b(?:bash|shell)\b|\bcommand[- ]line\b|\bin\s+(?:a|the)\s+terminal\b", re.IGNORECASE)


def asked_kind(instruction: str) -> str:
    """``python`` or ``bash`` when the instruction asks for that kind of answer in so many words
    (the user's word outranks what a model's first sample guessed), ``""`` when it names neither
    or both."""
    python, bash = bool(_ASKS_PYTHON.search(instruction)), bool(_ASKS_BASH.search(instruction))
    return "python" if python and not bash else "bash" if bash and not python else ""
