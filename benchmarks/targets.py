"""The right-answer targets of the outside sets, from files the other benchmarks write.

For each outside set: its task file (for the bash / Python split), the ``checked_dev.py modes
--parsed`` JSON of a checked run (per task: ``parsed:single``, the greedy sample, and
``parsed:repair``, the checked answer) and the ``outside_set.py --dryrun`` JSON of its
reference answers under the checks. For ML-Bench dev, optionally, two ``checked_dev.py modes``
JSONs, before and after, whose checked pass@1 must not drop. Prints one table and whether each
target is met, and writes JSON:

    python benchmarks/targets.py \\
        --set fresh benchmarks/data/fresh/tasks.jsonl runs/replay_fresh.json runs/bounds_fresh.json \\
        --set unseen benchmarks/data/unseen/tasks.jsonl runs/replay_unseen.json runs/bounds_unseen.json \\
        --dev runs/dev_before.json runs/dev_after.json --out results/targets.json

Targets (the right-answers issue): strict ``parsed`` pass@1 of the checked answer >= 60 % on each
set, bash and Python apart; checked >= greedy on each set; fixes rewrite no right answer;
findings (errors or warnings) on at most 1 in 10 right answers; ML-Bench dev checked does not
drop. A set's figures are read, never recomputed: the JSONs say which commit made them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

STRICT, FINDINGS = 0.60, 0.10


def _kinds(tasks: Path) -> dict[str, str]:
    out = {}
    for line in tasks.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            out[str(record["id"])] = "python" if "python" in str(record.get("type", "")).lower() else "bash"
    return out


def _task_id(key: str) -> str:
    return key.split(":")[-1].split("/")[-1]  # 'owner/name:id' or 'id'


def set_figures(tasks: Path, replay: Path, bounds: Path) -> dict[str, Any]:
    kinds = _kinds(tasks)
    per_task = json.loads(replay.read_text())["per_task"]
    cells: dict[str, list[int]] = {}
    gained = lost = 0
    for key, row in per_task.items():
        kind = kinds.get(_task_id(key), "bash")
        greedy, checked = bool(row.get("parsed:single")), bool(row.get("parsed:repair"))
        for name, ok in ((f"checked:{kind}", checked), ("checked", checked), ("greedy", greedy)):
            cell = cells.setdefault(name, [0, 0])
            cell[0] += ok
            cell[1] += 1
        gained += checked and not greedy
        lost += greedy and not checked
    measured = json.loads(bounds.read_text())
    right = next(iter(measured["sets"].values()))["on_right_answers"]
    flagged = sum(bool(r["errors"] or r["warnings"]) for r in measured["rows"] if not r.get("fault"))
    return {"cells": cells, "gained": gained, "lost": lost, "right": right["right"], "rewrites": right["rewrites"],
            "flagged": flagged, "flagged_share": round(flagged / max(1, right["right"]), 3)}


def _share(cell: list[int]) -> float:
    return cell[0] / cell[1] if cell[1] else 0.0


def verdicts(fig: dict[str, Any]) -> dict[str, bool]:
    cells = fig["cells"]
    strict = all(_share(cells[k]) >= STRICT for k in ("checked:bash", "checked:python") if k in cells)
    return {"strict >= 60 % (bash and Python)": strict,
            "checked >= greedy": cells["checked"][0] >= cells["greedy"][0],
            "0 rewrites of right answers": fig["rewrites"] == 0,
            "findings on <= 1 in 10 right answers": fig["flagged_share"] <= FINDINGS}


def dev_figures(before: Path, after: Path) -> dict[str, Any]:
    def checked(path: Path) -> dict[str, float]:
        mode = json.loads(path.read_text())["modes"]["repair"]
        return {"text": mode["pass@1"], "parsed": mode.get("parsed_pass@1", 0.0)}

    b, a = checked(before), checked(after)
    return {"before": b, "after": a, "met": all(a[k] >= b[k] for k in b)}


def _cell(cell: list[int] | None) -> str:
    return f"{cell[0]}/{cell[1]} ({100 * _share(cell):.1f} %)" if cell else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", nargs=4, action="append", default=[], metavar=("NAME", "TASKS", "REPLAY", "BOUNDS"),
                    help="an outside set: its tasks.jsonl, checked_dev.py modes --parsed JSON, outside_set.py JSON")
    ap.add_argument("--dev", nargs=2, metavar=("BEFORE", "AFTER"), help="ML-Bench dev checked_dev.py modes JSONs")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    try:
        sets = {name: set_figures(Path(t), Path(r), Path(b)) for name, t, r, b in args.set}
        dev = dev_figures(Path(args.dev[0]), Path(args.dev[1])) if args.dev else None
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        print(f"error: cannot read the figures: {exc}", file=sys.stderr)
        return 2
    print("| set | checked bash | checked Python | checked | greedy | +/- | right answers flagged | rewrites |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    report: dict[str, Any] = {"sets": {}, "dev": dev}
    for name, fig in sets.items():
        c = fig["cells"]
        print(f"| {name} | {_cell(c.get('checked:bash'))} | {_cell(c.get('checked:python'))} | {_cell(c['checked'])} "
              f"| {_cell(c['greedy'])} | +{fig['gained']}/-{fig['lost']} | {fig['flagged']}/{fig['right']} "
              f"({100 * fig['flagged_share']:.1f} %) | {fig['rewrites']} |")
        report["sets"][name] = {**fig, "targets": verdicts(fig)}
    for name, fig in report["sets"].items():
        print(f"{name}: " + "; ".join(f"{k}: {'met' if ok else 'NOT met'}" for k, ok in fig["targets"].items()))
    if dev:
        print(f"ML-Bench dev checked pass@1 {dev['before']} -> {dev['after']}: {'met' if dev['met'] else 'NOT met'}")
    if args.out:
        from ragcode.fileio import write_json_atomic

        write_json_atomic(args.out, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
