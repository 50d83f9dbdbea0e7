"""Where a value the instruction names goes: the one flag of a script whose words name it.

The ``fill`` step (``ragcode.check.fill``) and its kin (``switch``, ``fill_calls``) ask this
module which flag a left-out value belongs to.

Which flag: the words of the value's sentence around it in the instruction (three before and two
after it weigh 1, up to ten before 0.5) are matched against the flag's name split into words
(``--n_epochs`` -> epochs; one-letter and filler parts dropped) and its help text: a word equal to
a name part, one a prefix of the other (``epoch``/``epochs``), an abbreviation (``img`` in
``image``, ``dir`` in ``directory``: the same first two letters, the rest in order) or the
initials of neighbouring words (``lr`` for "learning rate") counts. A flag with ``choices`` takes
only one of them, and then wins outright; an ``int`` flag takes only an integer, a ``float`` flag
a number, and a number goes to a flag that is numeric or untyped (or string-typed, ranked lower).
A flag that takes no value, or is already given a value the instruction names, is out, and so is a
flag that names one device (``--gpu``, ``--device``) for a count of them ("all 8 GPUs": ``--gpu 8``
would pick the ninth GPU); replacing a value ranks below adding one. Two flags with the same best score: nothing is filled.
Where no word names a flag, one whose value, or default when the command leaves it out, is of
the same kind as the user's (``ragcode.check.alike``) scores 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ragcode.check.alike import alike, alike_default
from ragcode.check.args import takes_value
from ragcode.check.words import FILE_END, number_kind, without_thousands
from ragcode.chunking.scripts.flags import Flag

_WORD = re.compile(r"[A-Za-z]+")
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# filler parts of a flag's name and words of its help text; not the instruction's stopwords
# (``ragcode.check.words``): ``out`` of ``--out_dir`` must count, as a prefix of "output"
_FILLER = {"n", "num", "the", "of", "to", "a", "is", "use", "do", "no", "for", "in", "on", "and"}
_BEFORE, _NEAR, _AFTER = 10, 3, 2
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")
_ALIKE = 1.0  # a flag whose value (or default) is one of the same kind (``alike``), where no word names a flag


@dataclass(frozen=True)
class Slot:
    """Where a value goes: the flag, and the value it has in the command now (None: absent)."""

    flag: Flag
    score: float
    current: str | None = None
    spelled: str = ""  # how the command spells the flag now, when it gives one


def name_parts(flag: Flag) -> list[str]:
    name = flag.name.lstrip("-")
    return [p.lower() for p in _PART.findall(name) if p.lower() not in _FILLER and len(p) > 1]


def context_words(instruction: str, value: str) -> list[list[tuple[str, float]]]:
    """For each place ``value`` occurs in the instruction: the words of its sentence around it,
    each with a weight (1 for the three before and two after it, 0.5 up to ten before)."""
    out = []
    low = without_thousands(instruction).lower()  # "300,000 steps" names the value 300000
    for m in _places(low, value):
        head = _SENTENCE_END.split(low[:m.start()])[-1]
        tail = _SENTENCE_END.split(low[m.end():])[0]
        before = _WORD.findall(head)[-_BEFORE:]
        after = _WORD.findall(tail)[:_AFTER]
        out.append([(w, 1.0 if len(before) - i <= _NEAR else 0.5) for i, w in enumerate(before)]
                   + [(w, 1.0) for w in after])
    return out


def _part_matches(part: str, words: list[tuple[str, float]]) -> float:
    """The weight of the context word that names ``part`` (0: none does)."""
    best = 0.0
    for w, weight in words:
        if part == w or len(part) >= 3 and len(w) >= 3 and (w.startswith(part) or part.startswith(w)):
            best = max(best, weight)
        elif len(part) >= 3 and len(w) > len(part) and w[:2] == part[:2] and _subsequence(part, w):
            best = max(best, weight)
    if len(part) >= 2 and not best:  # initials of neighbouring words: lr <- learning rate
        initials = "".join(w[0] for w, _ in words)
        at = initials.find(part)
        if at >= 0:
            best = words[at][1]
    return best


def _subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(ch in it for ch in short)


def _type_fit(flag: Flag, value: str) -> float | None:
    """How well ``value`` fits the flag's declared type: None = it cannot go there."""
    t = str(flag.type or "").lower()
    kind = number_kind(value)
    if t == "int":
        return 1.0 if kind == "int" else None
    if t == "float":
        return 1.0 if kind else None
    if kind:
        return 0.5 if t in ("str", "string") else 0.8
    return 1.0 if t in ("", "str", "string", "path", "pathlib.path") else 0.5


def score(flag: Flag, value: str, contexts: list[list[tuple[str, float]]]) -> float:
    """How surely ``value`` belongs to ``flag`` (0 = not at all)."""
    if flag.positional or not takes_value(flag):
        return 0.0
    choices = flag.choices if isinstance(flag.choices, list) else None
    if choices:
        return 10.0 if value.lower() in {str(c).lower() for c in choices} else 0.0
    fit = _type_fit(flag, value)
    parts = name_parts(flag)
    if fit is None or not parts:
        return 0.0
    best = 0.0
    help_words = set(_WORD.findall(str(flag.help or "").lower())) - _FILLER
    for words in contexts:
        hits = [_part_matches(p, words) for p in parts]
        if not any(hits):
            continue
        helped = min(len(help_words & {w for w, _ in words}), 2) * 0.25
        share = sum(h > 0 for h in hits) / len(parts)  # --model beats --model_id for "the X model"
        best = max(best, sum(hits) + share + helped)
    return best * fit


def best_slot(value: str, flags: list[Flag], given: dict[str, str | None], instruction: str,
              at_least: float = 0.0, contexts: list[list[tuple[str, float]]] | None = None) -> Slot | None:
    """The one flag ``value`` belongs to (scoring above ``at_least``), or None when none fits or
    two fit equally. ``contexts``: only these places of the value in the instruction."""
    contexts = context_words(instruction, value) if contexts is None else contexts
    if not contexts:
        return None
    ranked: list[Slot] = []
    counted = _counted_device(instruction, value)
    for f in flags:
        if counted and _names_one(f, counted):
            continue  # "8 GPUs" is a count; --gpu picks one GPU by its number
        spelled = next((s for s in f.option_strings() if s in given), None)
        current = given.get(spelled) if spelled else None
        if spelled and (current is None or _names_value(instruction, current)
                        and sum(v == current for v in given.values()) == 1):
            continue  # a switch, or a value the user asked for (held by this flag alone): not ours to change
        s = score(f, value, contexts) or _alike_score(f, current, value, contexts)
        if s > 0 and s >= at_least:  # replacing what the model wrote is less sure than adding what it left out
            ranked.append(Slot(f, s - 0.25 if current is not None else s, current, spelled or ""))
    ranked.sort(key=lambda s: -s.score)
    if not ranked or len(ranked) > 1 and ranked[1].score == ranked[0].score:
        return None
    if ranked[0].current is not None and not _same_kind(ranked[0].current, value):
        return None  # its flag holds a path, a file of another kind or a shell variable: not ours to change
    return ranked[0]


def _alike_score(flag: Flag, current: str | None, value: str,
                 contexts: list[list[tuple[str, float]]]) -> float:
    """``_ALIKE`` when ``flag`` holds, or would hold by default, a value of the same kind as
    ``value`` (``check.alike``), where no word names the flag; else 0."""
    if current is not None:
        return _ALIKE if alike(current, value) else 0.0
    if flag.positional or not takes_value(flag) or not flag.default_literal:
        return 0.0
    near = {w for words in contexts for w, weight in words if weight >= 1.0}
    return _ALIKE if alike_default(flag.default, value, near) else 0.0


_DEVICES = {"gpu", "cpu", "tpu", "device", "node"}
_COUNT_PARTS = {"n", "num", "number", "nb", "count", "total", "max", "min"}


def _counted_device(instruction: str, value: str) -> str:
    """The device ``value`` counts where the instruction writes it before the device's plural
    ("8 GPUs", "2 nodes"): ``gpu``, ``node``; ``""`` otherwise."""
    low = without_thousands(instruction).lower()
    for m in _places(low, value):
        noun = re.match(r"\s+([a-z]+)s\b", low[m.end():])
        if noun and noun.group(1) in _DEVICES:
            return noun.group(1)
    return ""


def _names_one(flag: Flag, device: str) -> bool:
    """``flag`` names one ``device`` (``--gpu``, ``--device``): its name has the device in the
    singular and no count in it (``--gpus``, ``--n_gpu``, ``--num_nodes`` count)."""
    parts = [p.lower() for p in _PART.findall(flag.name.lstrip("-"))]
    return device in parts and not set(parts) & _COUNT_PARTS




def _same_kind(current: str, value: str) -> bool:
    """Whether ``value`` may replace the ``current`` value of a flag: never a shell expansion
    (``$SQUAD_DIR/dev-v1.1.json`` may well hold the user's value), and a path or file name only
    by a path or file of the same kind (``model/x.pth`` is no place for ``y.json``)."""
    if "$" in current:
        return False
    if "/" not in current and not FILE_END.search(current):
        return True
    end, new_end = FILE_END.search(current), FILE_END.search(value)
    return ("/" in value or new_end is not None) and (end.group(1) if end else "") == (
        new_end.group(1) if new_end else "")


def _places(low: str, value: str) -> Iterator[re.Match[str]]:
    """Where ``value`` stands as a value of its own in the lower-cased ``low`` (``10`` does not
    stand in ``1024``)."""
    return re.finditer(rf"(?<![\w.-]){re.escape(value.lower())}(?![\w-]|\.\w)", low)


def _names_value(instruction: str, value: str) -> bool:
    """The instruction says ``value`` as a value of its own."""
    return next(_places(without_thousands(instruction).lower(), value), None) is not None


def slots_per_place(value: str, flags: list[Flag], given: dict[str, str | None], instruction: str,
                    at_least: float = 0.0) -> list[Slot]:
    """A value the instruction names in two or more places ("300,000 steps ... a warm-up of
    300,000 steps"), each place's own flag when the places choose different ones; else []."""
    places = context_words(instruction, value)
    if len(places) < 2:
        return []
    slots = [best_slot(value, flags, given, instruction, at_least, [words]) for words in places]
    if any(s is None for s in slots):
        return []
    distinct = list({s.flag.name: s for s in slots if s is not None}.values())
    return distinct if len(distinct) > 1 else []
