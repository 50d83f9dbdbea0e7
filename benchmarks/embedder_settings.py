"""The embedder's speed by backend, batch size, max sequence length and text order, on the texts
an index embeds; and each variant's cosine to the reference vectors (torch, the config's
``max_seq_length``).

    python benchmarks/embedder_settings.py INDEX_DIR [--sample 400] [--out results/embedder_settings.json]
        [--variants torch:32:256,torch:64:256,onnx-int8:32:256,...]

``INDEX_DIR`` is an index folder (any embedder setting; only its chunks are read): the texts are
the ``embed_text`` of its markdown and cli chunks (what the default ``embedder.kinds`` embed),
a seeded sample of ``--sample`` of them. Each variant is ``backend:batch:max_seq_length`` and
optionally ``:shuffled`` (texts in random order in calls of 64, as if nothing sorted them;
otherwise sorted by length first, as the embedding cache does). Every variant is warmed up on
16 texts before its clock starts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEFAULT_VARIANTS = ("torch:32:256,torch:32:256:shuffled,torch:16:256,torch:64:256,torch:32:128,"
                    "torch:32:512,onnx:32:256,onnx-int8:32:256,onnx-int8:64:256,onnx-int8:32:128")
BACKENDS = {"torch": "sentence-transformers", "onnx": "onnx", "onnx-int8": "onnx-int8"}


def _texts(index_dir: Path, sample: int, kinds: tuple[str, ...] = ("markdown", "cli")) -> list[str]:
    from ragcode.index.store import load_index

    index = load_index(index_dir)
    texts = [c.embed_text for c in index.chunks().values() if c.kind in kinds]
    index.close()
    random.Random(0).shuffle(texts)
    return texts[:sample]


def _run(variant: str, texts: list[str]) -> tuple[dict[str, Any], Any]:
    from ragcode.config import EmbedderConfig
    from ragcode.embedding import load_embedder

    parts = variant.split(":")
    backend, batch, seq = BACKENDS[parts[0]], int(parts[1]), int(parts[2])
    shuffled = len(parts) > 3 and parts[3] == "shuffled"
    t0 = time.perf_counter()
    model = load_embedder(EmbedderConfig(backend=backend, batch_size=batch, max_seq_length=seq))
    load_s = time.perf_counter() - t0
    model.embed(texts[:16])
    order = list(range(len(texts)))
    if not shuffled:
        order.sort(key=lambda i: len(texts[i]))
    import numpy as np

    out = np.zeros((len(texts), model.dim), dtype=np.float32)
    t0 = time.perf_counter()
    for start in range(0, len(order), 64):  # the embedding cache's calls of 2 x batch
        part = order[start:start + 64]
        out[part] = model.embed([texts[i] for i in part])
    secs = time.perf_counter() - t0
    return {"variant": variant, "backend": backend, "batch": batch, "max_seq_length": seq,
            "shuffled": shuffled, "load_s": round(load_s, 2), "seconds": round(secs, 2),
            "texts_per_s": round(len(texts) / secs, 2)}, out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index_dir", type=Path)
    ap.add_argument("--sample", type=int, default=400)
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--out", type=Path, default=Path("results/embedder_settings.json"))
    args = ap.parse_args(argv)
    texts = _texts(args.index_dir, args.sample)
    rows, ref = [], None
    for variant in args.variants.split(","):
        row, vecs = _run(variant, texts)
        if ref is None:
            ref = vecs
        cos = (vecs * ref).sum(1)
        row.update(cos_min=round(float(cos.min()), 4), cos_mean=round(float(cos.mean()), 4))
        rows.append(row)
        print(f"{variant:<24} {row['texts_per_s']:>7} texts/s  {row['seconds']:>7} s  "
              f"load {row['load_s']} s  cosine to {rows[0]['variant']}: "
              f"min {row['cos_min']} mean {row['cos_mean']}", flush=True)
    result = {"index": str(args.index_dir), "texts": len(texts),
              "chars_mean": round(sum(map(len, texts)) / max(1, len(texts)), 1),
              "load_avg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
              "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
