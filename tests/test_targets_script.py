"""benchmarks/targets.py: the right-answer targets read from the files the other benchmarks write."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "targets.py"


def _targets():
    spec = importlib.util.spec_from_file_location("targets", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(tmp_path: Path, checked: list[bool], greedy: list[bool], flags: list[tuple[list, list, str]]):
    tasks = tmp_path / "tasks.jsonl"
    kinds = ["bash", "bash", "python", "python", "bash"]
    tasks.write_text("".join(json.dumps({"id": f"r-0{i}", "type": k}) + "\n" for i, k in enumerate(kinds)))
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"per_task": {f"o/r:r-0{i}": {"parsed:single": g, "parsed:repair": c}
                                               for i, (c, g) in enumerate(zip(checked, greedy))}}))
    rows = [{"id": f"r-0{i}", "errors": e, "warnings": w, "rewrite": rw} for i, (e, w, rw) in enumerate(flags)]
    right = {"right": len(rows), "errors": sum(bool(r["errors"]) for r in rows),
             "warnings": sum(bool(r["warnings"]) for r in rows), "rewrites": sum(bool(r["rewrite"]) for r in rows)}
    bounds = tmp_path / "bounds.json"
    bounds.write_text(json.dumps({"sets": {"outside": {"on_right_answers": right}}, "rows": rows}))
    return tasks, replay, bounds


def test_the_targets_are_read_per_kind_and_each_is_told_met_or_not(tmp_path, capsys):
    targets = _targets()
    clean = [([], [], "")] * 5
    files = _write(tmp_path, [True, True, True, True, False], [True, False, False, True, False], clean)
    fig = targets.set_figures(*files)
    assert fig["cells"]["checked:bash"] == [2, 3] and fig["cells"]["checked:python"] == [2, 2]
    assert (fig["gained"], fig["lost"]) == (2, 0)
    assert all(targets.verdicts(fig).values())  # 67 % and 100 %, 4 >= 2, no rewrite, no finding
    flagged = [(["e"], ["w"], ""), ([], ["w"], ""), ([], [], "python x.py --gpu 8"), ([], [], ""), ([], [], "")]
    fig = targets.set_figures(*_write(tmp_path, [True, False, True, False, False], [True, True, True, True, False],
                                      flagged))
    told = targets.verdicts(fig)
    assert fig["flagged"] == 2 and not told["findings on <= 1 in 10 right answers"]  # one reference counted once
    assert not told["0 rewrites of right answers"] and not told["checked >= greedy"]
    assert not told["strict >= 60 % (bash and Python)"]
    out = tmp_path / "t.json"
    assert targets.main(["--set", "s", *map(str, files), "--out", str(out)]) == 0
    assert "| s | 1/3 (33.3 %)" in capsys.readouterr().out and json.loads(out.read_text())["sets"]["s"]["rewrites"] == 1


def test_a_missing_file_is_one_line_and_exit_2(tmp_path, capsys):
    assert _targets().main(["--set", "s", "a", "b", "c"]) == 2
    assert capsys.readouterr().err.startswith("error: cannot read the figures")
