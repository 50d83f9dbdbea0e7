"""Grid results as files: one row per cell in CSV and JSON, a markdown table, and the plots."""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path
from typing import Any

from ragcode.ablation.result import GridResult, best_index
from ragcode.fileio import write_atomic
from ragcode.provenance import provenance

log = logging.getLogger(__name__)

# columns shown in the markdown table after the varied values (when present in the rows)
TABLE_METRICS = ("found_rate", "mean_coverage", "mrr", "recall@5", "precision@5", "ndcg@10",
                 "hit@10", "pass@1", "pass@2", "pass@5", "seconds")
_BOOKKEEPING = ("cell", "cell_key", "config_hash", "retrieval_key", "measure", "policy")


def columns(rows: list[dict[str, Any]]) -> list[str]:
    """All keys, in first-seen order, so CSV columns are stable across runs of one grid."""
    cols: list[str] = []
    for row in rows:
        cols += [k for k in row if k not in cols]
    return cols


def to_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns(rows), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def to_markdown(result: GridResult) -> str:
    spec, rows = result.spec, result.rows
    varied = spec.varied_keys()
    metrics = [m for m in TABLE_METRICS if any(m in r for r in rows)]
    best = best_index(rows, spec.primary_metric)
    head = ["", "cell", *varied, *metrics, "config"]
    lines = [
        f"# Ablation `{spec.name}` ({spec.measure})",
        "",
        *([spec.description, ""] if spec.description else []),
        f"{len(rows)} cells; best by `{spec.primary_metric}` marked ★."
        + (f" Scoring policy: `{spec.policy}`." if spec.measure == "generation" else ""),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" for _ in head) + "|",
    ]
    for i, row in enumerate(rows):
        mark = "★" if i == best else ""
        cells = [mark, row["cell"], *(_fmt(row.get(k, "")) for k in varied),
                 *(_fmt(row.get(m, "")) for m in metrics), f"`{row['config_hash']}`"]
        if i == best:
            cells = [f"**{c}**" if c and c != "★" else c for c in cells]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "found_rate / mean_coverage: oracle measure of the packed context; mrr, "
              "recall@k, precision@k, hit@k, ndcg@k: ranked chunks against the chunks that carry "
              "the oracle (own normalized coverage >= 0.5); see docs/ablation.md."]
    return "\n".join(lines) + "\n"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value).replace("|", "\\|")


def write_reports(result: GridResult, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "results.csv", "json": out / "results.json", "markdown": out / "results.md"}
    write_atomic(files["csv"], to_csv(result.rows))
    payload = {"grid": result.spec.name, **provenance(),
               "spec": result.spec.source, "measure": result.spec.measure,
               "primary": result.spec.primary_metric, "varied": result.spec.varied_keys(),
               "best": (result.rows[i]["cell"] if (i := best_index(result.rows, result.spec.primary_metric))
                        is not None else None),
               "rows": result.rows}
    write_atomic(files["json"], json.dumps(payload, indent=1))
    write_atomic(files["markdown"], to_markdown(result))
    try:
        from ragcode.ablation.plots import write_plots
    except ImportError:  # matplotlib is the 'ablation' extra
        log.warning("matplotlib is not installed: no plots (pip install 'ragcode[ablation]')")
    else:
        for i, path in enumerate(write_plots(result, out)):
            files[f"plot{i}"] = path
    return files
