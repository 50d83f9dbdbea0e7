"""Ablation grids over any config field, scored by retrieval metrics and (optionally) pass@k.

Public interface:

- ``load_grid(path) -> GridSpec``: read an ablation spec (``configs/ablation/*.yaml``).
- ``run_grid(spec, tasks, repos, out, ...) -> GridResult``: run or resume every cell, write
  ``results.csv``, ``results.json``, ``results.md`` and PNG plots under ``out``.
- ``TaskRetrieval`` / ``RetrievalBatch`` / ``TaskGeneration``: what the two stage seams return
  (see ``ragcode.ablation.stages``), for running a grid against a stand-in stage; the default
  stages are ``ragcode.ablation.adapters.default_retrieval_stage`` / ``default_generation_stage``.
"""

from ragcode.ablation.grid import Cell, GridSpec, grid_from_dict, load_grid
from ragcode.ablation.result import GridResult
from ragcode.ablation.runner import run_grid
from ragcode.ablation.stages import RetrievalBatch, TaskGeneration, TaskRetrieval

__all__ = ["Cell", "GridSpec", "GridResult", "RetrievalBatch", "TaskGeneration", "TaskRetrieval",
           "grid_from_dict", "load_grid", "run_grid"]
