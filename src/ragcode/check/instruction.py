"""The instruction, read once per task: its values (with their kind and spelling), its words,
its content words and its capitalised names.

Every check and fix that reads the instruction reads this (``read_instruction``, cached by the
instruction's text), so the instruction is tokenised one way: values are what the coverage check
asks an answer to mention (numbers such as ``0.0001`` and ``300,000``, quoted strings, code-like
words such as ``cifar10``, ``ViT-B-32``, ``./data/x``, ``resnet_50``, ``LightTS``, ``UEA``: anything
with a digit, an inner ``_ . / -``, a capital after a small letter, or two or more capitals; not
hyphenated prose, not a parameter's name: one followed by "argument", "set to"..., or a
snake_case word right after a number or right before a value: "13 num_classes", "fold_index 0",
"the task_type as 'next'"); ``words`` are its letters-and-digits tokens;
``content_words`` those of four letters or more that are neither stopwords nor words every task
says; ``names`` the capitalised words inside a sentence (``Autoformer``); ``kind`` the kind of
answer the user asks for in so many words (``asked_kind``: "In Python, ..." -> ``python``, "a bash
command" -> ``bash``), empty when they do not say or say both.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ragcode.asked import asked_kind
from ragcode.check.words import NUMBER_IN_TEXT, number_kind, number_value, stopwords, without_thousands


@dataclass(frozen=True)
class Value:
    """A value the instruction names: as spelled, its kind (``int``, ``float``, ``quoted``,
    ``word``, ``measure``, ``range``) and what it is worth as a number (None: it is none; a quoted ``'100'``
    is 100). A ``measure`` is a number said with its unit or as a size (``128-dim``, ``3-layer``,
    ``512-pixel``, ``64x64``, ``75%``); a ``range`` two numbers joined by a dash (``0.14-1``,
    often two parameters). ``numbers`` holds the numbers it says (for a percentage,
    either form: 75 and 0.75)."""

    spelling: str
    kind: str
    number: float | None = None
    numbers: tuple[float, ...] = ()


@dataclass(frozen=True)
class Instruction:
    text: str
    values: tuple[Value, ...]
    words: frozenset[str]
    content_words: frozenset[str]
    names: tuple[str, ...]
    kind: str = ""

    @property
    def spellings(self) -> list[str]:
        return [v.spelling for v in self.values]


@functools.lru_cache(maxsize=512)
def read_instruction(text: str) -> Instruction:
    """``text`` read once (every check and fix of a task asks for it)."""
    low = text.lower()
    content = frozenset(re.findall(r"[a-z]{4,}", low)) - stopwords() - TASK_WORDS
    return Instruction(text, read_values(text), frozenset(re.findall(r"[a-z0-9]+", low)), content,
                       tuple(proper_names(text)), asked_kind(text))


def instruction_values(instruction: str) -> list[str]:
    """The literal values an instruction names, in order, without repeats."""
    return read_instruction(instruction).spellings


# words every task says: no evidence of what this one asks
TASK_WORDS = frozenset("""task code script write model data image images would could should please help need want
like using into your about there their which these those what when where will shall also""".split())
# a quote opens and closes at a word boundary, so the apostrophes of "I've ... that's" are not quotes
_QUOTED = re.compile(r"""(?<![A-Za-z0-9])'([^'\n]{1,60})'(?![A-Za-z0-9])|"([^"\n]{1,60})"|`([^`\n]{1,60})`|“([^”\n]{1,60})”""")
_LIST_MARKER = re.compile(r"(?m)^[ \t]*\d+[.)](?=\s)")  # "1. First ..." in an enumerated instruction
_HYPHENATED_PROSE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")  # cutting-edge, pre-training, Lyric-to-Melody
# a word right after a value that says it is a parameter's name, not a value ('task_type' argument)
_NAME_WORDS = {"argument", "arguments", "parameter", "parameters", "flag", "flags", "option", "options",
               "arg", "args", "field", "key", "variable", "setting", "hyperparameter"}
# ... or a phrase after it that gives it a value: 'model' set to 'pointnet', 'epochs' should be ...
_NAME_FOLLOWED_BY = re.compile(r"[\s'\"`]*(?:set\s+to|should\s+be|must\s+be|with\s+a\s+value|=|:)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")
# a snake_case name, and a value right after it (a number or a quoted word, maybe after "as")
_SNAKE = re.compile(r"[a-z]+(?:_[a-z]+)+")
_VALUE_NEXT = re.compile(r"\s+(?:as\s+|of\s+)?(?:['\"`]|-?\d)")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}")
# a number with its unit (128-dim, 3-layer, 512-pixel) or a size (64x64, 512x512x3)
_MEASURE = re.compile(r"(\d+(?:\.\d+)?)-[a-z]{2,}|(\d+)x(\d+)(?:x(\d+))?")
_HARDWARE = re.compile(r"(\d+)-(?:GPUs?|CPUs?|TPUs?)")  # an 8-GPU machine: a count with its unit
_RANGE = re.compile(r"(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)")  # scales 0.14-1: two numbers, often two parameters
# what comes right before a value the user does not want: "the GPT-2 pattern instead of the GPT-4 one"
_NOT_WANTED = re.compile(r"\b(?:instead\s+of|rather\s+than|other\s+than)\s+(?:the\s+|a\s+|an\s+)?$", re.IGNORECASE)
# a name turned into a description: GPT-like, BERT-style, CNN-based
_DESCRIBED = re.compile(r".*[A-Za-z0-9]-(?:like|style|based|only|sized|ish|free|aware|inspired)", re.IGNORECASE)
# a version of the name before it: "MoCo v2", "YOLO v8.1"
_VERSION = re.compile(r"v\d+(?:\.\d+)*")
# capitals that are prose, not values
PROSE_WORDS = {"I", "AI", "ML", "GPU", "GPUS", "CPU", "CUDA", "ID", "IDS", "URL", "API", "OK", "PDF", "README",
          "NLP", "CV", "AND", "OR", "THE", "A", "IT", "UI", "DL"}


def read_values(instruction: str) -> tuple[Value, ...]:
    """The literal values an instruction names, in order, without repeats, with their kind."""
    out: list[Value] = []
    text = _LIST_MARKER.sub(" ", without_thousands(instruction))

    def add(v: str, end: int, start: int = -1, kind: str = "word", numbers: tuple[float, ...] = ()) -> None:
        v = v.strip().rstrip(".,;:!?)").lstrip("(")
        following = re.match(r"[\s'\"`]*([A-Za-z]+)", text[end:])
        if following and following.group(1).lower() in _NAME_WORDS or _NAME_FOLLOWED_BY.match(text[end:]):
            return
        if kind == "word" and _SNAKE.fullmatch(v) and start >= 0 and (
                re.search(r"\d\s+$", text[:start]) or _VALUE_NEXT.match(text[end:])):
            return  # a parameter's name between its value and the prose: "13 num_classes", "fold_index 0"
        before = re.search(r"([A-Za-z]+)[\s'\"`]*$", text[:start]) if start >= 0 else None
        if before and before.group(1).lower() in _NAME_WORDS or start >= 0 and _NOT_WANTED.search(text[:start]):
            return
        if v and v not in [x.spelling for x in out] and v.upper() not in PROSE_WORDS and len(v.split()) <= 4:
            out.append(Value(v, number_kind(v) or kind, number_value(v), numbers))

    for m in _QUOTED.finditer(text):
        add(next(g for g in m.groups() if g), m.end(), m.start(), "quoted")
    rest = _QUOTED.sub(lambda m: " " * len(m.group()), text)
    for m in _WORD.finditer(rest):
        w = m.group().rstrip(".:-").lstrip(":-")
        if not w:
            continue
        if re.match(r"-\d", m.group()) and (m.start() == 0 or rest[m.start() - 1] in " \t(\n"):
            w = "-" + w  # a negative number: "a threshold of -5.0"
        if NUMBER_IN_TEXT.fullmatch(w) and rest[m.end():m.end() + 1] == "%":
            n = float(w)  # a percentage: 75 or 0.75, as the script takes it
            add(w + "%", m.end() + 1, m.start(), "measure", (n, n / 100))
        elif NUMBER_IN_TEXT.fullmatch(w):
            add(w, m.end(), m.start(), "number")
        elif _HYPHENATED_PROSE.fullmatch(w) and not _CAMEL.search(w) or _DESCRIBED.fullmatch(w):
            continue
        elif _VERSION.fullmatch(w) and re.search(r"[A-Z][\w-]*\s+$", rest[:m.start()]):
            continue  # MoCo v2: which of the method's versions, said by its flags, not a value
        elif measure := _MEASURE.fullmatch(w) or _HARDWARE.fullmatch(w):
            add(w, m.end(), m.start(), "measure", tuple(float(g) for g in measure.groups() if g))
        elif ends := _RANGE.fullmatch(w):
            add(w, m.end(), m.start(), "range", (float(ends.group(1)), float(ends.group(2))))
        elif re.search(r"\d", w) and re.search(r"[A-Za-z]", w) or re.search(r"\w[_./-]\w", w) or _CAMEL.search(w):
            if not re.fullmatch(r"\d+(st|nd|rd|th|s|D|d|x)", w):  # 1st, 2D, 4x: prose
                add(w, m.end(), m.start())
    return tuple(out)



def proper_names(instruction: str) -> list[str]:
    """Capitalised words inside a sentence (``Autoformer``, ``Citeseer``): maybe a model's or a
    dataset's name, which the coverage check does not count as a value; filled only where a
    flag's name says so plainly (``the Autoformer model`` -> ``--model``)."""
    out = []
    for m in re.finditer(r"(?<=[a-z0-9,:] )[A-Z][a-z]+[A-Za-z0-9]*\b(?!['-])", instruction):
        if m.group() not in out and m.group().upper() not in PROSE_WORDS:
            out.append(m.group())
    return out
