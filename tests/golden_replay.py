"""The golden replay: stored candidate answers replayed through the checks, selection, the fixes
and ``ragcode check --fix``, their findings and chosen answers compared to a committed fingerprint.

``tests/data/golden/cases.jsonl`` holds the cases, one JSON object a line: ``id``, ``repo`` (a
repository of ``tests/golden_repos.py``), ``path`` (where the answer runs), ``instruction`` and
``candidates`` (model outputs as drawn, sample 1 first). Each case is replayed as checked
generation replays a journal (the samples read back, no model call): every candidate checked,
the candidates ranked, the first fixed; and each candidate alone through ``ragcode check --fix
--json``. ``tests/data/golden/fingerprint.json`` stores, per case, every candidate's findings,
the order chosen, the answer returned with what its fixes did, the repair message it would send,
and what ``ragcode check --fix`` prints for each candidate, plus the hash of all that.

    python tests/golden_replay.py            # compare; prints the difference, exit 1 when any
    python tests/golden_replay.py --update   # a behaviour change meant: store the new fingerprint
    python benchmarks/golden_replay.py [--update]   # the same, from the benchmarks folder

``tests/test_golden_replay.py`` runs the comparison in the test suite (``pytest
--update-golden`` stores it instead).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = HERE / "data" / "golden" / "cases.jsonl"
FINGERPRINT = HERE / "data" / "golden" / "fingerprint.json"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _finding(f: dict[str, Any]) -> str:
    where = f"@{f['line']}" if f.get("line") else ""
    to = f" -> {f['suggestion']}" if f.get("suggestion") else ""
    return f"{f['code']} ({f['severity']}{where}) {f['target']}{to}: {f['message']}"


def _generation(case: dict[str, Any], repo: Path) -> dict[str, Any]:
    """The case as checked generation runs it on stored samples: check, rank, fix the first."""
    from ragcode.answer.journal import Journal
    from ragcode.answer.pipeline import checked_candidates
    from ragcode.answer.repair import repair_message
    from ragcode.answer.run import CheckedRun, Draw
    from ragcode.check import CheckContext, Finding, load_checkers
    from ragcode.config import Config
    from ragcode.generation.llm import Sampling

    config = Config()
    journal = Journal(None)
    journal.steps["samples"] = [{"text": t, "meta": {}} for t in case["candidates"]]
    ctx = CheckContext(repo, case["path"], case["instruction"])
    run = CheckedRun(ctx, load_checkers(config.generation.check, config), autofix=True,
                     fixes=tuple(config.generation.fixes))
    job = Draw([], {}, None, len(case["candidates"]), Sampling())  # type: ignore[arg-type]  # read back, not drawn
    cands = checked_candidates(job, run, journal)
    first = cands[0].metadata["check"]
    fixed = dict(first.get("autofix") or {})
    fixed.pop("findings_before", None)
    fixed.pop("previous", None)
    return {"order": [c.metadata["check"]["original_index"] for c in cands],
            "chosen": cands[0].code, "chosen_findings": [_finding(f) for f in first["findings"]],
            "fixes": fixed,
            "repair_message": repair_message([Finding.from_dict(f) for f in first["findings"]], ctx.task_dir)}


def _check_fix(case: dict[str, Any], repo: Path, text: str) -> dict[str, Any]:
    """One candidate through ``ragcode check --fix --json``."""
    from typer.testing import CliRunner

    from ragcode.cli import app

    args = ["check", text, "--repo", str(repo), "--path", case["path"], "--instruction", case["instruction"],
            "--fix", "--json"]
    result = CliRunner().invoke(app, args)
    if result.exit_code not in (0, 1):
        raise RuntimeError(f"ragcode check failed on {case['id']}: {result.output}")
    out = json.loads(result.stdout)
    row: dict[str, Any] = {"type": out["answer_type"], "findings": [_finding(f) for f in out["findings"]],
                           "exit": result.exit_code}
    if "fixed" in out:
        fixed = {k: v for k, v in out["fixed"].items() if k not in ("findings", "penalty")}
        fixed["findings"] = [_finding(f) for f in out["fixed"]["findings"]]
        row["fixed"] = fixed
    return row


def replay(cases: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Every case replayed: ``{case id: {...}}`` with the repositories' folder written ``<repo>``."""
    from golden_repos import build_golden_repos

    cases = load_cases() if cases is None else cases
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        repos = build_golden_repos(Path(tmp))
        for case in cases:
            repo = repos[case["repo"]]
            rec = _generation(case, repo)
            rec["check_fix"] = [_check_fix(case, repo, text) for text in case["candidates"]]
            text = json.dumps(rec, sort_keys=True)
            for folder in sorted((str(p) for p in repos.values()), key=len, reverse=True):
                text = text.replace(str(Path(folder).resolve()), "<repo>").replace(folder, "<repo>")
            out[case["id"]] = json.loads(_INSTALLED.sub(r"\1 <version>'s", text.replace(tmp, "<tmp>")))
    return out


# an installed library's version named in a finding (parse-version): the replay holds on any version
_INSTALLED = re.compile(r"\b(transformers|accelerate|torch|deepspeed) \d[\w.+-]*'s")


def fingerprint(replayed: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps(replayed, sort_keys=True, ensure_ascii=False)
    return {"hash": hashlib.sha256(body.encode()).hexdigest(), "cases": replayed}


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def difference(stored: str, new: str) -> str:
    return "".join(difflib.unified_diff(stored.splitlines(keepends=True), new.splitlines(keepends=True),
                                        "fingerprint.json (stored)", "fingerprint.json (replayed)", n=2))


def main(argv: list[str] | None = None) -> int:
    """Compare (or ``--update``); exit 2, saying why, where the replay cannot give the stored
    findings: no bubblewrap for the ``parse`` check, or the ``parsers`` extra missing."""
    from extras import why_missing

    from ragcode.execution.bwrap import bwrap_works

    args = sys.argv[1:] if argv is None else argv
    why = why_missing("parsers") or ("" if bwrap_works() else "bubblewrap cannot run here, so the parse "
                                     "check says nothing")
    if why:
        print(f"golden replay not run: {why}", file=sys.stderr)
        return 2
    new = dumps(fingerprint(replay()))
    if "--update" in args:
        FINGERPRINT.write_text(new)
        print(f"stored {FINGERPRINT} ({json.loads(new)['hash'][:16]})")
        return 0
    stored = FINGERPRINT.read_text() if FINGERPRINT.exists() else ""
    if stored == new:
        print(f"golden replay unchanged ({json.loads(new)['hash'][:16]}, {len(load_cases())} cases)")
        return 0
    print(difference(stored, new))
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
