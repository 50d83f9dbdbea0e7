"""Aggregating per-sample verdicts into a report: overall and per repository, JSON and markdown.

Task-level pass@1/@2/@5 follow the official rule (position of the first passing sample); the
unbiased estimator is reported beside them. A task that failed with any infrastructure error
(sandbox, missing repository or path, missing interpreter) counts as an infrastructure failure,
kept apart from model failures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragcode.bench.passk import KS, first_success, pass_at_k, pass_rates
from ragcode.types import Verdict


@dataclass
class TaskScore:
    key: str
    id: Any
    github_id: int
    repo: str
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def passes(self) -> list[bool]:
        return [v.passed for v in self.verdicts]

    @property
    def first(self) -> int | None:
        return first_success(self.passes)

    @property
    def passed(self) -> bool:
        return self.first is not None

    @property
    def infra(self) -> bool:
        return not self.passed and any(v.infra_error for v in self.verdicts)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "id": self.id, "github_id": self.github_id, "repo": self.repo,
                "first_success": self.first, "passes": self.passes,
                "checks": [v.checks for v in self.verdicts],
                "infra_errors": [v.infra_error for v in self.verdicts if v.infra_error]}


def summarize(tasks: list[TaskScore]) -> dict[str, Any]:
    n = len(tasks)
    out: dict[str, Any] = {"n": n}
    out.update(pass_rates((t.passes for t in tasks), KS))
    unbiased: dict[str, float | None] = {}
    for k in KS:
        estimates = [pass_at_k(len(t.verdicts), sum(t.passes), k) for t in tasks]
        vals = [v for v in estimates if v is not None]
        unbiased[f"pass@{k}"] = (sum(vals) / len(vals)) if vals else None
    out["unbiased"] = unbiased
    out["passed"] = sum(1 for t in tasks if t.passed)
    out["failures"] = {"model": sum(1 for t in tasks if not t.passed and not t.infra),
                       "infra": sum(1 for t in tasks if t.infra)}
    verdicts = [v for t in tasks for v in t.verdicts]
    out["samples"] = {"total": len(verdicts), "passed": sum(v.passed for v in verdicts),
                      "infra_failures": sum(1 for v in verdicts if v.infra_error),
                      "timed_out": sum(1 for v in verdicts if v.timed_out)}
    return out


def build_report(tasks: list[TaskScore], meta: dict[str, Any]) -> dict[str, Any]:
    report = dict(meta)
    report.update(summarize(tasks))
    repos: dict[str, list[TaskScore]] = {}
    for t in tasks:
        repos.setdefault(t.repo, []).append(t)
    report["per_repo"] = {repo: summarize(ts) for repo, ts in sorted(repos.items())}
    report["tasks"] = [t.to_dict() for t in tasks]
    return report


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def markdown_table(report: dict[str, Any]) -> str:
    head = (f"policy `{report.get('policy')}`, setting `{report.get('setting', '-')}`, "
            f"executed: {report.get('executed')}, isolation: {report.get('isolation', '-')}\n\n")
    if report.get("ragcode_version"):
        head += (f"scored by ragcode {report['ragcode_version']}, "
                 f"commit {report.get('git_commit') or 'unknown (not a git checkout)'}\n\n")
    skipped = report.get("skipped") or {}
    if any(skipped.values()):
        head += (f"left out: {skipped.get('duplicates', 0)} duplicate record(s) (first kept), "
                 f"{skipped.get('malformed', 0)} malformed record(s)\n\n")
    lines = ["| repository | n | pass@1 | pass@2 | pass@5 | unbiased pass@1 | model failures | infra failures |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def row(name: str, s: dict[str, Any]) -> str:
        return (f"| {name} | {s['n']} | {_pct(s['pass@1'])} | {_pct(s['pass@2'])} | {_pct(s['pass@5'])} | "
                f"{_pct(s['unbiased']['pass@1'])} | {s['failures']['model']} | {s['failures']['infra']} |")

    for repo, s in report.get("per_repo", {}).items():
        lines.append(row(repo, s))
    lines.append(row("**all**", report))
    return head + "\n".join(lines) + "\n"


def collect_reports(run_dirs: list[Any]) -> list[dict[str, Any]]:
    """Every ``report-*.json`` that ``score`` wrote into the given run directories."""
    import json
    from pathlib import Path

    found = []
    for d in run_dirs:
        for path in sorted(Path(d).glob("report-*.json")):
            data = json.loads(path.read_text())
            data.pop("tasks", None)
            data["report_file"] = str(path)
            found.append(data)
    return found


def comparison_table(reports: list[dict[str, Any]]) -> str:
    """One row per (run, setting, policy): the overview across runs."""
    lines = ["| run | setting | model | policy | executed | n | pass@1 | pass@2 | pass@5 | model failures | infra failures |",
             "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in sorted(reports, key=lambda r: (str(r.get("setting")), str(r.get("policy")), r["report_file"])):
        run = str(r.get("source", r["report_file"])).rstrip("/").rsplit("/", 1)[-1]
        lines.append(
            f"| {run} | {r.get('setting') or '-'} | {r.get('model') or '-'} | {r.get('policy')} | "
            f"{'yes' if r.get('executed') else 'no'} | {r['n']} | {_pct(r['pass@1'])} | {_pct(r['pass@2'])} | "
            f"{_pct(r['pass@5'])} | {r['failures']['model']} | {r['failures']['infra']} |")
    return "\n".join(lines) + "\n"
