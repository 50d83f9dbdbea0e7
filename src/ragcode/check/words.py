"""The one vocabulary and number grammar the checks read instructions and answers with.

``STOPWORDS`` is the one list of English function words (bm25s's English list, the one retrieval
uses, plus ``use``): instruction words that say nothing of the task. The number grammar is one
set of patterns: what an int and a float look like (``number_kind``; a flag's ``type`` is judged
by it), a word that starts like a negative number (a value, not a flag: ``--lr -5.0``), a number
inside prose (``NUMBER_IN_TEXT``: not the ``5.`` ending a sentence) and in code (``NUMBER_IN_CODE``:
there ``1.`` is the float 1), and ``300,000`` read as
``300000``. ``FILE_END`` is a file name's ending, which makes a value a file.
"""

from __future__ import annotations

import functools
import re

_EXPONENT = r"(?:[eE][-+]?\d+)?"
INT = re.compile(r"[-+]?\d+")
FLOAT = re.compile(rf"[-+]?(?:\d+\.?\d*|\.\d+){_EXPONENT}")
_SPECIAL_FLOAT = re.compile(r"[-+]?(inf|nan)")
NUMBER_IN_TEXT = re.compile(rf"(?<![\w.-])[-+]?(?:\d+\.\d+|\d+|\.\d+){_EXPONENT}(?![\w.])")
# a number in an answer's code: as in prose, and a float written with its point last (``--max_scale 1. 0.14``)
NUMBER_IN_CODE = re.compile(rf"(?<![\w.-])[-+]?(?:\d+\.\d*|\d+|\.\d+){_EXPONENT}(?![\w.])")
_NEGATIVE = re.compile(r"-\.?\d")
_THOUSANDS = re.compile(r"(?<=\d),(?=000\b)")  # 300,000 (not a tuple such as 256,320)
# a file name's ending (``.json``, ``.pth``; group 1 the suffix): what makes a value a file
FILE_END = re.compile(r"\.([A-Za-z][A-Za-z0-9]{0,4})$")


def pathlike(value: str) -> bool:
    """``value`` is a path or a file name: it has a slash or a file ending."""
    return "/" in value or bool(FILE_END.search(value))


def number_kind(word: str) -> str:
    """``"int"``, ``"float"`` (any other number: ``0.5``, ``1e-4``, ``5.``) or ``""``."""
    if INT.fullmatch(word):
        return "int"
    return "float" if FLOAT.fullmatch(word) else ""


def is_float(word: str) -> bool:
    """What a float-typed flag accepts: a number, ``inf`` or ``nan``."""
    return bool(FLOAT.fullmatch(word) or _SPECIAL_FLOAT.fullmatch(word))


def looks_negative(word: str) -> bool:
    """``-5``, ``-.5``: a negative number, so a value and not a flag."""
    return bool(_NEGATIVE.match(word))


def number_value(word: str) -> float | None:
    try:
        return float(word)
    except ValueError:
        return None


def without_thousands(text: str) -> str:
    """``300,000`` as ``300000`` (not a tuple such as ``256,320``)."""
    return _THOUSANDS.sub("", text)


@functools.lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN_PLUS  # a core dependency, already loaded by retrieval

    return frozenset(STOPWORDS_EN_PLUS) | {"use"}
