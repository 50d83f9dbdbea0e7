"""Whether the instruction's values landed in parsed parameters, and the rule for keeping a fix.

A value lands when some parsed parameter holds it: the same text (case and quotes aside), the
same number (``1e-3`` and ``0.001``), an element of a list parameter (``--opts KEY VALUE``,
``nargs='+'``), the same path (``./data/x`` and ``data/x``; a path is never equal by its letters:
``~downloads/x`` is not ``downloads/x``), the end of a relative path (``coco128.yaml`` in ``data/coco128.yaml``; not
``images/a.jpg`` in ``content/a.jpg``, another file of the same name, nor ``a.pth`` in
``/path/to/a.pth``, a folder the user never named), or the same letters and
digits (``ViT-L`` and ``vit_l``, ``CIFAR-10`` and ``cifar10``; ``128-dim`` is 128), or one word of
it for a name with letters (``DiT`` in ``DiT-XL/2``, ``GPT-2`` in ``gpt2-xl``).

``keeps_fix(before, after, ...)`` is the one rule a fix must pass: refused when the repository's
parser refuses ``after``; refused when ``before`` was already accepted with every instruction
value in place, unless a call of it was bound with a variable in another parameter's place
(``misbound-positional``: accepted, yet the values went astray; a fix that binds them where they
are named is kept) (a right answer is never rewritten; the capitalised names of the instruction count
as values here, so "the Autoformer model" filled as ``--model Autoformer`` over another default
is a gain); when both parse, kept only when ``after`` places more of the instruction's values
than ``before`` and loses none (a respelling the parser happens to take, ``--arch ViT-Base`` for
``vit_base``, gains nothing and is refused). A move to another script (switch and retarget make
one only to a script the instruction or the passage names) is kept when the parser accepts it and
no placed value is lost. A fix that only adds ``import X`` lines to Python (a module read but never
bound: the answer stopped with ``NameError``) is kept. Values a Python answer hands to calls count only as written: binding a
call does not check them. Where no parser is reached, the dry run cannot tell and the fix is left
to the other rules.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ragcode.check import CheckContext
from ragcode.check.instruction import instruction_values, read_instruction
from ragcode.dryrun.result import ACCEPTED, REJECTED, ParseResult
from ragcode.dryrun.run import dry_run


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


_FLAG_VALUE = re.compile(r"^--?([A-Za-z][\w-]*)(?:\s+|=)(\S+)$")
_SIZED = re.compile(r"^(\d+(?:\.\d+)?)(?:-[a-z]+|x\1)$")  # 128-dim, 3-layer, 512-pixel, 64x64


def _forms(text: str) -> set[str]:
    """A value's spellings that mean the same: as written, letters and digits only (``ViT-L`` and
    ``vit_l``, ``CIFAR-10`` and ``cifar10``), the number of a sized word (``128-dim`` -> 128)."""
    low = text.strip().strip("'\"").lower()
    forms = {low, re.sub(r"[^a-z0-9]", "", low)}
    m = _SIZED.match(low)
    if m:
        forms.add(m.group(1))
    return {f for f in forms if f}


def _same(wanted: str, held: Any, exact: bool = False) -> bool:
    if held is None or isinstance(held, bool) and wanted.lower() not in ("true", "false"):
        return False
    text = str(held).strip().strip("'\"").lower()
    want = wanted.strip().strip("'\"").lower()
    if exact:  # as written (case aside), or the same number
        a, b = _number(want), _number(text)
        return want == text or a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9)
    bare = want.removeprefix("./")
    if len(bare) > 3 and not text.startswith(("/", "~")) and text.removeprefix("./").endswith("/" + bare):
        return True  # the file the user named, found under the script's folder: coco128.yaml in data/coco128.yaml
    if "/" in want and "://" not in want:  # a path is one path, not its letters: ~downloads/x is not downloads/x
        return os.path.normpath(want) == os.path.normpath(text)
    if _forms(want) & _forms(text):
        return True
    squeezed = re.sub(r"[^a-z0-9]", "", want)
    if len(squeezed) >= 3 and re.search(r"[a-z]", squeezed) and squeezed in re.split(r"[-_/.:\s]+", text):
        return True  # a family named by a part of the value: DiT in DiT-XL/2, GPT-2 in gpt2-xl
    numbers = [n for n in (_number(f) for f in _forms(want)) if n is not None]
    b = _number(text)
    return b is not None and any(math.isclose(a, b, rel_tol=1e-9) for a in numbers)


def lands(value: str, params: dict[str, Any], exact: bool = False) -> bool:
    """Whether some parameter holds ``value``; a compound name lands when each of its parts does
    (``ViT-Small/8``: ``--arch vit_small --patch_size 8``). ``exact``: only as written (case
    aside) or as the same number."""
    if any(_same(value, leaf, exact) for held in params.values() for leaf in _leaves(held)):
        return True
    if exact:
        return False
    flag = _FLAG_VALUE.match(value.strip())
    if flag:  # '--noise True': that parameter holds that value
        name = flag.group(1).replace("-", "_")
        return any(k.rsplit(":", 1)[-1] == name and _same(flag.group(2), v) for k, v in params.items())
    parts = value.split("/")
    return len(parts) > 1 and not value.startswith(("/", ".")) and all(p and lands(p, params) for p in parts)


def placed(results: list[ParseResult], instruction: str) -> tuple[list[str], list[str]]:
    """(values of the instruction held by a parsed parameter, values held by none) over the
    accepted results; all values count as not placed when nothing was accepted. Values given to a
    Python answer's calls must be as written: a bound call says nothing of what its callee
    accepts, so ``'ViT-g/14'`` does not place ViT-g-14 there."""
    values = instruction_values(instruction)
    values += [n for n in read_instruction(instruction).names if n not in values]  # the Autoformer model
    accepted = [r for r in results if r.status == ACCEPTED]
    exact = any(r.entry.kind == "calls" for r in results)
    hit = [v for v in values if lands_in(v, accepted, exact)]
    return hit, [v for v in values if v not in hit]


def lands_in(value: str, results: list[ParseResult], exact: bool = False) -> bool:
    """``lands`` over the parameters of ``results``. A number lands only in a parameter the
    command sets (or a call's argument): a default that happens to equal it (``--anomaly_ratio``
    0.25 beside the user's mask rate of 0.25) is not the user's value."""
    number = _number(value.strip().rstrip("%")) is not None or bool(_SIZED.match(value.strip().lower()))
    params: dict[str, Any] = {}
    for i, r in enumerate(results):
        keep = r.params.keys() if not number or r.entry.kind == "calls" else set(r.explicit)
        params.update({f"{i}:{k}": v for k, v in r.params.items() if k in keep})
    return lands(value, params, exact)


def accepted_with_values(results: list[ParseResult], instruction: str) -> bool:
    """Every entry point accepted and every instruction value in a parameter."""
    return bool(results) and all(r.status == ACCEPTED for r in results) and not placed(results, instruction)[1]


def keeps_fix(before: str, after: str, answer_type: str, ctx: CheckContext, runner: Any = None) -> bool:
    """Whether a fix turning ``before`` into ``after`` may be kept (see the module doc)."""
    if before == after or (answer_type == "python" and _adds_only_imports(before, after)):
        return True
    after_results = dry_run(after, answer_type, ctx, runner)
    if any(r.status == REJECTED for r in after_results):
        return False
    before_results = dry_run(before, answer_type, ctx, runner)
    if _entries(before_results) != _entries(after_results) and after_results:
        # moved to another script (switch and retarget move only to one the instruction or the
        # retrieved passage names): kept when the parser accepts it and no value is lost
        return set(placed(before_results, ctx.instruction)[0]) <= set(placed(after_results, ctx.instruction)[0])
    unbound = _any_misbound(before_results) and not _any_misbound(after_results)  # values put back in their places
    if accepted_with_values(before_results, ctx.instruction) and not unbound:
        return False
    if before_results and after_results and all(r.status == ACCEPTED for r in before_results + after_results):
        return unbound or set(placed(before_results, ctx.instruction)[0]) < set(placed(after_results, ctx.instruction)[0])
    return True


def _any_misbound(results: list[ParseResult]) -> bool:
    """A call of the results was bound with a variable in another parameter's place
    (``misbound-positional``): accepted, but not a right answer."""
    return any(isinstance(c.get("misbound"), dict) and c["misbound"] for r in results for c in r.calls)


def _adds_only_imports(before: str, after: str) -> bool:
    """``after`` is ``before`` with ``import X`` (or ``from M import X``) lines added and nothing
    else changed: the fix of a module or a repository name read unbound, which the dry run of the calls cannot see (binding a call does not
    run the answer's lines) and which no right answer needs."""
    added = Counter(after.splitlines()) - Counter(before.splitlines())
    return (not Counter(before.splitlines()) - Counter(after.splitlines())
            and all(re.fullmatch(r"(?:from [A-Za-z_][\w.]* )?import [A-Za-z_][\w.]*", line) for line in added))


def _entries(results: list[ParseResult]) -> list[tuple[str, str]]:
    """The scripts and modules the results ran (a Python answer's calls: none)."""
    return sorted((r.entry.kind, r.entry.target) for r in results if r.entry.kind != "calls")
