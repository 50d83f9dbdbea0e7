"""Task coverage: literal values the instruction names that the answer never mentions.

Read from the instruction only (never a task's arguments, output or oracle): numbers
(``0.0001``, ``100``, ``1e-4``), quoted strings, and code-like words (``cifar10``,
``ViT-B-32``, ``./data/x``, ``resnet_50``, ``LightTS``, ``UEA``): anything with a digit, an inner
``_ . / -``, a capital after a small letter, or two or more capitals; not hyphenated prose
(``cutting-edge``, ``pre-training``), not a word followed by "argument", "parameter", "flag"...
(that is a name, not a value). A number counts as mentioned when the answer has a number of the
same value (``1e-4`` for ``0.0001``, ``300000`` for ``300,000``); a word when the answer, or the
folder it runs in, contains it case-insensitively and up to separators (``CorrectAndSmooth`` in
``examples/correct_and_smooth``). ML-Bench's own argument check is a lower-cased substring test.
A value said only up to separators, in a string or an argument (``ViT-g/14`` for ``ViT-g-14``),
is a ``respelled-value``: autofix writes it the user's way.
"""

from __future__ import annotations

import ast
import re

from ragcode.check import WARNING, CheckContext, Finding
from ragcode.shell import logical_lines, split_commands, split_prefix

_NUMBER = re.compile(r"(?<![\w.-])[-+]?(?:\d+\.\d+|\d+|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# a quote opens and closes at a word boundary, so the apostrophes of "I've ... that's" are not quotes
_QUOTED = re.compile(r"""(?<![A-Za-z0-9])'([^'\n]{1,60})'(?![A-Za-z0-9])|"([^"\n]{1,60})"|`([^`\n]{1,60})`|“([^”\n]{1,60})”""")
_THOUSANDS = re.compile(r"(?<=\d),(?=000\b)")  # 300,000 (not a tuple such as 256,320)
_LIST_MARKER = re.compile(r"(?m)^[ \t]*\d+[.)](?=\s)")  # "1. First ..." in an enumerated instruction
_HYPHENATED_PROSE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")  # cutting-edge, pre-training, Lyric-to-Melody
# a word right after a value that says it is a parameter's name, not a value ('task_type' argument)
_NAME_WORDS = {"argument", "arguments", "parameter", "parameters", "flag", "flags", "option", "options",
               "arg", "args", "field", "key", "variable", "setting", "hyperparameter"}
# ... or a phrase after it that gives it a value: 'model' set to 'pointnet', 'epochs' should be ...
_NAME_FOLLOWED_BY = re.compile(r"[\s'\"`]*(?:set\s+to|should\s+be|must\s+be|with\s+a\s+value|=|:)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}")
# capitals that are prose, not values
PROSE_WORDS = {"I", "AI", "ML", "GPU", "GPUS", "CPU", "CUDA", "ID", "IDS", "URL", "API", "OK", "PDF", "README",
          "NLP", "CV", "AND", "OR", "THE", "A", "IT", "UI", "DL"}


def without_thousands(text: str) -> str:
    """``300,000`` as ``300000`` (not a tuple such as ``256,320``)."""
    return _THOUSANDS.sub("", text)


def instruction_values(instruction: str) -> list[str]:
    """The literal values an instruction names, in order, without repeats."""
    out: list[str] = []
    text = _LIST_MARKER.sub(" ", without_thousands(instruction))

    def add(v: str, end: int, start: int = -1) -> None:
        v = v.strip().rstrip(".,;:!?)").lstrip("(")
        following = re.match(r"[\s'\"`]*([A-Za-z]+)", text[end:])
        if following and following.group(1).lower() in _NAME_WORDS or _NAME_FOLLOWED_BY.match(text[end:]):
            return
        before = re.search(r"([A-Za-z]+)[\s'\"`]*$", text[:start]) if start >= 0 else None
        if before and before.group(1).lower() in _NAME_WORDS:
            return
        if v and v not in out and v.upper() not in PROSE_WORDS and len(v.split()) <= 4:
            out.append(v)

    for m in _QUOTED.finditer(text):
        add(next(g for g in m.groups() if g), m.end(), m.start())
    rest = _QUOTED.sub(lambda m: " " * len(m.group()), text)
    for m in _WORD.finditer(rest):
        w = m.group().rstrip(".:-").lstrip(":-")
        if not w:
            continue
        if re.match(r"-\d", m.group()) and (m.start() == 0 or rest[m.start() - 1] in " \t(\n"):
            w = "-" + w  # a negative number: "a threshold of -5.0"
        if _NUMBER.fullmatch(w):
            add(w, m.end(), m.start())
        elif _HYPHENATED_PROSE.fullmatch(w) and not _CAMEL.search(w):
            continue
        elif re.search(r"\d", w) and re.search(r"[A-Za-z]", w) or re.search(r"\w[_./-]\w", w) or _CAMEL.search(w):
            if not re.fullmatch(r"\d+(st|nd|rd|th|s|D|d|x)", w):  # 1st, 2D, 4x: prose
                add(w, m.end(), m.start())
    return out


def _squash(text: str) -> str:
    """Lower case without separators: CorrectAndSmooth ~ correct_and_smooth ~ correct-and-smooth."""
    return re.sub(r"[\s_./-]+", "", text.lower())


def _number(v: str) -> float | None:
    try:
        return float(v)
    except ValueError:
        return None


_TOKEN = re.compile(r"[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")


def _value_places(code: str, answer_type: str) -> list[str]:
    """Where a value stands in an answer: its string literals (Python; none when it does not
    parse), its commands' arguments, not the commands (bash)."""
    if answer_type == "python":
        try:
            return [n.value for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Constant)
                    and isinstance(n.value, str)]
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return []
    return [w for _, line in logical_lines(code) for words in split_commands(line) for w in split_prefix(words)[1][1:]]


def _respelled(places: list[str], value: str) -> str:
    """The value's word as the answer writes it in one of its ``places`` when that differs from
    the instruction only in case and separators (``ViT-g/14`` for ``ViT-g-14``, ``/usr/image``
    for ``./usr/image``). Empty when there is none, or the value has spaces."""
    if re.search(r"\s", value):
        return ""
    for place in places:
        for m in _TOKEN.finditer(place):
            if m.group() != value and _squash(m.group()) == _squash(value):
                return m.group()
    return ""


class CoverageChecker:
    name = "coverage"

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        if not ctx.instruction:
            return []
        text = code.lower()
        squashed = _squash(code) + " " + _squash(ctx.workdir)  # the folder it runs in names a model too
        numbers = {x for x in (_number(t) for t in _NUMBER.findall(code)) if x is not None}
        found = []
        places: list[str] | None = None  # read once, when a value needs them
        for v in instruction_values(ctx.instruction):
            n = _number(v)
            if n is not None and n in numbers:
                continue
            if n is None and v.lower() in text:
                continue
            if n is None and _squash(v) in squashed:
                places = _value_places(code, answer_type) if places is None else places
                wrong = _respelled(places, v)
                if wrong:  # said, but not as the user spelled it: ViT-g/14 for ViT-g-14
                    found.append(Finding(self.name, "respelled-value", f"the instruction spells it {v!r}; the "
                                         f"answer writes {wrong!r}", severity=WARNING, target=wrong, suggestion=v))
                continue
            if n is not None and re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", code):
                continue
            found.append(Finding(self.name, "missing-value",
                                 f"the instruction names {v!r}, which the answer never mentions",
                                 severity=WARNING, target=v))
        return found
