"""The public Python API: ``index_repo``, ``load_index``, ``search``, ``generate``, ``evaluate``.

Every function takes ``config`` as a ``Config``, the path of a YAML config file, or None (the
defaults), and ``overrides``: dotted fields and values (``{"retrieval.mode": "bm25"}`` or
``["retrieval.mode=bm25"]``, as ``--set`` takes them) applied on top. Each delegates to its
stage: ``ragcode.index.build``, ``ragcode.index.store``, ``ragcode.retrieval.search``,
``ragcode.answering`` and ``ragcode.bench.evaluate``.

The command line does not go through this module: its commands (``ragcode.cli``) call the same
stage functions directly, so the two agree because they share the stages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from ragcode.config import Config
    from ragcode.generation.llm import LLM
    from ragcode.index.store import Index
    from ragcode.types import Candidate, Context, Hit, Task

ConfigLike = Union["Config", str, "os.PathLike[str]", None]
Overrides = Union[Mapping[str, Any], Sequence[str], None]
IndexLike = Union["Index", str, "os.PathLike[str]"]


def resolve_config(config: ConfigLike = None, overrides: Overrides = None) -> Config:
    """A validated ``Config`` from a ``Config``, a YAML path or None, with ``overrides`` applied;
    ``ConfigError`` naming the field for a bad override or a config of another type."""
    from ragcode.config import Config, load_config, set_dotted, validate_config
    from ragcode.errors import ConfigError

    items = _items(overrides)
    if config is None or isinstance(config, (str, os.PathLike)):
        return load_config(None if config is None else os.fspath(config), items)
    if not isinstance(config, Config):
        raise ConfigError(f"config must be a Config, the path of a YAML file or None, not "
                          f"{type(config).__name__}")
    if not items:
        return config
    data = config.to_dict()
    for key, value in items.items():
        set_dotted(data, key, value)
    return validate_config(data, "invalid override")


def index_repo(path: str | os.PathLike[str], config: ConfigLike = None, name: str | None = None,
               out: str | os.PathLike[str] | None = None, rebuild: bool = False,
               progress: bool = True, overrides: Overrides = None) -> Index:
    """Chunk, embed and store a repository; returns the opened ``Index`` (its run's summary on
    ``Index.summary``). Incremental on a re-run. See ``ragcode.index.build.index_repo``."""
    from ragcode.index.build import index_repo as _index_repo

    return _index_repo(Path(path), resolve_config(config, overrides), name=name,
                       out=Path(out) if out is not None else None, rebuild=rebuild, progress=progress)


def load_index(name_or_path: str | os.PathLike[str], config: ConfigLike = None,
               overrides: Overrides = None) -> Index:
    """Open an existing index by name (under ``index.root``) or folder. Without a config the
    one recorded in the index is used; with one, its embedder must be the index's."""
    from ragcode.index.store import load_index as _load_index

    if config is None and not overrides:
        return _load_index(os.fspath(name_or_path))
    return _load_index(os.fspath(name_or_path), config=resolve_config(config, overrides))


def search(index: IndexLike, query: str, k: int = 10, config: ConfigLike = None,
           overrides: Overrides = None, **retrieval: Any) -> list[Hit]:
    """The ``k`` best ``Hit``s for ``query`` from ``index`` (an ``Index``, or a name or folder to
    open). Keyword arguments set fields of the ``retrieval`` section (``mode="bm25"``,
    ``fusion="weighted"``, ``kinds=["markdown"]``); other sections go in ``overrides``."""
    from ragcode.config import RetrievalConfig
    from ragcode.errors import ConfigError, require_text
    from ragcode.retrieval.search import search as _search

    require_text(query, "query", 'search(index, "train on my own images")')
    unknown = sorted(set(retrieval) - set(RetrievalConfig.model_fields))
    if unknown:
        raise ConfigError(f"search() takes no keyword {', '.join(map(repr, unknown))}: keywords set "
                          f"retrieval fields ({', '.join(RetrievalConfig.model_fields)}); for another "
                          "section pass overrides={'section.field': value}")
    items = _items(overrides) | {f"retrieval.{key}": value for key, value in retrieval.items()}
    return _search(index, query, k=k, config=resolve_config(config, items))


def generate(task: str | Task, index: IndexLike | None = None, n: int | None = None,
             config: ConfigLike = None, overrides: Overrides = None, llm: LLM | None = None,
             context: Context | None = None, path: str = ".") -> list[Candidate]:
    """``n`` (default ``generation.n``) candidate answers for ``task`` (an instruction or a
    ``Task``). With ``index`` the context is retrieved from it (or pass a ready ``context``);
    ``llm`` defaults to the configured backend. See ``ragcode.answering.generate``."""
    from ragcode.answering import generate as _generate
    from ragcode.errors import require_text

    require_text(task if isinstance(task, str) else task.instruction, "instruction",
                 'generate("train for 20 epochs on data/pets", index="myproject")')
    return _generate(task, index=index, n=n, config=resolve_config(config, overrides), llm=llm,
                     context=context, path=path)


def evaluate(source: str | os.PathLike[str], tasks: str | os.PathLike[str] | list[Task],
             repos_dir: str | os.PathLike[str], policy: str | None = None, config: ConfigLike = None,
             overrides: Overrides = None, execute: bool = True, split: str = "full") -> dict[str, Any]:
    """Score a run directory or an ML-Bench outputs file under ``policy`` (default
    ``bench.policy``); ``tasks`` is a task list or a source ``load_tasks`` takes (with ``split``).
    Returns the report (pass@k overall and per repository). See ``ragcode.bench.evaluate``."""
    from ragcode.bench.dataset import load_tasks
    from ragcode.bench.evaluate import score

    cfg = resolve_config(config, overrides)
    task_list = tasks if isinstance(tasks, list) else load_tasks(os.fspath(tasks), split=split).tasks
    return score(Path(source), task_list, Path(repos_dir), policy or cfg.bench.policy, cfg, execute)


def _items(overrides: Overrides) -> dict[str, Any]:
    """Dotted field -> value from a mapping, a list of ``section.field=value`` or one such string."""
    from ragcode.config import parse_override

    if overrides is None:
        return {}
    if isinstance(overrides, str):
        overrides = [overrides]
    if isinstance(overrides, Mapping):
        return dict(overrides)
    return dict(parse_override(str(item)) for item in overrides)
