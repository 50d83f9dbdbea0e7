"""Deterministic fixes for slips whose correction is certain, applied before any model round.

Only these kinds, where the finding names exactly one real spelling that differs in form or by a
slip of one letter, not in meaning:
- an ``unknown-flag`` whose suggestion is the same name up to ``-``/``_``/case
  (``--batch-size`` -> ``--batch_size``) or the one flag of the script a letter away from it
  (``--resme`` -> ``--resume``, ``--batchsize`` -> ``--batch_size``; ``ragcode.check.args.one_slip``:
  names of five letters or more, the checker suggests none when two flags are that near);
- an ``unknown-script`` whose suggestion is a file of the same name reached by another path
  (``implementations/gan/gan.py`` run from ``implementations/gan`` -> ``gan.py``);
- a ``wrong-launcher``: a shell script run by python (``python run.sh`` -> ``bash run.sh``);
- an ``unknown-script`` ``X.py`` run by python whose suggestion is the shell script ``X.sh`` of
  the same folder (``python -u train_genre.py a b`` -> ``bash train_genre.sh a b``);
- a ``cd-from-root``: ``cd implementations/gan`` written for a shell at the repository's root
  while the task starts inside it -> the same folder reached from the task's folder
  (``cd ../wgan_div``), or no ``cd`` at all when that folder is where the task starts;
- an ``unknown-module`` run with ``python -m`` that the repository has as a script file, one
  of that name (``python -m lm_design`` -> ``python examples/lm-design/lm_design.py``);
- a ``respelled-value``: a value of the instruction written with other separators or case, in a
  string or an argument (``'ViT-g/14'`` -> ``'ViT-g-14'``), written as the user spelled it;
- an ``unimported-module`` (Python): a module's name read but never bound gets its
  ``import NAME`` where the answer's imports stand (``ragcode.check.unbound``); an
  ``unimported-name``, a class or function of the repository that one module beside the answer's
  imports defines, gets ``from MODULE import NAME``;
- a ``positional-as-flag``: the script's next positional argument written as a flag
  (``--ckpt x.pt`` for the positional ``ckpt``) loses the flag's name, its value staying where
  it stands;
- a ``single-dash-flag``: a long flag written with one dash where the parser would read the short
  option of its first letter with a glued value (``-only_center_face`` -> ``--only_center_face``);
- a ``misbound-positional`` (Python): variables named after other parameters of the callee passed
  in positional places (``Unet1D(dim, dim_mults, channels)``) written as keywords
  (``dim_mults=dim_mults, channels=channels``), as the dry run bound them;
- a ``switch-value``: a switch given ``True`` (``--flip True`` -> ``--flip``) or ``False``
  (``--flip False`` taken out), which the parser would read as a positional;
- a ``foreign-name`` (Python): a name imported from a package that lacks it, which one module of
  the repository defines, imported from there instead (``from transformers import Transformer``
  -> ``from model import Transformer``), its alias kept;
- a ``syntax-error`` of a Python answer cut off mid-statement (the model's token limit): its open
  brackets closed after its last whole line (``ragcode.check.cutoff``);
- a ``spaced-config-value``: a key of a ``sys.argv`` configurator given its value after a space
  (``--batch_size 32``), which the configurator reads as a file to run, joined to it
  (``--batch_size=32``);
- a ``missing-flag-value`` of a flag parsed as a bool (``type=bool``, ``str2bool``) given bare,
  as a switch: ``--noise`` -> ``--noise True``, which is what a bare switch means.
Everything else (a different word, a missing value) is left to the model. The word is replaced
as a whole shell word, so values and other commands are untouched.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from ragcode.check import Finding, moved_script
from ragcode.check.answer import call_at, char_column, read_answer
from ragcode.check.args import one_slip
from ragcode.check.unbound import add_import, unbound_names


def _same_flag(a: str, b: str) -> bool:
    norm = lambda s: s.lstrip("-").replace("-", "_").lower()  # noqa: E731
    return a.startswith("-") and b.startswith("-") and norm(a) == norm(b)


def fixable(f: Finding) -> tuple[str, str] | None:
    """``(wrong, right)`` when ``f`` has a certain correction, else None."""
    if f.code == "unknown-flag" and f.suggestion:
        wrong = f.message.split(" ", 1)[0]
        if _same_flag(wrong, f.suggestion) or one_slip(wrong, f.suggestion):
            return wrong, f.suggestion
    if f.code == "unknown-script" and moved_script(f.target, f.suggestion):
        return f.target, f.suggestion
    if f.code == "single-dash-flag" and f.suggestion:
        return f.target, f.suggestion
    if f.code == "wrong-launcher" and f.suggestion:
        return f.target, f.suggestion
    return None


def _shell_twin(f: Finding) -> bool:
    a, b = PurePosixPath(f.target), PurePosixPath(f.suggestion or "")
    return (f.code == "unknown-script" and a.suffix == ".py" and b.suffix == ".sh" and a.stem == b.stem
            and a.parent == b.parent)


_LAUNCHER = r"(?<![\w./-])(python[\d.]*(?:\s+-[A-Za-z]+)*)"  # python3 -u ...: the interpreter's options kept


def _first(code: str, pattern: str, make) -> tuple[str, tuple[str, str]] | None:
    """``code`` with the first match of ``pattern`` replaced by ``make(match)``, and the pair."""
    match = re.compile(pattern, re.MULTILINE).search(code)
    if match is None:
        return None
    right = make(match)
    return code[:match.start()] + right + code[match.end():], (match.group(0), right)


def _fix_cd(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    new = _re_cd(code, f.target, f.suggestion)
    return (new, (f"cd {f.target}", f"cd {f.suggestion}" if f.suggestion != "." else "")) if new != code else None


def _fix_module(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    if not f.suggestion.endswith(".py"):
        return None
    return _first(code, rf"{_LAUNCHER}\s+-m\s+{re.escape(f.target)}(?=\s|$)",  # python -m X -> python path/X.py
                  lambda m: f"{m.group(1)} {f.suggestion}")


def _fix_script(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    if _shell_twin(f):  # python [-u] X.py -> bash X.sh, the interpreter's own options dropped
        return _first(code, rf"{_LAUNCHER}\s+{re.escape(f.target)}(?=\s|$)", lambda m: f"bash {f.suggestion}")
    return _fix_word(code, f)


def _fix_bool(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    if f.suggestion != "True":
        return None
    flag = f.message.split(" ", 1)[0]
    return _first(code, rf"(?<![\w./-]){re.escape(flag)}(?=[ \t]+-|[ \t]*\\?\n|[ \t]*$|[ \t]*[;&|])",
                  lambda m: f"{flag} True")


def _fix_respelled(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    if not f.suggestion:
        return None
    pattern = rf"(?<![A-Za-z0-9_./:-]){re.escape(f.target)}(?![A-Za-z0-9_/]|[.:-][A-Za-z0-9_/])"
    return _replace_all(code, pattern, (f.target, f.suggestion))


def flag_word(flag: str) -> str:
    """The pattern of ``flag`` written as a whole shell word (``--lr`` in ``--lr 1`` or
    ``--lr=1``, not in ``--lr_decay`` or ``x--lr``); multiline."""
    return rf"(?<![\w./-]){re.escape(flag)}(?=[\s=]|$)"


def _fix_word(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    found = fixable(f)
    if found is None:
        return None
    return _replace_all(code, flag_word(found[0]), found)


def _fix_switch(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``--flip True`` -> ``--flip``; ``--flip False`` (and the space before it) -> nothing."""
    flag, _, word = f.target.partition(" ")
    if not flag or not word:
        return None
    pattern = rf"(?<![\w./-]){re.escape(flag)}[ \t]+{re.escape(word)}(?=\s|$)"
    if not f.suggestion:
        pattern = r"[ \t]*" + pattern
    return _replace_all(code, pattern, (f.target, f.suggestion))


def _fix_positional(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``--ckpt x.pt`` (or ``--ckpt=x.pt``) -> ``x.pt``, where it stands."""
    return _replace_all(code, rf"(?<![\w./-]){re.escape(f.target)}(?:[ \t]+|=)(?=[^\s-])", (f.target, ""))


def _fix_keywords(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``Unet1D(dim, dim_mults, channels)`` -> ``Unet1D(dim, dim_mults=dim_mults,
    channels=channels)``: the call named ``f.target`` on ``f.line`` gets the variables its
    suggestion lists, its last positional arguments, written as keywords."""
    names = [n for n in f.suggestion.split(",") if n]
    tree = read_answer(code, "python").tree
    if not names or tree is None:
        return None
    call = call_at(tree, f.line, f.target, lambda n: len(n.args) >= len(names)
                   and [getattr(a, "id", "") for a in n.args[-len(names):]] == names)
    if call is None:
        return None
    lines = code.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:  # ast columns count UTF-8 bytes
        return starts[lineno - 1] + char_column(lines[lineno - 1], col)

    new = code
    for arg in reversed(call.args[-len(names):]):
        a, b = offset(arg.lineno, arg.col_offset), offset(arg.end_lineno or arg.lineno, arg.end_col_offset or 0)
        new = new[:a] + f"{new[a:b]}={new[a:b]}" + new[b:]
    return new, (", ".join(names), ", ".join(f"{n}={n}" for n in names))


def _fix_import(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    if f.target not in {name for _, name in unbound_names(code)}:  # already imported
        return None
    source = f.suggestion.removeprefix("from ").split(" import ")[0] if f.suggestion.startswith("from ") else ""
    return add_import(code, f.target, source), (f.target, f.suggestion or f"import {f.target}")


def _fix_foreign(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``from PKG import A, NAME as X`` -> ``from PKG import A`` and ``from SOURCE import NAME as X``
    on the next line (``f.suggestion`` is ``from SOURCE import NAME``)."""
    tree = read_answer(code, "python").tree
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.lineno == f.line
                 and any(a.name == f.target for a in n.names)), None) if tree is not None else None
    if node is None or not f.suggestion.startswith("from "):
        return None
    lines = code.splitlines(keepends=True)
    first = lines[node.lineno - 1]
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    spell = lambda a: a.name + (f" as {a.asname}" if a.asname else "")  # noqa: E731
    kept = [spell(a) for a in node.names if a.name != f.target]
    alias = next(a.asname for a in node.names if a.name == f.target)
    new = [f"{indent}from {'.' * node.level}{node.module or ''} import {', '.join(kept)}\n"] if kept else []
    new.append(f"{indent}{f.suggestion}{f' as {alias}' if alias else ''}\n")
    fixed = "".join(lines[:node.lineno - 1] + new + lines[node.end_lineno or node.lineno:])
    return fixed, (f"from {node.module} import {f.target}", f.suggestion)


def _fix_joined(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``--key value`` on the finding's line written ``--key=value`` (the suggestion is ``--key=``)."""
    lines = code.split("\n")
    at = f.line - 1 if 0 < f.line <= len(lines) else None
    spaced = re.compile(flag_word(f.target) + r"[ \t]+(?=[^\s-]|-[^-])")
    for i in ([at] if at is not None else range(len(lines))):
        if spaced.search(lines[i]):
            lines[i] = spaced.sub(f.suggestion, lines[i], count=1)
            return "\n".join(lines), (f"{f.target} ", f.suggestion)
    return None


def _fix_cut(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    from ragcode.check.cutoff import completed

    text = completed(code)
    if text is None:
        return None
    return text, (code.rstrip().rsplit("\n", 1)[-1].strip(), text.rsplit("\n", 1)[-1].strip())


def _replace_all(code: str, pattern: str, pair: tuple[str, str]) -> tuple[str, tuple[str, str]] | None:
    new = re.compile(pattern, re.MULTILINE).sub(lambda _: pair[1], code)  # every place it is written
    return (new, pair) if new != code else None


# the certain correction of each code whose rule declares one (``fix="certain"`` in
# ``ragcode.check.rules``; a test keeps the two equal)
CERTAIN_FIXES: dict[str, Callable[[str, Finding], tuple[str, tuple[str, str]] | None]] = {
    "cd-from-root": _fix_cd, "unknown-module": _fix_module, "unknown-script": _fix_script,
    "missing-flag-value": _fix_bool, "respelled-value": _fix_respelled, "unknown-flag": _fix_word,
    "wrong-launcher": _fix_word, "unimported-module": _fix_import, "unimported-name": _fix_import,
    "switch-value": _fix_switch, "positional-as-flag": _fix_positional, "single-dash-flag": _fix_word,
    "misbound-positional": _fix_keywords, "syntax-error": _fix_cut, "foreign-name": _fix_foreign,
    "spaced-config-value": _fix_joined,
}


def _fix_one(code: str, f: Finding) -> tuple[str, tuple[str, str]] | None:
    """``code`` with ``f``'s certain correction, and the ``(wrong, right)`` pair; None when ``f``
    has none or it does not apply."""
    fixer = CERTAIN_FIXES.get(f.code)
    return fixer(code, f) if fixer is not None else None


def autofix(code: str, findings: list[Finding]) -> tuple[str, list[tuple[str, str]]]:
    """``code`` with every certain correction applied, and the ``(wrong, right)`` pairs used."""
    done: list[tuple[str, str]] = []
    for f in findings:
        fixed = _fix_one(code, f)
        if fixed is not None and fixed[1] not in done:
            code = fixed[0]
            done.append(fixed[1])
    return code, done


def _re_cd(code: str, target: str, there: str) -> str:
    """``cd TARGET`` made ``cd THERE``; dropped (with the ``&&``/``;`` after it, or its line) when
    THERE is ``.``."""
    cd = rf"(?<![\w./-])cd\s+{re.escape(target)}(?=[\s;&|)]|$)"
    if there != ".":
        return re.sub(cd, lambda _: f"cd {there}", code, count=1)
    alone = re.compile(rf"^[ \t]*{cd}[ \t]*(?:\n|$)", re.MULTILINE)
    if alone.search(code):
        return alone.sub("", code, count=1)
    return re.sub(rf"{cd}\s*(?:&&|;)\s*", "", code, count=1)
