"""Causal LMs through Hugging Face transformers: a local folder, a hub id (offline: only what is
already in the HF cache), or a GGUF file (dequantised on load through transformers' GGUF support,
which needs the ``gguf`` and ``accelerate`` packages). A GGUF file's conversion (tokenizer rebuild
and dequantisation, the slow part) is done once and kept as safetensors under
``<cache_dir>/models/transformers/``; later loads read that copy.

The chat template comes from the tokenizer (for GGUF files: the template stored in the file).
``n`` samples are drawn in one batched ``generate`` call (``num_return_sequences``): the prompt is
run once per sample but in a single batch. The batch is seeded with ``sampling.seed``. With
``temperature == 0`` one greedy answer is computed and repeated ``n`` times.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ragcode.errors import ModelUnavailableError
from ragcode.generation.llm import Message, Sampling
from ragcode.generation.models import is_gguf, resolve_model

log = logging.getLogger(__name__)


class TransformersLLM:
    def __init__(self, llm_config: Any, cache_dir: str | Path = ""):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if llm_config.n_threads:
            torch.set_num_threads(llm_config.n_threads)
        where = resolve_model(llm_config.model, cache_dir)
        kwargs: dict[str, Any] = {}
        source = where
        converted = None
        if is_gguf(where):
            converted = _converted_dir(Path(where), cache_dir)
            if (converted / _DONE).is_file():
                source = str(converted)  # dequantised once before: plain safetensors, fast to load
            else:
                source, kwargs["gguf_file"] = str(Path(where).parent), Path(where).name
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32, **kwargs)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelUnavailableError(
                f"transformers could not load {llm_config.model!r} (resolved to {where!r}): {exc}. "
                "Give a local model folder, a .gguf file, a packaged alias, or a hub id that is "
                "already in the local Hugging Face cache"
            ) from exc
        self.model.eval()
        if converted is not None and "gguf_file" in kwargs and cache_dir:
            _save_converted(self.model, self.tokenizer, converted)
        self.model_id = f"transformers:{Path(where).name if Path(where).exists() else where}"

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        import torch

        prompt = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        inputs = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        greedy = sampling.temperature <= 0
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "do_sample": not greedy,
            "num_return_sequences": 1 if greedy else n,
            "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
        }
        if not greedy:
            gen_kwargs.update(temperature=sampling.temperature, top_p=sampling.top_p)
        if sampling.stop:
            gen_kwargs.update(stop_strings=list(sampling.stop), tokenizer=self.tokenizer)
        torch.manual_seed(sampling.seed)
        with torch.inference_mode():
            out = self.model.generate(**inputs, **gen_kwargs)
        start = inputs["input_ids"].shape[1]
        texts = [self.tokenizer.decode(seq[start:], skip_special_tokens=True) for seq in out]
        if greedy:
            texts = texts * n
        return [_cut_at_stop(t, sampling.stop) for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


_DONE = "ragcode-converted.ok"


def _converted_dir(gguf: Path, cache_dir: str | Path) -> Path:
    """Where the dequantised copy of ``gguf`` is kept: keyed by its name, size and mtime."""
    st = gguf.stat()
    return Path(cache_dir) / "models" / "transformers" / f"{gguf.stem}-{st.st_size}-{st.st_mtime_ns}"


def _save_converted(model: Any, tokenizer: Any, target: Path) -> None:
    """Keep the GGUF -> transformers conversion (tokenizer rebuild + dequantisation, the slow
    part of loading) as safetensors, written to a temp folder and renamed into place."""
    import shutil
    import tempfile

    tmp: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        # the weights are already dequantised; the GGUF loader's marker would block saving
        quantizer = getattr(model, "hf_quantizer", None)
        qconfig = getattr(model.config, "quantization_config", None)
        try:
            model.hf_quantizer = None
            if qconfig is not None:
                del model.config.quantization_config
            model.save_pretrained(tmp)
        finally:
            model.hf_quantizer = quantizer
            if qconfig is not None:
                model.config.quantization_config = qconfig
        tokenizer.save_pretrained(tmp)
        (tmp / _DONE).write_text("ok\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        log.info("kept the converted model in %s", target)
    except (OSError, ValueError) as exc:  # a cache is an optimisation: never fail the load for it
        log.warning("could not keep the converted model in %s: %s", target, exc)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    for s in stop:
        i = text.find(s)
        if i >= 0:
            text = text[:i]
    return text
