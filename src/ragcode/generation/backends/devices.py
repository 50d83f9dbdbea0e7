"""Where a local model runs and in which number format: ``generation.llm.device`` and ``dtype``.

``device``: ``auto`` (the first GPU torch sees, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
Asking for a GPU where torch sees none is a one-line ``ModelUnavailableError`` naming what torch
found, never a silent fall-back to a CPU that is a hundred times slower.

``dtype``: ``auto`` is bfloat16 on a GPU that computes in it (float16 on older ones) and float32
on a CPU (bfloat16 halved prompt time on an AVX512-BF16 CPU but decoded slower: docs/scale.md);
``int8`` is a CPU-only choice of the transformers backend (int8 linear layers, 2x faster
decoding, answers a little different).
"""

from __future__ import annotations

from typing import Any

from ragcode.errors import ModelUnavailableError

DTYPES = ("float32", "bfloat16", "float16")


def torch_summary(torch: Any) -> str:
    build = f"CUDA {torch.version.cuda} build" if getattr(torch.version, "cuda", None) else "CPU-only build"
    return f"torch {torch.__version__}, {build}, {torch.cuda.device_count()} GPU(s) visible"


def pick_device(wanted: str, what: str = "this backend") -> str:
    """The torch device for ``generation.llm.device = wanted``."""
    import torch

    if wanted == "cpu":
        return "cpu"
    if not torch.cuda.is_available():
        if wanted == "auto":
            return "cpu"
        raise ModelUnavailableError(
            f"generation.llm.device={wanted!r} but {what} finds no usable GPU here ({torch_summary(torch)}); "
            "set generation.llm.device=cpu (or auto), or run on a machine with an NVIDIA GPU and a CUDA build of torch")
    index = int(wanted.split(":", 1)[1]) if ":" in wanted else 0
    count = torch.cuda.device_count()
    if index >= count:
        raise ModelUnavailableError(f"generation.llm.device={wanted!r} but only {count} GPU(s) are visible "
                                    f"(cuda:0..cuda:{count - 1}); check CUDA_VISIBLE_DEVICES")
    return f"cuda:{index}"


def pick_dtype(wanted: str, device: str) -> str:
    """The dtype name for ``generation.llm.dtype = wanted`` on ``device``."""
    import torch

    if wanted == "int8" and device != "cpu":
        raise ModelUnavailableError(f"generation.llm.dtype=int8 is for the CPU; on {device} use "
                                    "bfloat16 or float16 (or dtype=auto)")
    if wanted != "auto":
        return wanted
    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "float32"
