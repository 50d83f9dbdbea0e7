"""Choosing among samples: the answer most likely to run comes first.

Each candidate is scored by its findings (``ragcode.check.penalty``: errors weigh more than
warnings, an unknown script more than a missing value) and by agreement: how many samples
wrote the same normalised answer (whitespace collapsed, flags in order of appearance). The
order is (wrong answer type, penalty, -agreement, original sample index): an answer whose type
(bash or python) differs from the first (greedy) sample's goes after those that agree, since a
clean answer of the wrong kind still fails the task (on the dev tasks the greedy sample's type
was right for 81 % of the 88 tasks with the 0.5B and 75 % of 55 with the 1.5B; the majority of
five samples at temperature 0.7 was right as often, within one task), except
that a greedy Python answer declaring its own argparse flags (``own-cli``) counts as meaning a
command line, a greedy command that runs a module reading no arguments (``library-file``), or
hands arguments to a script that reads none (``ignored-args``), as meaning Python, and a greedy "command" that runs no program at all (``no-command``,
``not-a-script``: a usage text or a context passage's header copied out), a greedy Python answer
that does not parse or uses none of the repository's own modules and scripts (``no-repo-use``,
``no-own-use``), or one whose findings weigh ``LOST`` or more, as meaning neither, so that the
findings alone decide; and whatever the greedy sample is, an instruction that asks for a kind in so
many words ("In Python, build ...", "the bash command", ``ragcode.asked.asked_kind``)
sets it: the user's word outranks the model's first guess; then
among equally clean answers one the repository's own parser accepted (the ``parse`` check's dry
run took every entry point and read every word), then the one most samples agree on, then the
one whose code (comments left out) mentions most of the instruction's content words
(``words_said``: "in a cartoon style" -> ``cartoon``), then the original order. Every
candidate's metadata records its findings, penalty, agreement, words said and original index
under ``check``.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any, cast

from ragcode.check import Finding, penalty
from ragcode.check.instruction import read_instruction
from ragcode.check.rules import codes_with
from ragcode.types import Candidate, CandidateMetadata

# a greedy answer whose findings weigh this much (five unknown flags, two missing scripts) is no
# evidence of the answer's kind either (replayed on the stored dev runs: 5 and 6 gain one task of
# the 1.5B's and lose none; 4 also loses one, 3 gains two and loses three)
LOST = 5.0
# what a greedy answer's findings say of the kind of answer meant (each rule's ``greedy`` in the
# catalogue): a home-made argparse script means a command line; running a file that reads no
# arguments means Python; running no program, or Python that does not parse or uses none of the
# repository's own modules and scripts (home-made code on the packages it depends on:
# transformers for bert's TensorFlow scripts), says nothing of the kind (replayed on the stored
# dev runs: +3 of the 1.5B's tasks, +2 of the oracle's, none lost)
MEANS_BASH = codes_with(greedy="bash")
MEANS_PYTHON = codes_with(greedy="python")
NO_KIND = codes_with(greedy="none")


def normalise(code: str) -> str:
    """An answer's identity for agreement: comments and blank lines out, whitespace and line
    continuations collapsed."""
    lines = [re.sub(r"\s+#.*$", "", ln) for ln in code.replace("\\\n", " ").splitlines()]
    text = " ".join(ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#"))
    return re.sub(r"\s+", " ", text).strip()


def annotate(cand: Candidate, findings: list[Finding], **extra) -> Candidate:
    meta: dict[str, Any] = dict(cand.metadata)
    meta["check"] = {"findings": [f.to_dict() for f in findings], "penalty": penalty(findings),
                     "errors": sum(f.severity == "error" for f in findings), **extra}
    return dataclasses.replace(cand, metadata=cast(CandidateMetadata, meta))


def reannotate(cand: Candidate, findings: list[Finding], like: Candidate) -> Candidate:
    """``cand`` (a fixed or repaired answer) annotated with its own findings, keeping what
    ``like``'s check record says about its place among the samples (agreement, rank...)."""
    kept = {k: v for k, v in like.metadata["check"].items() if k not in ("findings", "penalty", "errors")}
    return annotate(cand, findings, **kept)


def words_said(code: str, instruction: str) -> int:
    """How many of the instruction's content words the answer mentions: ``cartoon``, ``caption``,
    ``masknet``; in its code, not in the comments that retell the task."""
    return _words_in(normalise(code), instruction)


def _words_in(normalised: str, instruction: str) -> int:
    """``words_said`` of an answer already ``normalise``d (comments out)."""
    low = normalised.lower()
    return sum(w in low for w in read_instruction(instruction).content_words)


def rank(cands: list[Candidate], findings: list[list[Finding]], instruction: str = "",
         accepted: list[bool] | None = None) -> list[Candidate]:
    """``cands`` best first (see the module doc); ``sample_index`` renumbered to the new order,
    the original kept as ``metadata.check.original_index``. ``accepted``: whether the repository's
    own parser took each answer (``ragcode.check.checkers_accept``)."""
    accepted = accepted if accepted is not None else [False] * len(cands)
    keys = [normalise(c.code) for c in cands]
    votes = Counter(keys)
    greedy = min(range(len(cands)), key=lambda i: cands[i].sample_index) if cands else -1
    kind = cands[greedy].answer_type if cands else ""
    if cands and any(f.code in MEANS_BASH for f in findings[greedy]):
        kind = "bash"  # a home-made argparse script: the model meant a command line
    elif cands and any(f.code in MEANS_PYTHON for f in findings[greedy]):
        kind = "python"  # it runs a file that reads no arguments: the model meant to use it with its values
    elif cands and (any(f.code in NO_KIND for f in findings[greedy]) or penalty(findings[greedy]) >= LOST):
        kind = ""  # it runs nothing, does not parse, ignores the repository, or is wrong throughout: the findings decide
    kind = read_instruction(instruction).kind or kind  # the kind the user asked for in so many words
    scored = []
    for i, (c, fs) in enumerate(zip(cands, findings)):
        said = _words_in(keys[i], instruction)  # keys: the answers normalised, comments out
        scored.append((bool(kind) and c.answer_type != kind, penalty(fs), not accepted[i], -votes[keys[i]], -said,
                       c.sample_index, i))
    order = sorted(scored)
    out = []
    for new_index, (_, _, not_accepted, neg_votes, neg_said, _, i) in enumerate(order):
        c = annotate(cands[i], findings[i], agreement=-neg_votes, words_said=-neg_said,
                     original_index=cands[i].sample_index, rank=new_index, parsed=not not_accepted)
        out.append(dataclasses.replace(c, sample_index=new_index))
    return out
