"""Filling in values the instruction names and a bash answer left out, as flags of its script.

A small model often runs the right script and drops a value the user asked for ("an image size
of 128" -> no ``--img_size 128``). When the coverage check reports such a value and the script's
parser can be read, ``fill_values`` looks for the one flag it belongs to and adds it to the
command (or, when that flag is already given a value the instruction never names, replaces that
value: ``--dataset citeseer`` for an instruction about pubmed; never a shell variable's value, and
a path only by a path to a file of the same kind).

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

Which values: those the coverage check reports missing; an instruction word that is one of a
flag's ``choices``; a capitalised word inside a sentence (``Autoformer``), only where its flag is
named next to it. A path no flag takes goes to the one positional argument the script requires
and the command leaves out, when it is the only path to fill. Only the instruction is read, never a
task's arguments or answer.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ragcode.check import CheckContext, Finding
from ragcode.check.args import positionals_missing, takes_value
from ragcode.check.bash import Step, resolved_calls
from ragcode.check.instruction import proper_names as proper_names  # read from here too
from ragcode.check.instruction import read_instruction
from ragcode.check.alike import alike
from ragcode.check.spec_flags import joins_with_equals, with_flags
from ragcode.check.words import FILE_END, looks_negative, number_kind, without_thousands
from ragcode.chunking.scripts.flags import Flag

_WORD = re.compile(r"[A-Za-z]+")
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# filler parts of a flag's name and words of its help text; not the instruction's stopwords
# (``ragcode.check.words``): ``out`` of ``--out_dir`` must count, as a prefix of "output"
_FILLER = {"n", "num", "the", "of", "to", "a", "is", "use", "do", "no", "for", "in", "on", "and"}
_BEFORE, _NEAR, _AFTER = 10, 3, 2
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")
_NAME_SCORE = 2.0  # a capitalised word needs its flag named next to it: "the X model"
_ALIKE = 1.0  # a flag whose value is one of the same kind (``alike``), where no word names a flag
Parsed = dict[str, tuple[str, list[dict[str, Any]]]]  # resolved script path -> (parser, its dry run's spec)
_VAGUE = {"true", "false", "none", "all", "yes", "default", "auto", "max", "min", "mean", "sum", "and", "the",
          "new", "test", "train", "eval", "base", "small", "large", "full"}


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
        s = score(f, value, contexts) or (_ALIKE if current is not None and alike(current, value) else 0.0)
        if s > 0 and s >= at_least:  # replacing what the model wrote is less sure than adding what it left out
            ranked.append(Slot(f, s - 0.25 if current is not None else s, current, spelled or ""))
    ranked.sort(key=lambda s: -s.score)
    if not ranked or len(ranked) > 1 and ranked[1].score == ranked[0].score:
        return None
    if ranked[0].current is not None and not _same_kind(ranked[0].current, value):
        return None  # its flag holds a path, a file of another kind or a shell variable: not ours to change
    return ranked[0]


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


def given_flags(args: list[str]) -> dict[str, str | None]:
    """``--name value`` / ``--name=value`` pairs of a command line (a switch maps to None)."""
    out: dict[str, str | None] = {}
    for i, a in enumerate(args):
        if not a.startswith("-") or looks_negative(a):
            continue
        if "=" in a:
            k, v = a.split("=", 1)
            out[k] = v
        else:
            nxt = args[i + 1] if i + 1 < len(args) else None
            out[a] = nxt if nxt is not None and (not nxt.startswith("-") or looks_negative(nxt)) else None
    return out


def missing_values(findings: list[Finding]) -> list[str]:
    return [f.target for f in findings if f.code == "missing-value" and f.target]


def choice_values(instruction: str, flags: list[Flag], code: str) -> list[str]:
    """Words of the instruction that are one of a flag's ``choices`` (``linear`` for
    ``--model {linear,mlp}``), one per flag, when the answer never says them: the coverage check
    does not count plain words as values, a parser's choices make them one."""
    out = []
    for f in flags:
        if not isinstance(f.choices, list) or f.positional or not takes_value(f):
            continue
        named = [str(c) for c in f.choices if isinstance(c, str) and len(c) >= 3 and c.lower() not in _VAGUE
                 and _mentions(instruction, c)]
        if len(named) == 1 and not _mentions(code, named[0]) and named[0] not in out:
            out.append(named[0])
    return out


def names_said(code: str, instruction: str) -> int:
    """How many of the instruction's capitalised names ``code`` mentions, in any form
    (``Autoformer_SMAP.sh`` names Autoformer)."""
    low = code.lower()
    return sum(n.lower() in low for n in read_instruction(instruction).names)


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None


def fill_values(code: str, findings: list[Finding], ctx: CheckContext,
                parsed: Parsed | None = None) -> tuple[str, list[tuple[str, str]]]:
    """``code`` with each missing instruction value given to the flag it belongs to, and the
    ``(value, flag)`` pairs used. Only a script call that ends its line is extended. ``parsed``:
    the dry run's parameters of scripts no static reading gives flags for (``spec_flags``)."""
    done: list[tuple[str, str]] = []
    parsed = parsed or {}
    values = {v: 0.0 for v in missing_values(findings)}
    for step in with_flags(code, ctx, parsed):
        if step.flags is not None and step.last:
            values.update({v: 0.0 for v in choice_values(ctx.instruction, step.flags, code) if v not in values})
    values.update({v: _NAME_SCORE for v in read_instruction(ctx.instruction).names
                   if v not in values and not _mentions(code, v)})
    for value, at_least in values.items():
        placed = _fill_each_place(code, value, at_least, ctx, parsed)
        if placed is not None:
            code = placed[0]
            done.extend((value, name) for name in placed[1])
            continue
        best: tuple[Slot, Step, str] | None = None
        for step in with_flags(code, ctx, parsed):
            if step.flags is None or step.call is None or not step.last:
                continue
            slot = best_slot(value, step.flags, given_flags(step.call.args), ctx.instruction, at_least)
            if slot is not None and (best is None or slot.score >= best[0].score):
                best = (slot, step, _separator(step))
        if best is None:
            new = _as_positional(code, value, values, ctx)
            if new is not None:
                code = new
                done.append((value, "(positional)"))
            continue
        new = _put(code.split("\n"), value, *best)
        if new is not None:
            code = new
            done.append((value, best[0].flag.name))
    return code, done


def _as_positional(code: str, value: str, values: dict[str, float], ctx: CheckContext) -> str | None:
    """``code`` with the path ``value`` given as the one positional argument the command's script
    requires and the command leaves out (``main_lincls.py ... /datasets/imagenet``), when it is the
    only path among the values to fill and the one script call that ends its line is that script's."""
    paths = [v for v in values if _PATHLIKE.search(v) and "://" not in v]
    steps = [s for s in resolved_calls(code, ctx) if s.flags is not None and s.last and s.call is not None]
    if paths != [value] or len(steps) != 1:
        return None
    step = steps[0]
    assert step.call is not None and step.flags is not None
    if positionals_missing(list(step.call.args), step.flags) != 1:
        return None
    lines = code.split("\n")
    line = lines[step.end_line].rstrip()
    if "#" in line or line.endswith(("&", "\\")):
        return None
    lines[step.end_line] = f"{line} {shlex.quote(value)}"
    return "\n".join(lines)


_PATHLIKE = re.compile(r"/|\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _fill_each_place(code: str, value: str, at_least: float, ctx: CheckContext,
                     parsed: Parsed) -> tuple[str, list[str]] | None:
    """``code`` with ``value`` given to each flag its places in the instruction choose
    (``slots_per_place``), when the one script call that ends its line takes them all."""
    steps = [s for s in with_flags(code, ctx, parsed) if s.flags is not None and s.last]
    if len(steps) != 1:
        return None
    step = steps[0]
    assert step.call is not None and step.flags is not None  # resolved_calls: calls only
    slots = slots_per_place(value, step.flags, given_flags(step.call.args), ctx.instruction, at_least)
    if not slots:
        return None
    names = []
    for slot in slots:
        new = _put(code.split("\n"), value, slot, step, _separator(step))
        if new is None:
            return None
        code = new
        names.append(slot.flag.name)
        step = next(s for s in with_flags(code, ctx, parsed) if s.flags is not None and s.last)
    return code, names


def _separator(step: Step) -> str:
    """How the command gives flags their values: ``--lr=0.1`` when it already does so or its
    script reads only that form (a configurator), else a space."""
    assert step.call is not None
    return "=" if joins_with_equals(step) or any(re.match(r"--?\w[\w-]*=", a) for a in step.call.args) else " "


def _put(lines: list[str], value: str, slot: Slot, step: Step, sep: str) -> str | None:
    """The answer with ``value`` put in ``slot`` of the command at ``step``, or None."""
    if isinstance(slot.flag.choices, list):  # the parser's own spelling (Citeseer for citeseer)
        value = next((str(c) for c in slot.flag.choices if str(c).lower() == value.lower()), value)
    quoted = shlex.quote(value)
    if slot.current is not None:
        pattern = re.compile(rf"(?<!\S)({re.escape(slot.spelled)}[=\s]+)(['\"]?){re.escape(slot.current)}\2(?=\s|$)")
        for i in range(step.first_line, step.end_line + 1):
            new_line, n = pattern.subn(lambda m: m.group(1) + quoted, lines[i], count=1)
            if n:
                lines[i] = new_line
                return "\n".join(lines)
        return None
    line = lines[step.end_line].rstrip()
    if "#" in line or line.endswith("&"):
        return None
    lines[step.end_line] = f"{line} {slot.flag.name}{sep}{quoted}"
    return "\n".join(lines)
