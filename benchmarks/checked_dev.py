"""Checked generation on ML-Bench tasks: single greedy sample vs checked selection vs selection +
repair, from ONE checked run, and how often the checks blame a correct answer.

    # a stratified half of the tasks (every second task of each repository, in file order;
    # --every 3 for a third, --offset 1 for the next one)
    python benchmarks/checked_dev.py subset --tasks dev.jsonl --out results/dev_half.jsonl
    # one checked run holds all three modes (sample 1 is greedy; its pre-repair order is kept)
    ragcode mlbench run --tasks results/dev_half.jsonl --repos repos/ --setting ragcode -n 5 \\
        --out runs/checked/ --set 'generation.check=[bash,python,coverage]' --set generation.repair_rounds=1
    python benchmarks/checked_dev.py modes --run runs/checked/ --tasks results/dev_half.jsonl
    # the stored samples through the current checks (--check: which), each mode also under --parsed
    python benchmarks/checked_dev.py modes --run runs/checked/ --tasks results/dev_half.jsonl --replay repos/ \\
        --check bash --check python --check coverage --check parse --parsed
    # findings on the dataset's reference answers: every one is a false alarm candidate
    python benchmarks/checked_dev.py references --tasks dev.jsonl --repos repos/

``modes`` reads ``samples.jsonl`` and, per task, takes: **single** = the greedy sample
(``check.original_index == 0``), **select** = the first answer as chosen, **autofix** = after
its certain slips are corrected, **repair** = after the repair round; and reports for each ML-Bench's two text checks at pass@1 (the
official rule: every argument value, lower-cased, a substring of the answer, and the answer type
right), pass@5 (any of the samples, for select/repair), answer-type accuracy, the share of
first answers with zero findings, and seconds per task (single: the greedy call; select: all
samples + checks; repair: + the repair round). The task's arguments and type are read only
here, to score; nothing of them reached the model. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

from ragcode.fileio import write_atomic

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def subset(args: argparse.Namespace) -> int:
    rows = [line for line in Path(args.tasks).read_text().splitlines() if line.strip()]
    seen: Counter[int] = Counter()
    keep = []
    for line in rows:
        gid = json.loads(line).get("github_id")
        if seen[gid] % args.every == args.offset:
            keep.append(line)
        seen[gid] += 1
    write_atomic(Path(args.out), "\n".join(keep) + "\n")
    print(f"{len(keep)} of {len(rows)} tasks -> {args.out}")
    return 0


def _stages(cands: list[dict]) -> dict[str, tuple[str, list]]:
    """The first answer at each stage: chosen (select), after autofix, after repair."""
    check = cands[0]["metadata"].get("check", {})
    final = (cands[0]["code"], check.get("findings", []))
    rounds = check.get("repair") or []
    fixed = (rounds[0]["previous"], rounds[0]["findings_before"]) if rounds else final
    fix = check.get("autofix")
    chosen = (fix["previous"], fix["findings_before"]) if fix else fixed
    return {"select": chosen, "autofix": fixed, "repair": final}


def _drawn(cands: list[dict]) -> list[tuple[int, str]]:
    """Each stored candidate's original sample index and its code as drawn: a fixed one is stored
    after its autofix (the first one also after repair), whose record keeps the drawn code."""
    out = []
    for c in cands:
        check = c["metadata"].get("check", {})
        code = check.get("autofix", {}).get("previous")
        rounds = check.get("repair") or []
        if c is cands[0] and rounds and code is None:
            code = rounds[0]["previous"]
        out.append((check.get("original_index", c["sample_index"]), code or c["code"]))
    return out


def _replay(cands: list[dict], task, repos: Path, check: list[str], fixes: list[str] | None = None,
            fix_each: bool = False, samples: int = 0, more: int = 0) -> tuple[dict[str, tuple[str, list]], dict[str, str]]:
    """The select / autofix / repair stages recomputed with the CURRENT checks, ranking, fixes and
    repair rule from the run's stored samples (no model call), as checked generation chooses
    (``ragcode.answer.pipeline.choose``). A stored repair round is reused only when it was made for
    the same first answer; otherwise that stage stays as chosen. Also each answer's kind by its
    code (a command asked for as Python may be chosen as its call). ``samples``: only the first
    that many samples (0 = all stored); ``more``: as ``generation.more_samples``, the next that many
    join when the first of them, fixed, still has an error finding (``ragcode.answer.pipeline.choose_or_more``)."""
    from ragcode.bench.repos import repo_dir_for
    from ragcode.check import CheckContext, check_answer, load_checkers, penalty
    from ragcode.answer.pipeline import choose_or_more
    from ragcode.config import Config
    from ragcode.answer.repair import lost_values
    from ragcode.answer.run import CheckedRun
    from ragcode.types import Candidate

    repo, _ = repo_dir_for(task, repos)
    ctx = CheckContext(repo, task.path or ".", task.instruction)
    checkers = load_checkers(check or list(Config().generation.check))  # as a default run checks: with parse
    originals = [Candidate(c["text"], code, c["answer_type"], index, {}) for c, (index, code) in
                 zip(cands, _drawn(cands))]
    originals.sort(key=lambda c: c.sample_index)
    run = CheckedRun(ctx, checkers, autofix=True, fix_each=fix_each, **({"fixes": tuple(fixes)} if fixes else {}))
    first_n = [c for c in originals if not samples or c.sample_index < samples]
    extra = [c for c in originals if samples <= c.sample_index < samples + more] if samples else []
    ranked, found = choose_or_more(first_n, run, (lambda: extra) if more and samples else None)
    first, fixed_fs = ranked[0], found[0]
    fix = first.metadata["check"].get("autofix")
    chosen = (fix["previous"], fix["findings_before"]) if fix else (first.code, first.metadata["check"]["findings"])
    after_fix = (first.code, [f.to_dict() for f in fixed_fs])
    final = after_fix
    stored = cands[0]["metadata"].get("check", {}).get("repair") or []
    if stored and stored[0]["previous"] == first.code and fixed_fs:
        new_fs = check_answer(stored[0]["code"], first.answer_type, ctx, checkers)
        if penalty(new_fs) < penalty(fixed_fs) and not lost_values(first.code, stored[0]["code"], task.instruction):
            final = (stored[0]["code"], [f.to_dict() for f in new_fs])
    kinds = {code: c.answer_type for c in ranked
             for code in (c.code, c.metadata["check"].get("autofix", {}).get("previous")) if code}
    return {"select": chosen, "autofix": after_fix, "repair": final}, kinds


def _parsed_scorer(args: argparse.Namespace):
    """``(task, code) -> passed`` under the ``parsed`` policy (``--parsed``), or None."""
    if not args.parsed:
        return None
    from types import SimpleNamespace

    from ragcode.bench.parsed import ParsedScorer
    from ragcode.config import Config

    scorer, ctx = ParsedScorer(), SimpleNamespace(repos_dir=Path(args.replay or args.repos), config=Config())
    return lambda task, code: scorer.score_sample(task, code, 0, ctx).passed


def modes(args: argparse.Namespace) -> int:
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.legacy import arguments_ok, type_ok

    tasks = {t.key: t for t in load_tasks(args.tasks).tasks}
    recs = [json.loads(x) for x in (Path(args.run) / "samples.jsonl").read_text().splitlines() if x.strip()]
    from ragcode.stats import bootstrap_ci, paired_test

    parsed = _parsed_scorer(args)
    acc: dict[str, Counter] = defaultdict(Counter)
    outcomes: dict[str, list[bool]] = defaultdict(list)
    per_repo: dict[str, Counter] = defaultdict(Counter)
    per_task: dict[str, dict[str, bool]] = defaultdict(dict)  # key -> mode (parsed:mode) -> passed, to pair replays
    for rec in recs:
        task = tasks.get(rec["key"])
        if task is None:
            continue
        cands = rec["candidates"]
        greedy = next((c for c in cands if c["metadata"].get("check", {}).get("original_index") == 0), cands[0])
        stored = _stages(cands)
        stages, kinds = (_replay(cands, task, Path(args.replay), args.check, args.fixes, args.fix_each,
                                 args.samples, args.more)
                         if args.replay else (stored, {}))
        fix = greedy["metadata"].get("check", {}).get("autofix")  # as drawn: before any autofix and repair
        single = stored["select"] if greedy is cands[0] else (fix["previous"], fix["findings_before"]) if fix else (
            greedy["code"], greedy["metadata"].get("check", {}).get("findings", []))
        chosen = {"single": single, **stages}
        check = cands[0]["metadata"].get("check", {})
        greedy_s = greedy["metadata"].get("seconds") or 0
        repair_s = sum((r.get("seconds") or 0) for r in check.get("repair", []))
        total_s = check.get("seconds", greedy_s)
        seconds = {"single": greedy_s, "select": total_s - repair_s, "autofix": total_s - repair_s, "repair": total_s}
        drawn = [code for _, code in _drawn(cands)]  # all five as drawn: what selection chose among
        for mode, (code, findings) in chosen.items():
            ok = arguments_ok(code, task.arguments) and type_ok(code, task.type)
            a = acc[mode]
            a["tasks"] += 1
            a["pass1"] += ok
            outcomes[mode].append(ok)
            per_task[rec["key"]][mode] = ok
            if parsed is not None:
                kind = kinds.get(code) or next((c["answer_type"] for c in cands if c["code"] == code),
                                               cands[0]["answer_type"])
                passed = parsed(task, f"```{kind}\n{code}\n```")  # read as generation read it
                a["parsed"] += passed
                outcomes[f"parsed:{mode}"].append(passed)
                per_task[rec["key"]][f"parsed:{mode}"] = passed
            a["type_ok"] += type_ok(code, task.type)
            a["zero_findings"] += not findings
            a["seconds"] += seconds[mode]
            per_repo[f"{mode}:{task.github_id}"]["pass1"] += ok
            per_repo[f"{mode}:{task.github_id}"]["tasks"] += 1
            pool = [code] if mode == "single" else [code, *drawn]
            a["pass5"] += any(arguments_ok(c, task.arguments) and type_ok(c, task.type) for c in pool)
    rows = {}
    for mode in ("single", "select", "autofix", "repair"):
        a = acc[mode]
        n = a["tasks"] or 1
        rows[mode] = {"tasks": a["tasks"], "pass@1": round(a["pass1"] / n, 3), "pass@5": round(a["pass5"] / n, 3),
                      "type_accuracy": round(a["type_ok"] / n, 3), "zero_findings": round(a["zero_findings"] / n, 3),
                      "seconds_per_task": round(a["seconds"] / n, 1),
                      "pass@1_ci95": bootstrap_ci(outcomes[mode]),
                      "vs_single": paired_test(outcomes["single"], outcomes[mode])}
        if parsed is not None:
            rows[mode]["parsed_pass@1"] = round(a["parsed"] / n, 3)
            rows[mode]["parsed_vs_single"] = paired_test(outcomes["parsed:single"], outcomes[f"parsed:{mode}"])
    print("| mode | tasks | pass@1 [95% CI] | vs single: +/- (p) | pass@5 | type acc. | zero findings | s/task |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for mode, r in rows.items():
        lo, hi = r["pass@1_ci95"]
        t = r["vs_single"]
        print(f"| {mode} | {r['tasks']} | {r['pass@1']:.3f} [{lo:.2f}, {hi:.2f}] | +{t['gained']}/-{t['lost']} ({t['p']}) | "
              f"{r['pass@5']:.3f} | {r['type_accuracy']:.3f} | {r['zero_findings']:.3f} | {r['seconds_per_task']} |")
    if parsed is not None:
        print("\nparsed policy (the repository's parser gives the reference's parameters the same values; the text "
              "checks where the reference's own parse is not accepted):")
        for mode, r in rows.items():
            t = r["parsed_vs_single"]
            print(f"  {mode}: pass@1 {r['parsed_pass@1']:.3f} (vs single +{t['gained']}/-{t['lost']})")
    out = {"run": str(args.run), "modes": rows, "per_repo": {k: dict(v) for k, v in per_repo.items()},
           "per_task": per_task,
           "config": json.loads((Path(args.run) / "run.json").read_text()).get("config", {}).get("generation")}
    write_atomic(Path(args.out or Path(args.run) / "checked_modes.json"), json.dumps(out, indent=1) + "\n")
    return 0


def references(args: argparse.Namespace) -> int:
    """Findings on the dataset's reference answers (run where the task runs): each is a false
    alarm unless the reference itself is wrong for the pinned checkout."""
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.repos import repo_dir_for
    from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
    from ragcode.generation.parse import parse_answer

    checkers = load_checkers(args.check or list(DEFAULT_CHECKS))
    by_code: Counter[str] = Counter()
    flagged, rows = 0, []
    tasks = load_tasks(args.tasks).tasks
    for task in tasks:
        repo, _ = repo_dir_for(task, Path(args.repos))
        parsed = parse_answer(task.output)
        findings = check_answer(parsed.code, parsed.answer_type, CheckContext(repo, task.path or ".", task.instruction),
                                checkers)
        flagged += bool(findings)
        by_code.update(f.code for f in findings)
        rows.append({"key": task.key, "findings": [f.to_dict() for f in findings]})
    print(f"{flagged} of {len(tasks)} reference answers have findings; by code: {dict(by_code.most_common())}")
    for r in rows:
        for f in r["findings"]:
            print(f"  {r['key']}: {f['code']}: {f['message']}")
    write_atomic(Path(args.out or "benchmarks/results/checked_references.json"),
                 json.dumps({"flagged": flagged, "tasks": len(tasks), "by_code": dict(by_code), "rows": rows}, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("subset")
    s.add_argument("--tasks", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--every", type=int, default=2, help="keep every Nth task of each repository")
    s.add_argument("--offset", type=int, default=0, help="starting from its Kth task (0-based): --every 3 "
                   "--offset 1 is another third")
    m = sub.add_parser("modes")
    m.add_argument("--run", required=True)
    m.add_argument("--tasks", required=True)
    m.add_argument("--out", default="")
    m.add_argument("--replay", default="", help="repos folder: recompute checks, ranking and repair "
                   "acceptance with the current code from the stored samples")
    m.add_argument("--parsed", action="store_true", help="also score every mode with the parsed policy")
    m.add_argument("--repos", default="repos", help="repositories for --parsed when not replaying")
    m.add_argument("--check", action="append", default=[], help="a checker of the replay (repeat; default: "
                   "generation.check's default, parse included), e.g. --check bash --check python --check coverage")
    m.add_argument("--fixes", default=None, type=lambda text: [x for x in text.split(",") if x],
                   help="the replay's fix steps, comma-separated (default: generation.fixes' default), e.g. "
                        "certain,expand,retarget,switch,fill,fill_vars to leave one out")
    m.add_argument("--fix-each", action="store_true", help="the replay fixes every sample before ordering them "
                   "(generation.fix_each), not only the first after")
    m.add_argument("--samples", type=int, default=0, help="the replay chooses among the first K stored samples "
                   "only (0 = all)")
    m.add_argument("--more", type=int, default=0, help="with --samples K: the next M samples join when the "
                   "first answer, fixed, still has an error finding (generation.more_samples)")
    r = sub.add_parser("references")
    r.add_argument("--tasks", required=True)
    r.add_argument("--repos", default="repos")
    r.add_argument("--check", action="append", default=[])
    r.add_argument("--out", default="")
    args = ap.parse_args(argv)
    return {"subset": subset, "modes": modes, "references": references}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
