"""Export a sentence-transformers model to ONNX (and int8) once, offline, into the cache.

The ONNX backends (``ragcode.embedding.onnx_runtime``) run a graph that takes ``input_ids``
and ``attention_mask`` and returns the pooled sentence embedding (mean or CLS pooling inside the
graph; normalisation is done after). The graph is exported from the local model folder with
torch's TorchScript exporter, so no hub and no ``optimum`` are needed; int8 is onnxruntime's
dynamic quantisation of the MatMul weights, per channel (per-tensor int8 moved MiniLM's vectors
to a cosine of 0.93 with the float ones, per channel keeps them at 0.99).

Exports live in ``<models>/onnx/<folder>/``, where ``<models>`` is ``$RAGCODE_MODELS`` or else
``<cache>/models`` (``$RAGCODE_CACHE`` or ``~/.cache/ragcode``: by default where the GGUF models
of ``ragcode.generation.models`` are assembled too), so every embedding cache shares one export; the
folder name digests the model folder's path, its weight file's size and mtime and
``EXPORT_VERSION``: a changed model is exported again. Writers take a lock and move finished
files into place, so two processes never see half a file.

``exportable(model_path)`` answers, from the folder's ``modules.json`` alone (nothing is loaded),
whether the exporter supports a model: the test ``embedder.backend: auto`` makes before it picks
``onnx``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any, Iterator

from ragcode.errors import ModelUnavailableError

log = logging.getLogger(__name__)

EXPORT_VERSION = 1
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


MODELS_ENV = "RAGCODE_MODELS"


def default_cache_dir() -> Path:
    from ragcode.config import IndexConfig

    return Path(IndexConfig().cache_dir).expanduser()


def models_dir() -> Path:
    """Where ONNX exports go: ``$RAGCODE_MODELS``, else ``<cache>/models`` (the folder GGUF
    models are assembled in by default; ``$RAGCODE_MODELS`` moves the exports only)."""
    env = os.environ.get(MODELS_ENV, "")
    return Path(env).expanduser() if env else default_cache_dir() / "models"


def exportable(model_path: str) -> str | None:
    """``None`` when the exporter supports the local folder ``model_path`` (tokenizer.json,
    Transformer + mean/CLS Pooling + optional Normalize in ``modules.json``); else why not. Read
    from the folder's JSON files only, the same rule ``_export`` applies to the loaded modules."""
    folder = Path(model_path)
    if not folder.is_dir():
        return f"{model_path!r} is not a local model folder"
    if not (folder / "tokenizer.json").is_file():
        return f"{model_path} has no tokenizer.json"
    try:
        modules = json.loads((folder / "modules.json").read_text())
        kinds = [str(m["type"]).rsplit(".", 1)[-1] for m in modules]
        pooling = json.loads((folder / modules[1]["path"] / "config.json").read_text()) \
            if kinds[1:2] == ["Pooling"] else {}
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        return f"{model_path} has no readable modules.json / pooling config ({exc})"
    mode = pooling.get("pooling_mode") or _pooling_mode_of(pooling)
    if isinstance(mode, list):
        mode = mode[0] if len(mode) == 1 else None
    if kinds[:1] != ["Transformer"] or kinds[1:2] != ["Pooling"] or mode not in {"mean", "cls"} \
            or any(k != "Normalize" for k in kinds[2:]):
        return f"{model_path} has modules {kinds} (pooling {mode!r})"
    return None


def export_dir(model_path: str, root: Path | None = None) -> Path:
    """Where the ONNX files of the model folder ``model_path`` go (under ``root``, default
    ``models_dir()``)."""
    folder = Path(model_path).resolve()
    stamp = [str(folder), f"v{EXPORT_VERSION}"]
    for name in _WEIGHTS:
        w = folder / name
        if w.exists():
            st = w.stat()
            stamp += [name, str(st.st_size), str(st.st_mtime_ns)]
            break
    digest = hashlib.sha256("\0".join(stamp).encode()).hexdigest()[:16]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.parent.name + "-" + folder.name)[-60:]
    return (root or models_dir()) / "onnx" / f"{slug}-{digest}"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_onnx(model_path: str, int8: bool, root: Path | None = None) -> Path:
    """The ONNX file for ``model_path`` (exported on first use); the int8 one when ``int8``."""
    folder = export_dir(model_path, root)
    fp32, q8 = folder / "model.onnx", folder / "model-int8.onnx"
    target = q8 if int8 else fp32
    if target.exists():
        return target
    with _locked(folder):
        if not fp32.exists():
            _export(model_path, folder, fp32)
        if int8 and not q8.exists():
            _quantize(fp32, q8)
    return target


def _export(model_path: str, folder: Path, dest: Path) -> None:
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - base dependencies
        raise ModelUnavailableError(f"exporting to ONNX needs torch and sentence-transformers: {exc}")
    if not Path(model_path).is_dir():
        raise ModelUnavailableError(
            f"the ONNX backends export a local model folder; {model_path!r} is not one (use "
            "embedder.model=minilm, a local sentence-transformers folder, or the "
            "sentence-transformers backend)")
    st = SentenceTransformer(model_path, device="cpu")
    modules = list(st)
    kinds = [type(m).__name__ for m in modules]
    pooling = modules[1] if len(modules) > 1 else None
    mode = getattr(pooling, "pooling_mode", None) or _pooling_mode(pooling)
    if isinstance(mode, (list, tuple)):
        mode = mode[0] if len(mode) == 1 else None
    if kinds[0] != "Transformer" or kinds[1:2] != ["Pooling"] or mode not in {"mean", "cls"} \
            or any(k != "Normalize" for k in kinds[2:]):
        raise ModelUnavailableError(
            f"the ONNX backends support Transformer + mean/CLS Pooling (+ Normalize) models; "
            f"{model_path} has {kinds} (pooling {mode!r}): use embedder.backend=sentence-transformers")
    transformer: Any = modules[0]  # sentence-transformers' Transformer module
    model = transformer.auto_model.eval()

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):  # noqa: ANN001, ANN202
            out = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            if mode == "cls":
                return out[:, 0]
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            return (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    enc = transformer.tokenizer(["an example", "a second, longer example text"], padding=True,
                                return_tensors="pt")
    tmp = folder / f".{dest.name}.{os.getpid()}.tmp"
    log.info("exporting %s to ONNX at %s (once)", model_path, dest)
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled().eval(), (enc["input_ids"], enc["attention_mask"]), str(tmp), dynamo=False,
            input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                          "attention_mask": {0: "batch", 1: "seq"},
                          "sentence_embedding": {0: "batch"}},
            opset_version=17)
    (folder / "export.json").write_text(json.dumps(
        {"model": str(Path(model_path).resolve()), "pooling": mode, "version": EXPORT_VERSION,
         "torch": torch.__version__}, indent=1))
    os.replace(tmp, dest)


def _pooling_mode(pooling: object) -> str | None:
    if pooling is None:
        return None
    return _pooling_mode_of(getattr(pooling, "get_config_dict", lambda: {})())


def _pooling_mode_of(cfg: dict) -> str | None:
    """``mean`` or ``cls`` when that is the only pooling mode switched on in a Pooling config."""
    on = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v is True]
    return {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}.get(
        on[0]) if len(on) == 1 else None


def _quantize(src: Path, dest: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ModelUnavailableError(
            f"int8 quantisation needs onnxruntime and onnx (dependencies of ragcode): pip install "
            f"onnxruntime onnx ({exc})")
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    root = logging.getLogger()
    was, root.disabled = root.disabled, True  # it logs a pre-processing hint at WARNING
    try:
        quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"], per_channel=True)
    finally:
        root.disabled = was
    os.replace(tmp, dest)
