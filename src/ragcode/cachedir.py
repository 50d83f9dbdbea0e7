"""What ragcode's cache folder holds, by kind, and clearing one kind (``ragcode cache``).

The cache folder is ``index.cache_dir`` (``$RAGCODE_CACHE``, else ``~/.cache/ragcode``); ONNX
exports go to ``$RAGCODE_MODELS`` when it is set. Everything in it is rebuilt on demand, so a
cleared kind costs only the time to make it again (a model is assembled or converted anew on its
next use, an index's vectors come from the embedder again). Nothing outside these folders is
touched, and links are removed, never followed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ragcode.config import Config
from ragcode.embedding.onnx_export import models_dir
from ragcode.errors import ConfigError

KINDS: dict[str, str] = {
    "models": "packaged GGUF models, assembled from their PyPI chunks",
    "converted": "GGUF models converted for the transformers backend",
    "onnx": "embedders exported to ONNX",
    "embeddings": "chunk vectors, keyed by embedder and text",
    "bm25": "BM25 indexes of corpora that are not an index folder",
    "rerank": "passage vectors of the e5 reranker",
    "verdicts": "scoring verdicts of runs scored from a JSONL file",
    "dryrun": "parse-only dry runs of answers (the parse check, the parsed policy)",
}


@dataclass
class CacheKind:
    kind: str
    description: str
    where: str = ""  # the place, as a user would look for it
    paths: list[Path] = field(default_factory=list)
    bytes: int = 0
    files: int = 0


def _paths(config: Config) -> dict[str, tuple[str, list[Path]]]:
    """kind -> (where, as shown; the paths it occupies)."""
    cache = Path(config.index.cache_dir).expanduser()
    models = cache / "models"
    assembled = sorted(p for p in models.iterdir() if not p.is_dir()) if models.is_dir() else []
    folders = {"converted": models / "transformers", "onnx": models_dir() / "onnx", "bm25": cache / "bm25",
               "rerank": cache / "rerank", "verdicts": cache / "verdicts", "dryrun": cache / "dryrun"}
    return {
        "models": (f"{models}/*.gguf", assembled),
        **{kind: (str(path), [path]) for kind, path in folders.items()},
        "embeddings": (f"{cache}/embeddings.sqlite", sorted(cache.glob("embeddings.sqlite*"))),
    }


def _measure(path: Path) -> tuple[int, int]:
    """(bytes, files) under ``path``, links counted as themselves and never followed."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size, 1
    total = count = 0
    for root, dirs, names in os.walk(path):  # os.walk does not follow links by default
        for name in names + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
                count += 1
            except OSError:
                continue  # removed while we looked
    return total, count


def usage(config: Config) -> list[CacheKind]:
    """Every kind, with the paths it occupies and their size (0 when absent)."""
    out = []
    places = _paths(config)
    for kind in KINDS:
        where, paths = places[kind]
        entry = CacheKind(kind, KINDS[kind], where)
        for path in paths:
            if path.exists() or path.is_symlink():
                size, files = _measure(path)
                entry.paths.append(path)
                entry.bytes += size
                entry.files += files
        out.append(entry)
    return out


def clear(config: Config, kind: str) -> CacheKind:
    """Remove everything of ``kind`` (or of every kind: ``all``); returns what was removed."""
    if kind != "all" and kind not in KINDS:
        raise ConfigError(f"unknown cache kind {kind!r}; choose one of {', '.join(KINDS)} or all")
    gone = CacheKind(kind, KINDS.get(kind, "everything ragcode caches"))
    for entry in usage(config):
        if kind not in ("all", entry.kind):
            continue
        for path in entry.paths:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        gone.paths += entry.paths
        gone.bytes += entry.bytes
        gone.files += entry.files
    return gone
