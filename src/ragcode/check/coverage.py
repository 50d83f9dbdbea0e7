"""Task coverage: literal values the instruction names that the answer never mentions.

Read from the instruction only (never a task's arguments, output or oracle): numbers
(``0.0001``, ``100``, ``1e-4``), quoted strings, and code-like words (``cifar10``,
``ViT-B-32``, ``./data/x``, ``resnet_50``, ``LightTS``, ``UEA``): anything with a digit, an inner
``_ . / -``, a capital after a small letter, or two or more capitals; not hyphenated prose
(``cutting-edge``, ``pre-training``), not a word followed by "argument", "parameter", "flag"...
(that is a name, not a value). A number counts as mentioned when the answer has a number of the
same value (``1e-4`` for ``0.0001``, ``300000`` for ``300,000``); a word when the answer, or the
folder it runs in, contains it case-insensitively and up to separators (``CorrectAndSmooth`` in
``examples/correct_and_smooth``); the answer's comments are not read (``# ViT-Large`` over a
model built without it has not said it). ML-Bench's own argument check is a lower-cased substring test.
A value said only up to separators, in a string or an argument (``ViT-g/14`` for ``ViT-g-14``),
is a ``respelled-value`` (autofix writes it the user's way) only when the repository's code spells
it the user's way and never the answer's (``ragcode.check.spellings``): ``vit_h`` for ``ViT-H``
stands where the code registers ``"vit_h"``. A path (``./usr/image``) is the user's own and always
written their way, and so is a file the answer moved (``_wrapped``): ``checkpoint.pth`` put under
an absolute folder nobody named (``/path/to/checkpoint.pth``, ``~/checkpoint.pth``, ``~checkpoint.pth``), or ``images/content-images/a.jpg``
written under a folder that is not there (``content_images/a.jpg``). A value not found as written
is read by its meaning (``ragcode.check.meaning``: ``128-dim`` is said by ``--emsize 128``, a
flag's default is given anyway, a name no parameter of the answer's scripts could take is not
left out); where that cannot tell, nothing is said.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragcode.check import WARNING, CheckContext, Finding, say
from ragcode.check.instruction import PROSE_WORDS as PROSE_WORDS  # read from here too
from ragcode.check.instruction import instruction_values as instruction_values
from ragcode.check.answer import code_text, read_answer
from ragcode.check.instruction import read_instruction
from ragcode.check.meaning import said, squash
from ragcode.check.spellings import code_spells
from ragcode.check.words import NUMBER_IN_CODE, number_value, pathlike
from ragcode.check.words import without_thousands as without_thousands

_TOKEN = re.compile(r"~?[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")  # ~ too: ~/x and ~x are paths the answer wrote


def _respelled(places: list[str], value: str, repo: Path) -> str:
    """The value's word as the answer writes it in one of its ``places`` when that differs from
    the instruction only in case and separators (``ViT-g/14`` for ``ViT-g-14``, ``/usr/image``
    for ``./usr/image``) and the user's spelling is the right one: a path, or a word the
    repository's code spells the user's way and never the answer's. Empty when there is none,
    or the value has spaces."""
    if re.search(r"\s", value):
        return ""
    for place in places:
        for m in _TOKEN.finditer(place):
            if m.group() != value and squash(m.group()) == squash(value):
                return m.group() if _users_way(value, m.group(), repo) else ""
    return ""


def _users_way(value: str, wrong: str, repo: Path) -> bool:
    if value.startswith(("./", "../", "/", "~/")):
        return True
    return code_spells(repo, value) and not code_spells(repo, wrong)


def _wrapped(places: list[str], value: str, task_dir: Path) -> str:
    """The path the answer writes for the user's file ``value`` in one of its ``places`` when it
    moved it: the file named bare put under an absolute folder the user never named
    (``/path/to/checkpoint.pth`` for checkpoint.pth), or a file the user named by its folder
    (``images/content-images/amber.jpg``, there in the repository) written under another folder
    that is not there (``content_images/amber.jpg``). A URL, a path that exists, and a bare name
    put under a relative folder (``data/coco128.yaml``, ``checkpoints/x.pt``: the repository's own
    layout) are left alone. Empty when there is none."""
    if not pathlike(value) or value.startswith(("/", "~")) or "://" in value or re.search(r"\s", value):
        return ""
    bare, name = value.removeprefix("./"), value.rsplit("/", 1)[-1]
    for place in places:
        for m in _TOKEN.finditer(place):
            word = m.group()
            if word == value or "://" in word or word.removeprefix("./") == bare:
                continue
            if word.startswith(("/", "~/")) and word.endswith("/" + bare) or word == "~" + bare:
                return word  # /path/to/x.pth, ~/x.pth, or ~x.pth: a home folder glued on
            if ("/" in bare and word.rsplit("/", 1)[-1] == name and not word.startswith(("/", "~"))
                    and ".." not in f"{bare}/{word}".split("/")  # asked only inside the repository
                    and (task_dir / bare).exists() and not (task_dir / word).exists()):
                return word
    return ""


class CoverageChecker:
    name = "coverage"

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        if not ctx.instruction:
            return []
        runs = code_text(code, answer_type)  # a value retold in a comment lands in no parameter
        text = runs.lower()
        squashed = squash(runs) + " " + squash(ctx.workdir)  # the folder it runs in names a model too
        numbers = {x for x in (number_value(t) for t in NUMBER_IN_CODE.findall(runs)) if x is not None}
        found = []
        places: list[str] | None = None  # read once, when a value needs them
        for value in read_instruction(ctx.instruction).values:
            v, n = value.spelling, value.number
            if n is not None and n in numbers:
                continue
            if n is None and pathlike(v):
                places = read_answer(code, answer_type).value_places if places is None else places
                wrapped = _wrapped(places, v, ctx.task_dir)
                if wrapped:  # the user's file moved to a folder nobody named: /path/to/checkpoint.pth
                    found.append(Finding(self.name, "respelled-value", say("respelled-value", value=v, wrong=wrapped),
                                         severity=WARNING, target=wrapped, suggestion=v))
                    continue
            if n is None and v.lower() in text:
                continue
            if n is None and squash(v) in squashed:
                places = read_answer(code, answer_type).value_places if places is None else places
                wrong = _respelled(places, v, Path(ctx.repo_dir))
                if wrong:  # said, but not as the user spelled it: ViT-g/14 for ViT-g-14
                    found.append(Finding(self.name, "respelled-value", say("respelled-value", value=v, wrong=wrong),
                                         severity=WARNING, target=wrong, suggestion=v))
                continue
            if n is not None and re.search(rf"(?<![\d.]){re.escape(v)}(?!\d|\.\d)", runs):  # not 1 in 1.2
                continue
            if said(value, runs, answer_type, ctx, numbers) is not False:
                continue  # said in another form, or nothing can be told
            found.append(Finding(self.name, "missing-value", say("missing-value", value=v),
                                 severity=WARNING, target=v))
        return found
