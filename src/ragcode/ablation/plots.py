"""PNG plots of a grid (matplotlib, Agg backend; the ``ablation`` extra).

- ``cells.png``: the primary metric (and found-rate / pass@1 where present) per cell, best marked;
- ``axis_<field>.png``: each metric against the values of one varied field, one point per cell
  and a line through the mean at each value;
- ``found_vs_pass.png`` (generation grids): retrieval found-rate against pass@1 / pass@5 across
  cells, to see whether better retrieval gives better code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ragcode.ablation.result import GridResult, best_index  # noqa: E402

AXIS_METRICS = ("found_rate", "mean_coverage", "mrr", "recall@10", "ndcg@10", "pass@1", "pass@5")


def _present(rows: list[dict[str, Any]], metrics: tuple[str, ...] | list[str]) -> list[str]:
    return [m for m in metrics if any(isinstance(r.get(m), (int, float)) for r in rows)]


def _save(fig: Any, path: Path) -> Path:
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(path)
    return path


def plot_cells(result: GridResult, path: Path) -> Path:
    rows = result.rows
    primary = result.spec.primary_metric
    metrics = _present(rows, list(dict.fromkeys([primary, "found_rate", "mean_coverage", "pass@1"])))
    best = best_index(rows, primary)
    names = [r["cell"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.6))
    height = 0.8 / max(len(metrics), 1)
    for j, metric in enumerate(metrics):
        values = [float(r.get(metric) or 0.0) for r in rows]
        ax.barh([i + j * height for i in range(len(rows))], values, height=height, label=metric)
    ax.set_yticks([i + height * (len(metrics) - 1) / 2 for i in range(len(rows))])
    ax.set_yticklabels([("★ " if i == best else "") + n for i, n in enumerate(names)])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("score")
    ax.set_title(f"ablation {result.spec.name}: per cell (best by {primary} ★)")
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


def plot_axis(result: GridResult, axis: str, path: Path) -> Path | None:
    rows = [r for r in result.rows if axis in r]
    metrics = _present(rows, AXIS_METRICS)
    if not rows or not metrics:
        return None
    values = list(dict.fromkeys(str(r[axis]) for r in rows))
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.2), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        xs = [values.index(str(r[axis])) for r in rows]
        ys = [float(r.get(metric) or 0.0) for r in rows]
        ax.scatter(xs, ys, alpha=0.6)
        means = [sum(y for x, y in zip(xs, ys) if x == i) / max(1, xs.count(i)) for i in range(len(values))]
        ax.plot(range(len(values)), means, marker="o")
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(values, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(f"ablation {result.spec.name}: metrics per {axis}")
    return _save(fig, path)


def plot_found_vs_pass(result: GridResult, path: Path) -> Path | None:
    rows = result.rows
    metrics = _present(rows, ["pass@1", "pass@5"])
    if not metrics:
        return None
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for metric in metrics:
        xs = [float(r.get("found_rate") or 0.0) for r in rows]
        ys = [float(r.get(metric) or 0.0) for r in rows]
        ax.scatter(xs, ys, label=metric)
        for x, y, r in zip(xs, ys, rows):
            ax.annotate(r["cell"], (x, y), fontsize=7, alpha=0.7)
    ax.set_xlabel("retrieval found-rate")
    ax.set_ylabel("pass@k")
    ax.set_xlim(0, 1.05)
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.set_title(f"ablation {result.spec.name}: does better retrieval give better code?")
    return _save(fig, path)


def write_plots(result: GridResult, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path | None] = [plot_cells(result, out / "cells.png")]
    for axis in result.spec.varied_keys():
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", axis)
        paths.append(plot_axis(result, axis, out / f"axis_{slug}.png"))
    if result.spec.measure == "generation":
        paths.append(plot_found_vs_pass(result, out / "found_vs_pass.png"))
    return [p for p in paths if p is not None]
