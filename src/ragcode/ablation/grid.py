"""Ablation grid specs: a base config, the axes to vary, and what to measure.

A spec is a YAML file::

    name: retrieval_mode
    base: ../default.yaml          # a config file, relative to this spec (optional)
    set:                           # fixed overrides applied to every cell (optional)
      rerank.enabled: false
    axes:                          # full grid over these dotted config fields ...
      retrieval.mode: [bm25, dense, hybrid]
    cells:                         # ... or a listed set of cells (instead of, or after, axes)
      - {name: weighted-0.3, set: {retrieval.fusion: weighted, retrieval.dense_weight: 0.3}}
    measure: retrieval             # retrieval | generation
    ks: [1, 5, 10, 20]             # cut-offs for recall/precision/nDCG
    policy: mlbench-legacy         # scoring policy (generation only)
    execute: true                  # run answers in the sandbox (false: the policy's text checks only)
    primary: found_rate            # metric that picks the best cell

Each cell resolves to one validated ``Config``; unknown fields fail at load time, before any work.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcode.config import Config, load_config, read_yaml_mapping, set_dotted, validate_config
from ragcode.errors import ConfigError
from ragcode.hashing import digest

MEASURES = ("retrieval", "generation")
_SPEC_KEYS = {"name", "base", "set", "axes", "cells", "measure", "ks", "policy", "primary",
              "description", "execute"}


@dataclass(frozen=True)
class Cell:
    """One point of the grid: its label, the values it varies, and its resolved config."""

    name: str
    varied: dict[str, Any]
    config: Config

    @property
    def config_hash(self) -> str:
        return self.config.hash()


@dataclass
class GridSpec:
    name: str
    measure: str = "retrieval"
    base: Path | None = None
    fixed: dict[str, Any] = field(default_factory=dict)
    axes: dict[str, list[Any]] = field(default_factory=dict)
    cells: list[dict[str, Any]] = field(default_factory=list)  # {"name": str, "set": {...}}
    ks: tuple[int, ...] = (1, 5, 10, 20)
    policy: str = "mlbench-legacy"
    execute: bool = True
    primary: str = ""
    description: str = ""
    source: str = ""  # where the spec was read from, for messages

    @property
    def primary_metric(self) -> str:
        return self.primary or ("pass@1" if self.measure == "generation" else "found_rate")

    def measure_key(self) -> str:
        """Hash of the measuring settings; part of every cell's cache key."""
        generation = self.measure == "generation"
        return digest({"measure": self.measure, "ks": list(self.ks),
                        "policy": self.policy if generation else "",
                        "execute": self.execute if generation else None})

    def varied_keys(self) -> list[str]:
        keys = list(self.axes)
        for cell in self.cells:
            keys += [k for k in cell["set"] if k not in keys]
        return keys

    def index_root(self) -> str | None:
        """The index root the spec itself asks for: its ``set: index.root``, else its base
        config's ``index.root`` when that is not the default; ``None`` when neither sets one."""
        if self.fixed.get("index.root"):
            return str(self.fixed["index.root"])
        if self.base is None:
            return None
        root = load_config(self.base).index.root
        return root if root != Config().index.root else None

    def expand(self, extra_overrides: dict[str, Any] | None = None) -> list[Cell]:
        """All cells: the full product of ``axes`` then the listed ``cells``, each validated."""
        raw: list[tuple[str, dict[str, Any]]] = []
        if self.axes:
            keys = list(self.axes)
            for combo in itertools.product(*(self.axes[k] for k in keys)):
                varied = dict(zip(keys, combo))
                raw.append((_label(varied), varied))
        for cell in self.cells:
            raw.append((cell["name"], dict(cell["set"])))
        if not raw:
            raw.append(("base", {}))
        out: list[Cell] = []
        seen: dict[str, str] = {}
        for name, varied in raw:
            overrides = {**self.fixed, **(extra_overrides or {}), **varied}
            config = self._resolve(name, overrides)
            if name in seen:
                raise ConfigError(f"ablation spec {self.source or self.name}: two cells are named {name!r}; "
                                  "give each listed cell a distinct 'name'")
            seen[name] = config.hash()
            out.append(Cell(name=name, varied=varied, config=config))
        return out


    def _resolve(self, name: str, overrides: dict[str, Any]) -> Config:
        # Overrides are applied to the fully resolved base (not to the raw YAML), so setting one
        # key of a mapping field such as chunking.chunkers.markdown keeps the mapping's other keys.
        where = f"ablation spec {self.source or self.name}, cell {name!r}"
        data = load_config(self.base).to_dict()
        for key, value in overrides.items():
            set_dotted(data, key, value)
        return validate_config(data, f"{where}: invalid config")


def _label(varied: dict[str, Any]) -> str:
    """Short human label: last part of each dotted key = value."""
    if not varied:
        return "base"
    return ",".join(f"{k.rsplit('.', 1)[-1]}={_short(v)}" for k, v in varied.items())


def _short(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def load_grid(path: str | Path) -> GridSpec:
    """Read and check an ablation spec; the base path is resolved relative to the spec file."""
    path = Path(path)
    data = read_yaml_mapping(path, what="ablation spec")
    return grid_from_dict(data, source=str(path), root=path.parent)


def grid_from_dict(data: dict[str, Any], source: str = "<dict>", root: Path | None = None) -> GridSpec:
    unknown = set(data) - _SPEC_KEYS
    if unknown:
        raise ConfigError(f"ablation spec {source}: unknown key(s) {sorted(unknown)}; "
                          f"allowed: {sorted(_SPEC_KEYS)}")
    measure = data.get("measure", "retrieval")
    if measure not in MEASURES:
        raise ConfigError(f"ablation spec {source}: measure {measure!r} is not one of {MEASURES}")
    base = data.get("base")
    base_path = None
    if base:
        base_path = (Path(root or ".") / base).resolve()
        if not base_path.is_file():
            raise ConfigError(f"ablation spec {source}: base config {base_path} not found")
    axes = data.get("axes") or {}
    if not isinstance(axes, dict) or any(not isinstance(v, list) or not v for v in axes.values()):
        raise ConfigError(f"ablation spec {source}: 'axes' must map dotted config fields to "
                          "non-empty lists of values, e.g. retrieval.mode: [bm25, dense]")
    cells = []
    for i, cell in enumerate(data.get("cells") or []):
        if not isinstance(cell, dict) or not isinstance(cell.get("set", {}), dict):
            raise ConfigError(f"ablation spec {source}: cell #{i + 1} must be a mapping "
                              "{name: ..., set: {dotted.field: value}}")
        values = dict(cell.get("set") or {k: v for k, v in cell.items() if k != "name"})
        cells.append({"name": str(cell.get("name") or _label(values)), "set": values})
    fixed = data.get("set") or {}
    if not isinstance(fixed, dict):
        raise ConfigError(f"ablation spec {source}: 'set' must map dotted config fields to values")
    ks = data.get("ks") or [1, 5, 10, 20]
    if not all(isinstance(k, int) and k > 0 for k in ks):
        raise ConfigError(f"ablation spec {source}: 'ks' must be positive integers, got {ks!r}")
    return GridSpec(
        name=str(data.get("name") or Path(source).stem),
        measure=measure,
        base=base_path,
        fixed=dict(fixed),
        axes={str(k): list(v) for k, v in axes.items()},
        cells=cells,
        ks=tuple(sorted(set(ks))),
        policy=str(data.get("policy") or "mlbench-legacy"),
        execute=bool(data.get("execute", True)),
        primary=str(data.get("primary") or ""),
        description=str(data.get("description") or ""),
        source=source,
    )
