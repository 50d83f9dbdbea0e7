"""Local backend speed on the packaged model: load time, prompt tokens/s, generated tokens/s.

    python benchmarks/generation_backends.py [--model qwen2.5-coder-0.5b] [--backends llamacpp transformers]
        [--prompt-words 300] [--max-tokens 64] [--n 5] [--out benchmarks/results/generation_backends.json]

A backend may name a dtype and thread count: ``transformers:bfloat16``, ``transformers:int8:1``.

For each backend: wall time to load (model already assembled; for transformers the cached
conversion is used when present, the first-ever load is slower and reported by the log), then a
fresh prompt of about ``--prompt-words`` words answered with 1 token (prompt evaluation rate),
then the same prompt answered with up to ``--max-tokens`` tokens at temperature 0
(generation rate = (tokens - 1) / (time - prompt time)); both backends reuse the evaluated prompt,
so the second call is timed as generation only. Then ``--n`` samples of the same prompt at
temperature 0.8 (``n_samples_tokens_per_s``: all their answer tokens over the call's time; llama.cpp
draws them one after another, transformers in one batch). Figures depend on the machine's load:
the JSON records the CPU count and load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ragcode.fileio import write_atomic

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def measure(spec: str, model: str, words: int, max_tokens: int, n: int = 0) -> dict:
    from ragcode.config import Config
    from ragcode.generation.llm import Sampling, load_llm

    backend, _, rest = spec.partition(":")
    dtype, _, threads = rest.partition(":")
    cfg = Config()
    cfg.generation.llm.backend = backend
    cfg.generation.llm.model = model
    if dtype:
        cfg.generation.llm.dtype = dtype
    if threads:
        cfg.generation.llm.n_threads = int(threads)
    t = time.perf_counter()
    llm = load_llm(cfg)
    load_s = time.perf_counter() - t
    filler = " ".join(f"--option{i % 50} value{i}" for i in range(words // 2))
    msgs = [{"role": "user", "content": f"Here is a README excerpt: {filler}\n"
                                        "Write the command that trains the model with --lr 0.01 "
                                        "and --epochs 3. Answer with one fenced bash block."}]
    prompt_tokens = llm.count_tokens(msgs[0]["content"])
    t = time.perf_counter()
    llm.generate(msgs, 1, Sampling(temperature=0.0, max_tokens=1))
    prompt_s = time.perf_counter() - t
    t = time.perf_counter()
    out = llm.generate(msgs, 1, Sampling(temperature=0.0, max_tokens=max_tokens))[0]
    total_s = time.perf_counter() - t
    gen_tokens = llm.count_tokens(out)
    decode_s = total_s
    row = {"backend": spec, "dtype": getattr(llm, "dtype", "q4_k_m"), "model_id": llm.model_id, "load_s": round(load_s, 2),
            "prompt_tokens": prompt_tokens, "prompt_s": round(prompt_s, 2),
            "prompt_tokens_per_s": round(prompt_tokens / prompt_s, 1),
            "generated_tokens": gen_tokens, "generate_s": round(total_s, 2),
            "generated_tokens_per_s": round(max(gen_tokens - 1, 1) / decode_s, 2)}
    if n > 1:
        t = time.perf_counter()
        outs = llm.generate(msgs, n, Sampling(temperature=0.8, max_tokens=max_tokens, seed=1))
        row["n_samples"], row["n_samples_s"] = n, round(time.perf_counter() - t, 2)
        row["n_samples_tokens"] = sum(llm.count_tokens(o) for o in outs)
        row["n_samples_tokens_per_s"] = round(row["n_samples_tokens"] / row["n_samples_s"], 2)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--backends", nargs="+", default=["llamacpp", "transformers"])
    ap.add_argument("--prompt-words", type=int, default=300)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--n", type=int, default=5, help="samples of the n-sample measure (0 = skip it)")
    ap.add_argument("--out", default="benchmarks/results/generation_backends.json")
    args = ap.parse_args(argv)
    results = {"machine": {"cpus": os.cpu_count(), "loadavg_at_start": list(os.getloadavg())},
               "runs": []}
    for backend in args.backends:
        row = measure(backend, args.model, args.prompt_words, args.max_tokens, args.n)
        print(json.dumps(row), file=sys.stderr)
        results["runs"].append(row)
    results["machine"]["loadavg_at_end"] = list(os.getloadavg())
    write_atomic(args.out, json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
