"""Choosing the sibling script the instruction names: ``python test_pointnet.py ...`` becomes
``python test_masknet.py ...`` when the task says "test the masknet model".

Repositories that keep one script per model and stage side by side (``examples/train_pcn.py``,
``examples/test_masknet.py``, ``train_PointNetLK.py``) make a small model copy the script its
context showed, not the one the task names. ``retarget_script`` looks at the one Python script a
bash answer runs and at the other ``.py`` files of its folder. When the instruction does not say
every word of the called script's name but says every word of a sibling's (``test`` and
``masknet``, as words, ``testing`` counting for ``test``; one of them more than a word every task
says, like ``model`` or ``main``) and the sibling has a command line of its own, the call is
moved to that sibling; among several, to the one keeping most of the called script's words; a
tie moves nothing. The answer's flags stay as they are; ``ragcode.answer.fixes.fix_answer`` keeps the
move only when the sibling's parser finds no more wrong than the old script's did.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ragcode.check import CheckContext
from ragcode.check.bash import resolved_calls
from ragcode.check.facts import script_flags
from ragcode.check.instruction import read_instruction

_ENDINGS = ("", "s", "e", "es", "ing", "ed", "er", "ion")
# words every instruction says: a sibling named only by them (model.py, main.py) is no sign
GENERIC_NAMES = frozenset({"model", "models", "main", "run", "train", "test", "eval", "evaluate", "demo", "utils", "util",
                      "data", "dataset", "config", "options", "common", "base", "setup", "example", "script", "new",
                      "modeling", "tools", "helper", "helpers", "inference", "predict", "app", "api", "core"})


def name_words(path: Path) -> set[str]:
    """The words of a script's name: ``train_PointNetLK.py`` -> {train, pointnetlk}."""
    return {w for w in re.split(r"[^a-z0-9]+", path.stem.lower()) if w and not w.isdigit()}


def _said(word: str, said: frozenset[str]) -> bool:
    return any(word + end in said for end in _ENDINGS) or (word.endswith("e") and word[:-1] + "ing" in said)


def _said_words(instruction: str) -> frozenset[str]:
    return read_instruction(instruction).words


def named_by(words: set[str], said: frozenset[str]) -> bool:
    """Every word of a script's name is said (an empty name is not)."""
    return bool(words) and all(_said(w, said) for w in words)


def retarget_script(code: str, ctx: CheckContext) -> str | None:
    """``code`` with its one script call moved to the sibling script the instruction names
    (see the module doc), or None when nothing moves."""
    calls = [s for s in resolved_calls(code, ctx) if s.call is not None and s.call.kind == "script"]
    if len(calls) != 1 or calls[0].path is None or calls[0].path.suffix != ".py":
        return None
    step = calls[0]
    assert step.call is not None and step.path is not None
    said = _said_words(ctx.instruction)
    own = name_words(step.path)
    if not own or named_by(own, said):
        return None
    repo = Path(ctx.repo_dir).resolve()
    folder = step.path.resolve().parent
    if repo != folder and repo not in folder.parents:
        return None
    fits = []
    for sib in sorted(folder.glob("*.py")):
        words = name_words(sib)
        if sib.name != step.path.name and words - GENERIC_NAMES and named_by(words, said) and script_flags(sib) is not None:
            fits.append((len(words & own), len(words), sib))
    if not fits:
        return None
    fits.sort(key=lambda f: f[:2], reverse=True)
    if len(fits) > 1 and fits[0][:2] == fits[1][:2]:
        return None  # two siblings fit as well: a guess
    target = step.call.target
    out = replace_word(code, target, sibling_target(target, fits[0][2].name))
    return out if out != code else None


def sibling_target(target: str, name: str) -> str:
    """The call's script path with its file name made ``name``: the folder the answer wrote stays."""
    return str(Path(target).parent / name) if "/" in target else name


def scripts_named(code: str, instruction: str) -> int:
    """How many of the Python scripts ``code`` runs have a name the instruction says in full."""
    from ragcode.shell import script_calls

    said = _said_words(instruction)
    return sum(1 for c in script_calls(code) if c.kind == "script" and c.target.endswith(".py")
               and named_by(name_words(Path(c.target)), said))


def replace_word(code: str, old: str, new: str, count: int = 1) -> str:
    """``old`` replaced by ``new`` where it stands as a whole shell word: the first ``count``
    places (0: every place)."""
    pattern = rf"(?<![\w./-]){re.escape(old)}(?![\w./-])"
    return re.sub(pattern, lambda _: shlex.quote(new) if " " in new else new, code, count=count)
