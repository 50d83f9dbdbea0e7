"""Export a sentence-transformers model to ONNX (and int8) once, offline, into the cache.

The ONNX backends (``ragcode.embedding.onnx_runtime``) run a graph that takes ``input_ids``
and ``attention_mask`` and returns the pooled sentence embedding (mean or CLS pooling inside the
graph; normalisation is done after). The graph is exported from the local model folder with
torch's TorchScript exporter, so no hub and no ``optimum`` are needed; int8 is onnxruntime's
dynamic quantisation of the MatMul weights, per channel (per-tensor int8 moved MiniLM's vectors
to a cosine of 0.93 with the float ones, per channel keeps them at 0.99).

Exports live in ``<cache>/onnx/<folder>/`` where the folder name digests the model folder's
path, its weight file's size and mtime and ``EXPORT_VERSION``: a changed model is exported again.
Writers take a lock and move finished files into place, so two processes never see half a file.
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
from typing import Iterator

from ragcode.errors import ModelUnavailableError

log = logging.getLogger(__name__)

EXPORT_VERSION = 1
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def default_cache_dir() -> Path:
    from ragcode.config import IndexConfig

    return Path(IndexConfig().cache_dir).expanduser()


def export_dir(model_path: str, cache_dir: Path | None = None) -> Path:
    """Where the ONNX files of the model folder ``model_path`` go."""
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
    return (cache_dir or default_cache_dir()) / "onnx" / f"{slug}-{digest}"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_onnx(model_path: str, int8: bool, cache_dir: Path | None = None) -> Path:
    """The ONNX file for ``model_path`` (exported on first use); the int8 one when ``int8``."""
    folder = export_dir(model_path, cache_dir)
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
    model = modules[0].auto_model.eval()

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

    enc = modules[0].tokenizer(["an example", "a second, longer example text"], padding=True,
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
    cfg = getattr(pooling, "get_config_dict", lambda: {})()
    if cfg.get("pooling_mode_mean_tokens"):
        return "mean"
    if cfg.get("pooling_mode_cls_token"):
        return "cls"
    return None


def _quantize(src: Path, dest: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ModelUnavailableError(
            f"int8 quantisation needs onnxruntime and onnx: pip install 'ragcode[onnx]' ({exc})")
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    root = logging.getLogger()
    was, root.disabled = root.disabled, True  # it logs a pre-processing hint at WARNING
    try:
        quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"], per_channel=True)
    finally:
        root.disabled = was
    os.replace(tmp, dest)
