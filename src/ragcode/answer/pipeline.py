"""Checked generation: sample, check every answer, choose the best first, fix it, repair it.

``checked_candidates`` draws ``n`` answers to one prompt (sample 1 greedy, the rest at the
configured temperature, so choosing can only add to the greedy answer), checks each with the
configured checkers (a command where the user asked for Python in so many words first written as
the Python call it makes, where that is certain: ``as_asked``), passes them through the fixes ``generation.fixes`` names
(``ragcode.answer.fixes``: the certain slips, then the guessing steps, kept by the one keep rule)
and orders them best first (``ragcode.answer.select``; ``choose``): every sample gets the certain
fixes before the order is made (a sample one certain fix makes right is not ranked below one no
fix mends), and with ``generation.fix_each`` all the fixes, otherwise the first gets the
guessing steps after it. When the first answer is still refused after its fixes (an error
finding), ``generation.more_samples`` more are drawn (seeds going on from ``n``, so they are the
samples a larger ``n`` would have drawn) and the choice is made again among all of them: the extra
samples cost time only where the first ``n`` gave nothing the repository accepts. Then the first
gets up to ``repair_rounds`` rounds (``ragcode.answer.repair``). Every candidate's metadata
carries its findings (``check``) and what its fixes did (``autofix``); the first also the repair
rounds. A ``Journal`` makes a task resumable mid-way: finished steps are read back, not generated
again.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, cast

from ragcode.answer.fixes import fix_and_keep
from ragcode.answer.journal import Journal
from ragcode.answer.repair import repair_first
from ragcode.answer.run import CheckedRun, Draw
from ragcode.answer.select import annotate, rank, reannotate
from ragcode.asked import asked_kind
from ragcode.check import Finding, check_answer, checkers_accept, checkers_as_python
from ragcode.generation.generate import sample_candidates, to_candidate
from ragcode.types import Candidate, CandidateMetadata


def draw(job: Draw, journal: Journal) -> list[Candidate]:
    """The samples: read back from the journal, or drawn (sample 1 greedy) and journalled."""
    done = _get_samples(journal, "samples", job, 0)
    if done is not None:
        return done
    greedy = dataclasses.replace(job.sampling, temperature=0.0)
    cands = sample_candidates(job.messages, job.meta, job.llm, 1, greedy)
    if job.n > 1:
        rest = sample_candidates(job.messages, job.meta, job.llm, job.n - 1,
                                 dataclasses.replace(job.sampling, seed=job.sampling.seed + 1))
        cands += [dataclasses.replace(c, sample_index=i + 1) for i, c in enumerate(rest)]
    _put_samples(journal, "samples", cands)
    return cands


def draw_more(job: Draw, journal: Journal) -> list[Candidate]:
    """``job.more`` samples after the first ``job.n``, read back or drawn and journalled: sample
    ``n + j`` at the sampling temperature with seed ``seed + n + j``, as a draw of ``n + more``
    samples would have drawn it."""
    done = _get_samples(journal, "more-samples", job, job.n)
    if done is not None:
        return done
    more = sample_candidates(job.messages, job.meta, job.llm, job.more,
                             dataclasses.replace(job.sampling, seed=job.sampling.seed + job.n))
    cands = [dataclasses.replace(c, sample_index=job.n + i) for i, c in enumerate(more)]
    _put_samples(journal, "more-samples", cands)
    return cands


def _get_samples(journal: Journal, step: str, job: Draw, first_index: int) -> list[Candidate] | None:
    """The samples ``step`` journalled (numbered from ``first_index``), or None if not done yet."""
    done = journal.get(step)
    if done is None:
        return None
    return [to_candidate(d["text"], first_index + i, dict(job.meta, **d["meta"])) for i, d in enumerate(done)]


def _put_samples(journal: Journal, step: str, cands: list[Candidate]) -> None:
    keep = ("sampling", "seconds", "tokens_per_s", "seed", "answer_tokens")
    journal.put(step, [{"text": c.text, "meta": {k: c.metadata.get(k) for k in keep}} for c in cands])


def checked_candidates(job: Draw, run: CheckedRun, journal: Journal | None = None) -> list[Candidate]:
    """The drawn answers checked, ordered best first and fixed (``choose``); when the first is
    still refused (an error finding) and ``job.more`` is set, that many more are drawn and the
    choice is made again among all; then the first's repair rounds."""
    journal = journal or Journal(None)
    started = time.perf_counter()
    more = (lambda: draw_more(job, journal)) if job.more else None
    cands, findings = choose_or_more(draw(job, journal), run, more)
    if run.repair_rounds and cands:
        cands[0] = repair_first(cands[0], findings[0], job, run, journal)
    cands[0].metadata["check"]["seconds"] = round(time.perf_counter() - started, 3)
    return cands


def choose_or_more(drawn: list[Candidate], run: CheckedRun, more: Callable[[], list[Candidate]] | None
                   ) -> tuple[list[Candidate], list[list[Finding]]]:
    """``choose`` among ``drawn``; when the first is still refused (``needs_more``) and ``more``
    is given, ``choose`` again among ``drawn`` and what ``more()`` brings (drawn by the model, or
    read from a stored run by the replay benchmarks)."""
    cands, findings = choose(drawn, run)
    if more is not None and cands and needs_more(findings[0]):
        cands, findings = choose([*drawn, *more()], run)
    return cands, findings


def needs_more(findings: list[Finding]) -> bool:
    """Whether the best answer, fixed, is doubtful enough to draw more samples: the repository
    refuses it (an error finding: its parser rejects it, a file or flag it names does not exist)."""
    return any(f.severity == "error" for f in findings)


def choose(cands: list[Candidate], run: CheckedRun) -> tuple[list[Candidate], list[list[Finding]]]:
    """``cands`` checked, ordered best first (``run.select``) and fixed (``run.autofix``): each
    one before the order is made, by every fix (``run.fix_each``: a sample that the fixes make
    run can win) or by the certain fixes, and the first by the rest after it; and the findings of
    each, in the new order."""
    cands = list(cands)
    findings, accepted, records = [], [], {}
    each = fixes_before_order(run)
    python_asked = asked_kind(run.ctx.instruction) == "python"
    for i, c in enumerate(cands):
        if python_asked and c.answer_type == "bash":
            cands[i] = c = as_asked(c, run)
        fs = check_answer(c.code, c.answer_type, run.ctx, run.checkers)
        fixed = fix_and_keep(c.code, c.answer_type, fs, run.ctx, run.checkers, each) if each else None
        if fixed is not None:
            records[c.sample_index] = {"previous": c.code, **fixed.record, "findings_before": [f.to_dict() for f in fs]}
            cands[i], fs = dataclasses.replace(c, code=fixed.code), fixed.findings
        findings.append(fs)  # the parse check keeps its last answer's parse: ask whether it accepted right away
        accepted.append(checkers_accept(cands[i].code, c.answer_type, run.ctx, run.checkers))
    if run.select:
        cands = rank(cands, findings, run.ctx.instruction, accepted)
        findings = [[Finding.from_dict(f) for f in c.metadata["check"]["findings"]] for c in cands]
    else:
        cands = [annotate(c, fs) for c, fs in zip(cands, findings)]
    for c in cands:
        record = records.get(c.metadata["check"].get("original_index", c.sample_index))
        if record is not None:
            c.metadata["check"]["autofix"] = record
    if run.autofix and not run.fix_each and cands:
        cands[0], findings[0] = autofix_first(cands[0], findings[0], run)
    return cands, findings


def as_asked(cand: Candidate, run: CheckedRun) -> Candidate:
    """A command where the user asked for Python in so many words, written as the Python call it
    makes where that is certain (a python-fire script: ``ragcode.dryrun.as_call``); the command
    is kept in the metadata (``converted_from``)."""
    call = checkers_as_python(cand.code, cand.answer_type, run.ctx, run.checkers)
    if call is None:
        return cand
    meta = cast(CandidateMetadata, {**cand.metadata, "converted_from": cand.code})
    return dataclasses.replace(cand, code=call, answer_type="python", metadata=meta)


def fixes_before_order(run: CheckedRun) -> tuple[str, ...]:
    """The fixes every sample gets before the order is made: all of them with ``fix_each``, else
    the certain ones (when they are configured at all)."""
    if not run.autofix:
        return ()
    return tuple(run.fixes) if run.fix_each else tuple(f for f in run.fixes if f == "certain")


def autofix_first(cand: Candidate, fs: list[Finding], run: CheckedRun) -> tuple[Candidate, list[Finding]]:
    """The first answer through the fixes, kept by ``ragcode.answer.fixes.keep_fixed``."""
    fixed = fix_and_keep(cand.code, cand.answer_type, fs, run.ctx, run.checkers, run.fixes)
    if fixed is None:
        return cand, fs
    out = reannotate(dataclasses.replace(cand, code=fixed.code), fixed.findings, cand)
    out.metadata["check"]["autofix"] = _after(cand.metadata["check"].get("autofix") or {}, cand.code, fs, fixed.record)
    return out, fixed.findings


def _after(before: dict, code: str, fs: list[Finding], record: dict) -> dict:
    """The autofix record of an answer fixed again after the order was made: its code as drawn and
    findings then (from ``before``, the certain fixes' record, when there is one), the steps of
    both rounds (lists joined)."""
    out = {**before, "previous": before.get("previous", code),
           "findings_before": before.get("findings_before", [f.to_dict() for f in fs])}
    for key, value in record.items():
        out[key] = out[key] + value if isinstance(value, list) and isinstance(out.get(key), list) else value
    return out
